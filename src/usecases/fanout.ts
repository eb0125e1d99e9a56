import { newId } from '../domain/ids.js';
import type { PostRecord } from '../domain/models.js';
import type { GraphStore } from '../stores/graph/graph-store.js';
import { UNMETERED } from '../stores/graph/traversal.js';
import type { PostStore } from '../stores/post-store.js';
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

/** The checkpoint of a deletePost task whose followers are done and whose remaining records are being removed. */
const TRACES_PHASE = 'traces';

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
    private readonly posts: Pick<PostStore, 'getMany'>,
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
      case 'fanOut':
        return this.fanOut(task, payload, save, stopping);
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

  /**
   * Copies the post into its author's followers' home timelines. A delete may commit while
   * this runs, and its cleanup may pass a follower before this reaches them; so after each
   * page the post is read again (strongly consistent), and if it is gone the page just
   * written is taken back and the fan-out ends. Either the delete came first and this sees
   * it, or it came after this page and its cleanup removes the page.
   */
  private async fanOut(task: ClaimedTask, payload: Extract<TaskPayload, { kind: 'fanOut' }>, save: SaveCheckpoint, stopping: () => boolean): Promise<RunOutcome> {
    const post = await this.currentPost(payload.postId);
    if (!post) return 'done';
    // The author's own entry was written with the post; writing it again here lets the author's timeline take part in the bound check.
    let recipients = task.checkpoint === null ? [payload.authorId] : [];
    let deleted = false;
    const outcome = await this.forEachFollowerPage(payload.authorId, task.checkpoint, save, () => deleted || stopping(), async (followerIds) => {
      const entries = [...recipients, ...followerIds].map((userId) => ({ userId, postId: payload.postId, authorId: payload.authorId, counterShards: post.counterShards }));
      recipients = [];
      await this.timelines.addHomeEntries(entries);
      if (await this.currentPost(payload.postId)) return;
      deleted = true;
      await this.timelines.removeHomeEntries(entries);
    });
    return deleted ? 'done' : outcome;
  }

  private async currentPost(postId: string): Promise<PostRecord | null> {
    const [post] = await this.posts.getMany([postId], { consistent: true });
    return post ?? null;
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
      const page = await this.graph.followers(authorId, { first: this.settings.pageSize, after }, UNMETERED);
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
    if (task.checkpoint !== TRACES_PHASE) {
      const outcome = await this.forEachFollowerPage(payload.authorId, task.checkpoint, save, stopping, (followerIds) =>
        this.timelines.removeHomeEntries(followerIds.map((userId) => ({ userId, postId: payload.postId }))),
      );
      if (outcome !== 'done') return outcome;
    }
    // Then the rest, a batch at a time, renewing the lease between batches.
    while (await this.timelines.removePostTraces(payload.postId, payload.tags)) {
      if (!(await save(TRACES_PHASE))) return 'lost';
      if (stopping()) return 'stopped';
    }
    return 'done';
  }

  /**
   * Copies the followee's newest posts into the follower's home timeline. The follow is read
   * before and again after writing: an unfollow whose removal ran in between must not leave
   * the posts behind, so they are taken back.
   */
  private async backfill(followerId: string, followeeId: string): Promise<RunOutcome> {
    if (!(await this.stillFollows(followerId, followeeId)) || this.settings.backfillPosts === 0) return 'done';
    const page = await this.timelines.authorPosts(followeeId, this.settings.backfillPosts, null);
    const entries = page.entries.map((entry) => ({ userId: followerId, postId: entry.postId, authorId: followeeId, counterShards: entry.counterShards }));
    await this.timelines.addHomeEntries(entries);
    if (!(await this.stillFollows(followerId, followeeId))) await this.timelines.removeHomeEntries(entries);
    return 'done';
  }

  private async stillFollows(followerId: string, followeeId: string): Promise<boolean> {
    const [follows] = await this.graph.follows([{ from: followerId, to: followeeId }], UNMETERED);
    return follows === true;
  }

  /**
   * Removes the followee's posts from the follower's home timeline. Followed again before this
   * ran, it does nothing; followed again while it ran (the new follow's backfill may have been
   * undone by these deletes), it finishes with a backfill.
   */
  private async removeFollowee(task: ClaimedTask, followerId: string, followeeId: string, save: SaveCheckpoint, stopping: () => boolean): Promise<RunOutcome> {
    if (await this.stillFollows(followerId, followeeId)) return 'done';
    let cursor = task.checkpoint;
    for (;;) {
      const page = await this.timelines.homeEntriesByAuthor(followerId, followeeId, cursor);
      await this.timelines.removeHomeEntries(page.postIds.map((postId) => ({ userId: followerId, postId })));
      if (!page.cursor) return (await this.stillFollows(followerId, followeeId)) ? this.backfill(followerId, followeeId) : 'done';
      cursor = page.cursor;
      if (!(await save(cursor))) return 'lost';
      if (stopping()) return 'stopped';
    }
  }
}
