import type { TaskKind } from '../../domain/tasks.js';
import type { AccountStore } from '../../stores/account-store.js';
import type { ActivityStore } from '../../stores/activity-store.js';
import type { CounterStore } from '../../stores/counter-store.js';
import type { FanOutProgressStore } from '../../stores/fanout-progress-store.js';
import type { GraphStore } from '../../stores/graph/graph-store.js';
import type { NotificationStore } from '../../stores/notification-store.js';
import type { PostStore } from '../../stores/post-store.js';
import type { RepostStore } from '../../stores/repost-store.js';
import type { ClaimedTask } from '../../stores/task-queue.js';
import type { TimelineStore } from '../../stores/timeline-store.js';
import type { UserStore } from '../../stores/user-store.js';
import type { FollowEvents } from '../follow-events.js';
import { HomeRetention } from '../home-retention.js';
import type { CommentUseCases } from '../comments.js';
import type { PostUseCases } from '../posts.js';
import type { NotificationListener } from '../notifications.js';
import type { RelationshipUseCases } from '../relationships.js';
import type { RepostUseCases } from '../reposts.js';
import { BackfillHandler } from './backfill.js';
import { DeleteAccountHandler } from './delete-account.js';
import { DeletePostHandler } from './delete-post.js';
import { FanOutHandler } from './fan-out.js';
import { NotifyHandler } from './notify.js';
import { ReconcileActorHandler } from './reconcile-actor.js';
import { RepostHandler } from './repost.js';
import { FollowerWalk } from './steps/follower-walk.js';
import { HomeDelivery, type OnDelivered } from './steps/home-delivery.js';
import { NotificationCheck } from './steps/notification-check.js';
import type { RunOutcome, SaveCheckpoint, TaskHandler, TaskRunner } from './task-handler.js';
import { UnfollowHandler } from './unfollow.js';
import { UnrepostHandler } from './unrepost.js';

export interface TaskSettings {
  /** Followers handled per step; a task checkpoints after each step. */
  fanoutPageSize: number;
  /** How many of the followee's newest posts a follow copies into the follower's home timeline. */
  followBackfillPosts: number;
  /** Days a home timeline keeps a post (HOME_RETENTION_DAYS). */
  homeRetentionDays: number;
  /** Notification groups a user keeps (NOTIFICATIONS_MAX). */
  notificationsMax: number;
}

export interface TaskHandlerStores {
  timelines: TimelineStore;
  graph: GraphStore;
  posts: Pick<PostStore, 'getMany' | 'getComments' | 'comments'>;
  reposts: Pick<RepostStore, 'hasReposted' | 'reposters' | 'positionOf'>;
  fanOutProgress: Pick<FanOutProgressStore, 'advance'>;
  counters: Pick<CounterStore, 'hasLiked'>;
  notifications: NotificationStore;
  users: Pick<UserStore, 'getMany'>;
  accounts: Pick<AccountStore, 'removeRemnants' | 'removeProfile'>;
  activities: ActivityStore;
  /** What time it is (ms since the epoch): where home timelines' retention ends. */
  clock: () => number;
}

/** Every handler the service has, one per task kind (the type checks that none is missing). */
export type HandlerSet = { [K in TaskKind]: TaskHandler<K> };

/** Runs each task by its kind's handler. */
export class TaskHandlers implements TaskRunner {
  constructor(private readonly handlers: HandlerSet) {}

  run(task: ClaimedTask, save: SaveCheckpoint, stopping: () => boolean): Promise<RunOutcome> {
    const kind = (task.payload as { kind?: unknown }).kind;
    const handler =
      typeof kind === 'string' && Object.hasOwn(this.handlers, kind)
        ? (this.handlers[kind as TaskKind] as TaskHandler)
        : null;
    // A task this version cannot run (written by a newer one, or damaged): it fails, and after
    // QUEUE_MAX_ATTEMPTS runs the worker moves it to the dead-letter list.
    if (!handler) return Promise.reject(new Error(`unknown task kind ${JSON.stringify(kind)}`));
    return handler.run({ payload: task.payload, checkpoint: task.checkpoint, save, stopping });
  }
}

/** Every task kind's handler, for the worker: one kind, one handler. */
export function createTaskHandlers(
  stores: TaskHandlerStores,
  settings: TaskSettings,
  useCases: {
    posts: Pick<PostUseCases, 'delete'>;
    reposts: Pick<RepostUseCases, 'undo' | 'undoBatch'>;
    comments: Pick<CommentUseCases, 'delete'>;
    relationships: Pick<RelationshipUseCases, 'blockedAmong'>;
    followEvents: FollowEvents;
  },
  /** Told of what the handlers deliver (live updates): home timeline entries, and notification groups that got a new actor. */
  listeners: { delivered: OnDelivered; notified: NotificationListener } = { delivered: () => {}, notified: () => {} },
): TaskHandlers {
  const followers = new FollowerWalk(stores.graph, settings.fanoutPageSize);
  const homes = new HomeDelivery(stores.timelines, new HomeRetention(settings.homeRetentionDays, stores.clock));
  const backfill = new BackfillHandler(stores.timelines, stores.graph, homes, settings.followBackfillPosts);
  const repost = new RepostHandler(stores.posts, stores.reposts, followers, homes, listeners.delivered);
  const check = new NotificationCheck(stores, useCases.relationships);
  return new TaskHandlers({
    fanOut: new FanOutHandler(
      stores.posts,
      stores.reposts,
      followers,
      homes,
      stores.fanOutProgress,
      listeners.delivered,
    ),
    deletePost: new DeletePostHandler(
      stores.timelines,
      followers,
      (postId) => useCases.reposts.undoBatch(postId, settings.fanoutPageSize),
      stores.notifications,
      stores.posts,
    ),
    backfill,
    unfollow: new UnfollowHandler(stores.timelines, stores.graph, backfill),
    repost,
    unrepost: new UnrepostHandler(stores.reposts, followers, homes, repost),
    deleteAccount: new DeleteAccountHandler(stores, useCases, settings.fanoutPageSize, stores.clock),
    notify: new NotifyHandler(stores.notifications, check, settings.notificationsMax, listeners.notified),
    reconcileActor: new ReconcileActorHandler(stores.notifications, check, settings.fanoutPageSize),
  });
}
