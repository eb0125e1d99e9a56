import type { NotificationStore } from '../../stores/notification-store.js';
import type { TimelineStore } from '../../stores/timeline-store.js';
import type { FollowerWalk } from './follower-walk.js';
import type { RunOutcome, TaskHandler, TaskRun } from './task-handler.js';

/** Checkpoints of a deletePost task past its author's followers: its reposts are being undone, then its remaining records removed. */
const REPOSTS_PHASE = 'reposts';
const TRACES_PHASE = 'traces';

/**
 * `deletePost`: removes a deleted post from every timeline it reached. First from the home
 * timelines of its author's followers (whatever brought it there); then each repost of it is
 * removed with an `unrepost` task of its own, which takes it out of the reposter's followers'
 * timelines; last, a bounded batch at a time, its tag and public entries, comments and records,
 * and then the notifications about it of its author and of the accounts it mentions.
 */
export class PostCleanup implements TaskHandler<'deletePost'> {
  readonly kind = 'deletePost';

  constructor(
    private readonly timelines: Pick<TimelineStore, 'removeHomeEntries' | 'removePostTraces'>,
    private readonly followers: FollowerWalk,
    private readonly undoReposts: (postId: string) => Promise<boolean>,
    private readonly notifications: Pick<NotificationStore, 'removeGroup'>,
  ) {}

  async run({ payload: { postId, authorId, tags, mentionIds = [] }, checkpoint, save, stopping }: TaskRun<'deletePost'>): Promise<RunOutcome> {
    if (checkpoint !== REPOSTS_PHASE && checkpoint !== TRACES_PHASE) {
      const outcome = await this.followers.walk(authorId, await this.followers.page(authorId, checkpoint), save, stopping, {
        write: (followerIds) => this.timelines.removeHomeEntries(followerIds.map((userId) => ({ userId, postId }))),
      });
      if (outcome !== 'done') return outcome;
      if (!(await save(REPOSTS_PHASE))) return 'lost';
    }
    if (checkpoint !== TRACES_PHASE) {
      while (await this.undoReposts(postId)) {
        if (!(await save(REPOSTS_PHASE))) return 'lost';
        if (stopping()) return 'stopped';
      }
      if (!(await save(TRACES_PHASE))) return 'lost';
    }
    // Then the rest, a batch at a time, renewing the lease between batches.
    while (await this.timelines.removePostTraces(postId, tags)) {
      if (!(await save(TRACES_PHASE))) return 'lost';
      if (stopping()) return 'stopped';
    }
    await Promise.all([
      ...(['LIKE', 'REPOST', 'COMMENT'] as const).map((kind) => this.notifications.removeGroup(authorId, kind, postId)),
      ...mentionIds.map((userId) => this.notifications.removeGroup(userId, 'MENTION', postId)),
    ]);
    return 'done';
  }
}
