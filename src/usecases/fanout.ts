import { newId } from '../domain/ids.js';
import type { GraphStore } from '../stores/graph/graph-store.js';
import type { ClaimedTask, TaskPayload, TaskQueue } from '../stores/task-queue.js';
import type { TimelineStore } from '../stores/timeline-store.js';
import type { FollowEvents } from './follow-events.js';

export interface FanOutSettings {
  /** Followers handled per step; a task checkpoints after each step. */
  pageSize: number;
  /** How many of the followee's newest posts a follow copies into the follower's home timeline. */
  backfillPosts: number;
}

/** Saves the task's position and renews its lease; false when another worker has taken the task over. */
export type SaveCheckpoint = (checkpoint: string) => Promise<boolean>;

/** How a run ended: finished, interrupted by a stopping worker (resumable), or the lease was lost. */
export type RunOutcome = 'done' | 'stopped' | 'lost';

/**
 * The timeline work behind posts and follows, done by the worker from durable tasks. Each
 * step is idempotent (puts and deletes by key), so a step repeated after a crash or a
 * redelivery leaves every timeline as if it had run once.
 */
export class FanOut implements FollowEvents {
  constructor(
    private readonly timelines: TimelineStore,
    private readonly graph: GraphStore,
    private readonly queue: TaskQueue,
    private readonly settings: FanOutSettings,
    private readonly taskEnqueued: () => void,
  ) {}

  async followed(followerId: string, followeeId: string): Promise<void> {
    await this.enqueue({ kind: 'backfill', followerId, followeeId });
  }

  async unfollowed(followerId: string, followeeId: string): Promise<void> {
    await this.enqueue({ kind: 'unfollow', followerId, followeeId });
  }

  private async enqueue(payload: TaskPayload): Promise<void> {
    await this.queue.enqueue({ id: newId('tsk'), payload });
    this.taskEnqueued();
  }

  run(task: ClaimedTask, save: SaveCheckpoint, stopping: () => boolean): Promise<RunOutcome> {
    const { payload } = task;
    switch (payload.kind) {
      case 'fanOut': {
        // The author's own entry was written with the post; writing it again here lets the author's timeline take part in the bound check.
        let recipients = task.checkpoint === null ? [payload.authorId] : [];
        return this.forEachFollowerPage(payload.authorId, task.checkpoint, save, stopping, async (followerIds) => {
          const userIds = [...recipients, ...followerIds];
          recipients = [];
          await this.timelines.addHomeEntries(userIds.map((userId) => ({ userId, postId: payload.postId, authorId: payload.authorId })));
        });
      }
      case 'deletePost':
        return this.deletePost(task, payload, save, stopping);
      case 'backfill':
        return this.backfill(payload.followerId, payload.followeeId);
      case 'unfollow':
        return this.removeFollowee(task, payload.followerId, payload.followeeId, save, stopping);
      default:
        // A task this version cannot run (written by a newer one, or damaged): it fails, and after
        // QUEUE_MAX_ATTEMPTS runs the worker moves it to the dead-letter list.
        throw new Error(`unknown task kind ${JSON.stringify((payload as { kind?: unknown }).kind)}`);
    }
  }

  /** Walks the author's followers page by page from the checkpoint, saving the position after each page. */
  private async forEachFollowerPage(
    authorId: string,
    checkpoint: string | null,
    save: SaveCheckpoint,
    stopping: () => boolean,
    handle: (followerIds: string[]) => Promise<void>,
  ): Promise<RunOutcome> {
    let after = checkpoint;
    for (;;) {
      const page = await this.graph.followers(authorId, { first: this.settings.pageSize, after });
      await handle(page.items.map((item) => item.id));
      const last = page.items.at(-1);
      if (!page.hasNextPage || !last) return 'done';
      after = last.cursor;
      if (!(await save(after))) return 'lost';
      if (stopping()) return 'stopped';
    }
  }

  private async deletePost(
    task: ClaimedTask,
    payload: Extract<TaskPayload, { kind: 'deletePost' }>,
    save: SaveCheckpoint,
    stopping: () => boolean,
  ): Promise<RunOutcome> {
    const outcome = await this.forEachFollowerPage(payload.authorId, task.checkpoint, save, stopping, (followerIds) =>
      this.timelines.removeHomeEntries(followerIds.map((userId) => ({ userId, postId: payload.postId }))),
    );
    if (outcome !== 'done') return outcome;
    await this.timelines.removePostTraces(payload.postId, payload.tags);
    return 'done';
  }

  private async backfill(followerId: string, followeeId: string): Promise<RunOutcome> {
    // A follow undone before this task ran must not leave the followee's posts behind.
    const [stillFollows] = await this.graph.follows([{ from: followerId, to: followeeId }]);
    if (!stillFollows || this.settings.backfillPosts === 0) return 'done';
    const { postIds } = await this.timelines.authorPosts(followeeId, this.settings.backfillPosts, null);
    await this.timelines.addHomeEntries(postIds.map((postId) => ({ userId: followerId, postId, authorId: followeeId })));
    return 'done';
  }

  private async removeFollowee(task: ClaimedTask, followerId: string, followeeId: string, save: SaveCheckpoint, stopping: () => boolean): Promise<RunOutcome> {
    // Followed again before this task ran: the posts belong in the timeline.
    const [followsAgain] = await this.graph.follows([{ from: followerId, to: followeeId }]);
    if (followsAgain) return 'done';
    let cursor = task.checkpoint;
    for (;;) {
      const page = await this.timelines.homeEntriesByAuthor(followerId, followeeId, cursor);
      await this.timelines.removeHomeEntries(page.postIds.map((postId) => ({ userId: followerId, postId })));
      if (!page.cursor) return 'done';
      cursor = page.cursor;
      if (!(await save(cursor))) return 'lost';
      if (stopping()) return 'stopped';
    }
  }
}
