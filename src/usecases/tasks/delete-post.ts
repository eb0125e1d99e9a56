import { mapConcurrently } from '../../lib/collections.js';
import type { NotificationStore } from '../../stores/notification-store.js';
import type { PostStore } from '../../stores/post-store.js';
import type { TimelineStore } from '../../stores/timeline-store.js';
import type { FollowerWalk } from './steps/follower-walk.js';
import type { RunOutcome, TaskHandler, TaskRun } from './task-handler.js';

/** Checkpoints past the followers, in order; the mentions phase goes on as `mentions:<last comment's place>`. */
const REPOSTS_PHASE = 'reposts';
const MENTIONS_PHASE = 'mentions';
const TRACES_PHASE = 'traces';
/** Comments read per batch of the mentions phase. */
const COMMENTS_PER_BATCH = 100;
/** Mention groups removed at once: each removal is a few requests, and a batch of comments may mention hundreds of users. */
const GROUP_REMOVAL_CONCURRENCY = 8;

type Phase = 'followers' | typeof REPOSTS_PHASE | typeof MENTIONS_PHASE | typeof TRACES_PHASE;

function phaseOf(checkpoint: string | null): Phase {
  if (checkpoint === REPOSTS_PHASE || checkpoint === TRACES_PHASE || checkpoint === MENTIONS_PHASE) return checkpoint;
  // A follower cursor is the graph's own list position, never this.
  return checkpoint?.startsWith(`${MENTIONS_PHASE}:`) ? MENTIONS_PHASE : 'followers';
}

/**
 * `deletePost`: a deleted post out of its author's followers' home timelines, its reposts undone, then its comments'
 * mention and reply notifications (while the comments still say whom), and last its other traces and notifications.
 */
export class DeletePostHandler implements TaskHandler<'deletePost'> {
  readonly kind = 'deletePost';

  constructor(
    private readonly timelines: Pick<TimelineStore, 'removeHomeEntries' | 'removePostTraces'>,
    private readonly followers: FollowerWalk,
    private readonly undoReposts: (postId: string) => Promise<boolean>,
    private readonly notifications: Pick<NotificationStore, 'removeGroup'>,
    private readonly comments: Pick<PostStore, 'comments'>,
  ) {}

  async run({
    payload: { postId, authorId, tags, mentionIds = [] },
    checkpoint,
    save,
    stopping,
  }: TaskRun<'deletePost'>): Promise<RunOutcome> {
    const phase = phaseOf(checkpoint);
    if (phase === 'followers') {
      const outcome = await this.followers.walk(
        authorId,
        await this.followers.page(authorId, checkpoint),
        save,
        stopping,
        {
          write: (followerIds) => this.timelines.removeHomeEntries(followerIds.map((userId) => ({ userId, postId }))),
        },
      );
      if (outcome !== 'done') return outcome;
      if (!(await save(REPOSTS_PHASE))) return 'lost';
    }
    if (phase === 'followers' || phase === REPOSTS_PHASE) {
      while (await this.undoReposts(postId)) {
        if (!(await save(REPOSTS_PHASE))) return 'lost';
        if (stopping()) return 'stopped';
      }
      if (!(await save(MENTIONS_PHASE))) return 'lost';
    }
    if (phase !== TRACES_PHASE) {
      let after = checkpoint?.startsWith(`${MENTIONS_PHASE}:`) ? checkpoint.slice(MENTIONS_PHASE.length + 1) : null;
      for (;;) {
        const page = await this.comments.comments(postId, COMMENTS_PER_BATCH, after);
        const mentioned = new Set(page.items.flatMap((comment) => comment.mentionIds));
        const repliedTo = new Set(
          page.items.flatMap((comment) => (comment.replyToAuthorId ? [comment.replyToAuthorId] : [])),
        );
        await mapConcurrently([...mentioned], GROUP_REMOVAL_CONCURRENCY, (userId) =>
          this.notifications.removeGroup(userId, 'MENTION', postId),
        );
        await mapConcurrently([...repliedTo], GROUP_REMOVAL_CONCURRENCY, (userId) =>
          this.notifications.removeGroup(userId, 'REPLY', postId),
        );
        if (!page.hasNextPage || page.end === null) break;
        after = page.end;
        if (!(await save(`${MENTIONS_PHASE}:${after}`))) return 'lost';
        if (stopping()) return 'stopped';
      }
      if (!(await save(TRACES_PHASE))) return 'lost';
    }
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
