import { AppError } from '../../domain/errors.js';
import type { PayloadOf } from '../../domain/tasks.js';
import type { AccountStore } from '../../stores/account-store.js';
import type { ActivityStore } from '../../stores/activity-store.js';
import type { GraphStore } from '../../stores/graph/graph-store.js';
import { UNMETERED } from '../../stores/graph/traversal.js';
import type { NotificationStore } from '../../stores/notification-store.js';
import type { TimelineStore } from '../../stores/timeline-store.js';
import type { FollowEvents } from '../follow-events.js';
import type { CommentUseCases } from '../comments.js';
import type { PostUseCases } from '../posts.js';
import type { RepostUseCases } from '../reposts.js';
import type { RunOutcome, TaskHandler, TaskRun } from './task-handler.js';

/** In order; the checkpoint is the step the task is in, each step a batch at a time of what is still there. */
const STEPS = ['posts', 'activity', 'followers', 'following', 'notified', 'remnants', 'profile', 'leftovers'] as const;
type Step = (typeof STEPS)[number];

export interface DeleteAccountStores {
  accounts: Pick<AccountStore, 'removeRemnants' | 'removeProfile'>;
  activities: ActivityStore;
  graph: GraphStore;
  timelines: Pick<TimelineStore, 'authorPosts'>;
  notifications: Pick<NotificationStore, 'groupsOfActor' | 'removeActor'>;
}

export interface DeleteAccountUseCases {
  posts: Pick<PostUseCases, 'delete'>;
  reposts: Pick<RepostUseCases, 'undo'>;
  comments: Pick<CommentUseCases, 'delete'>;
  followEvents: FollowEvents;
}

/**
 * `deleteAccount`: everything a closed account wrote, in the steps of docs/design/account-deletion.md. The profile
 * goes last, so that nothing written meanwhile is left without its author.
 */
export class DeleteAccountHandler implements TaskHandler<'deleteAccount'> {
  readonly kind = 'deleteAccount';

  constructor(
    private readonly stores: DeleteAccountStores,
    private readonly useCases: DeleteAccountUseCases,
    /** Posts, activities or follows handled per batch (FANOUT_PAGE_SIZE). */
    private readonly pageSize: number,
    /** What time it is (ms since the epoch). */
    private readonly clock: () => number,
  ) {}

  /** The steps from the checkpoint on. */
  async run({ payload, checkpoint, save, stopping }: TaskRun<'deleteAccount'>): Promise<RunOutcome> {
    const from = STEPS.indexOf((checkpoint ?? 'posts') as Step);
    if (from < 0) throw new Error(`unknown deleteAccount checkpoint ${JSON.stringify(checkpoint)}`);
    for (const step of STEPS.slice(from)) {
      if (step !== STEPS[from] && !(await save(step))) return 'lost';
      if (step === 'activity' && payload.activityAfter !== undefined) {
        // A like, comment or repost whose request was checked before the closing may land until then.
        const laterMs = Date.parse(payload.activityAfter) - this.clock();
        if (laterMs > 0) return { laterMs };
      }
      while (await this.batch(step, payload)) {
        if (!(await save(step))) return 'lost';
        if (stopping()) return 'stopped';
      }
    }
    return 'done';
  }

  /** One batch of a step; true while the step has more to do. */
  private async batch(step: Step, { userId, handle }: PayloadOf<'deleteAccount'>): Promise<boolean> {
    const first = this.pageSize;
    switch (step) {
      case 'posts': {
        const { entries, hasNextPage } = await this.stores.timelines.authorPosts(userId, first, null);
        for (const { postId } of entries) await this.deletePost(userId, postId);
        return hasNextPage;
      }
      case 'activity': {
        const activities = await this.stores.activities.activities(userId, first);
        for (const activity of activities) {
          if (activity.kind === 'repost') await this.useCases.reposts.undo(userId, activity.postId);
          else if (activity.kind !== 'comment' || !(await this.deleteComment(userId, activity.commentId)))
            await this.stores.activities.undo(userId, activity);
        }
        return activities.length === first;
      }
      case 'followers': {
        const page = await this.stores.graph.followers(userId, { first, after: null }, UNMETERED);
        let removed = false;
        for (const { id } of page.items) {
          removed = (await this.stores.graph.unfollow(id, userId)) || removed;
          await this.useCases.followEvents.unfollowed(id, userId);
        }
        // A page of nothing to remove (list entries without their edges) would be read again forever; profile's removeUser sweeps it.
        return page.hasNextPage && removed;
      }
      case 'following': {
        const page = await this.stores.graph.following(userId, { first, after: null }, UNMETERED);
        let removed = false;
        for (const { id } of page.items) removed = (await this.stores.graph.unfollow(userId, id)) || removed;
        return page.hasNextPage && removed;
      }
      case 'notified': {
        // Each removal takes its group off the actor's list, so the first page is always what is left.
        const { causes, next } = await this.stores.notifications.groupsOfActor(userId, null, first, null);
        for (const cause of causes) await this.stores.notifications.removeActor(cause);
        return next !== null;
      }
      case 'remnants':
        return this.stores.accounts.removeRemnants(userId);
      case 'profile':
        await this.stores.accounts.removeProfile(userId, handle);
        // A follow that reached the account while the steps above ran goes with its node.
        await this.stores.graph.removeUser(userId);
        return false;
      case 'leftovers':
        return this.stores.accounts.removeRemnants(userId);
    }
  }

  /** As deleteComment by its author: a tombstone if it has replies. False when it is gone already (its activity item may be left). */
  private async deleteComment(userId: string, commentId: string): Promise<boolean> {
    try {
      await this.useCases.comments.delete(userId, commentId);
      return true;
    } catch (error) {
      if (error instanceof AppError && (error.code === 'NOT_FOUND' || error.code === 'FORBIDDEN')) return false;
      throw error;
    }
  }

  private async deletePost(userId: string, postId: string): Promise<void> {
    try {
      await this.useCases.posts.delete(userId, postId);
    } catch (error) {
      // Deleted meanwhile (a repeated batch after a crash): done already.
      if (!(error instanceof AppError && error.code === 'NOT_FOUND')) throw error;
    }
  }
}
