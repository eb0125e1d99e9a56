import { newId } from '../domain/ids.js';
import type { CounterStore } from '../stores/counter-store.js';
import type { GraphStore } from '../stores/graph/graph-store.js';
import type { FanOutProgressStore } from '../stores/fanout-progress-store.js';
import type { NotificationStore } from '../stores/notification-store.js';
import type { PostStore } from '../stores/post-store.js';
import type { RepostStore } from '../stores/repost-store.js';
import type { Task, TaskPayload } from '../domain/tasks.js';
import type { TaskQueue } from '../stores/task-queue.js';
import type { TimelineStore } from '../stores/timeline-store.js';
import type { UserStore } from '../stores/user-store.js';
import type { AccountDeletion } from './account-deletion.js';
import type { FollowEvents } from './follow-events.js';
import type { NotificationListener } from './notifications.js';
import type { RelationshipUseCases } from './relationships.js';
import type { RepostUseCases } from './reposts.js';
import { ReconcileActorHandler } from './tasks/reconcile-actor.js';
import { BackfillHandler } from './tasks/backfill.js';
import { FollowerWalk } from './tasks/steps/follower-walk.js';
import { HomeDelivery, type OnDelivered } from './tasks/steps/home-delivery.js';
import { NotificationCheck } from './tasks/steps/notification-check.js';
import { NotifyHandler } from './tasks/notify.js';
import { DeletePostHandler } from './tasks/delete-post.js';
import { FanOutHandler } from './tasks/fan-out.js';
import { RepostHandler } from './tasks/repost.js';
import { TaskHandlers } from './tasks/task-handler.js';
import { UnfollowHandler } from './tasks/unfollow.js';
import { UnrepostHandler } from './tasks/unrepost.js';

export interface FanOutSettings {
  /** Followers handled per step; a task checkpoints after each step. */
  fanoutPageSize: number;
  /** How many of the followee's newest posts a follow copies into the follower's home timeline. */
  followBackfillPosts: number;
  /** Entries a home timeline keeps, about (see sampledSizeAdditions). */
  timelineMaxEntries: number;
  /** A home timeline's size is counted on about one write in this many. */
  timelineSizeSampleEvery: number;
  /** Notification groups a user keeps (NOTIFICATIONS_MAX). */
  notificationsMax: number;
}

/**
 * The timeline side of follows: a follow or unfollow enqueues a durable task (`backfill`,
 * `unfollow`) that the worker runs with that kind's handler.
 */
export class FanOut implements FollowEvents {
  constructor(
    private readonly queue: TaskQueue,
    private readonly taskEnqueued: (task: Task) => void,
  ) {}

  async followed(followerId: string, followeeId: string): Promise<void> {
    await this.enqueue({ kind: 'backfill', followerId, followeeId });
  }

  async unfollowed(followerId: string, followeeId: string): Promise<void> {
    await this.enqueue({ kind: 'unfollow', followerId, followeeId });
  }

  private async enqueue(payload: TaskPayload): Promise<void> {
    const task = { id: newId('tsk'), payload };
    await this.queue.enqueue(task);
    this.taskEnqueued(task);
  }
}

export interface TaskHandlerStores {
  timelines: TimelineStore;
  graph: GraphStore;
  posts: Pick<PostStore, 'getMany' | 'comments'>;
  reposts: Pick<RepostStore, 'hasReposted' | 'reposters' | 'positionOf'>;
  fanOutProgress: Pick<FanOutProgressStore, 'advance'>;
  counters: Pick<CounterStore, 'hasLiked'>;
  notifications: NotificationStore;
  users: Pick<UserStore, 'getMany'>;
}

/** Every task kind's handler, for the worker (see src/usecases/tasks/): one kind, one handler. */
export function createTaskHandlers(
  stores: TaskHandlerStores,
  settings: FanOutSettings,
  useCases: { accountDeletion: AccountDeletion; reposts: Pick<RepostUseCases, 'undoBatch'>; relationships: Pick<RelationshipUseCases, 'blockedAmong'> },
  /** Told of what the handlers deliver (live updates): home timeline entries, and notification groups that got a new actor. */
  listeners: { delivered: OnDelivered; notified: NotificationListener } = { delivered: () => {}, notified: () => {} },
): TaskHandlers {
  const followers = new FollowerWalk(stores.graph, settings.fanoutPageSize);
  const homes = new HomeDelivery(stores.timelines, settings);
  const backfill = new BackfillHandler(stores.timelines, stores.graph, homes, settings.followBackfillPosts);
  const repost = new RepostHandler(stores.posts, stores.reposts, followers, homes, listeners.delivered);
  const check = new NotificationCheck(stores, useCases.relationships);
  return new TaskHandlers({
    fanOut: new FanOutHandler(stores.posts, stores.reposts, followers, homes, stores.fanOutProgress, listeners.delivered),
    deletePost: new DeletePostHandler(stores.timelines, followers, (postId) => useCases.reposts.undoBatch(postId, settings.fanoutPageSize), stores.notifications, stores.posts),
    backfill,
    unfollow: new UnfollowHandler(stores.timelines, stores.graph, backfill),
    repost,
    unrepost: new UnrepostHandler(stores.reposts, followers, homes, repost),
    deleteAccount: useCases.accountDeletion,
    notify: new NotifyHandler(stores.notifications, check, settings.notificationsMax, listeners.notified),
    reconcileActor: new ReconcileActorHandler(stores.notifications, check, settings.fanoutPageSize),
  });
}
