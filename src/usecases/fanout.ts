import { newId } from '../domain/ids.js';
import type { PostRecord } from '../domain/models.js';
import { mapConcurrently, settleAll } from '../lib/collections.js';
import type { FanOutProgressStore } from '../stores/fanout-progress-store.js';
import type { GraphStore, IdPage } from '../stores/graph/graph-store.js';
import { UNMETERED } from '../stores/graph/traversal.js';
import type { PostStore } from '../stores/post-store.js';
import type { ClaimedTask, Task, TaskPayload, TaskQueue } from '../stores/task-queue.js';
import type { HomeSizeAddition, TimelineStore } from '../stores/timeline-store.js';
import type { FollowEvents } from './follow-events.js';

export interface FanOutSettings {
  /** Followers handled per step; a task checkpoints after each step. */
  fanoutPageSize: number;
  /** How many of the followee's newest posts a follow copies into the follower's home timeline. */
  followBackfillPosts: number;
  /** Entries a home timeline keeps, about (see sampledSizeAdditions). */
  timelineMaxEntries: number;
  /** A home timeline's size is counted on about one write in this many. */
  timelineSizeSampleEvery: number;
}

/** A post's home entries were written for these users (live updates publish it, see LiveUpdates). */
export interface Delivered {
  postId: string;
  authorId: string;
  counterShards: number;
  userIds: readonly string[];
}

/** Told of every batch of home entries a fan-out writes; must not throw (its own failures are its own). */
export type OnDelivered = (delivered: Delivered) => void;

/** Saves the task's position and renews its lease; false when another worker has taken the task over. */
export type SaveCheckpoint = (checkpoint: string) => Promise<boolean>;

/** The checkpoint of a deletePost task whose followers are done and whose remaining records are being removed. */
const TRACES_PHASE = 'traces';

/** How a run ended: finished, interrupted by a stopping worker (resumable), or the lease was lost. */
export type RunOutcome = 'done' | 'stopped' | 'lost';

/** Full home timelines trimmed at once by one step. */
const TRIM_CONCURRENCY = 2;

/**
 * The size estimates a write of home entries adds to: one user id per entry. A user receiving
 * `count` entries is counted with probability count/k as k entries, or exactly when count ≥ k:
 * right on average, at about one update per k entries.
 */
export function sampledSizeAdditions(userIds: readonly string[], k: number, random: () => number = Math.random): HomeSizeAddition[] {
  const counts = new Map<string, number>();
  for (const userId of userIds) counts.set(userId, (counts.get(userId) ?? 0) + 1);
  return [...counts].flatMap(([userId, count]) => (count >= k || random() * k < count ? [{ userId, added: Math.max(count, k) }] : []));
}

/** What a walk over an author's followers does with each page of them. */
interface FollowerPageStep {
  /** The page's timeline writes. */
  write(followerIds: string[]): Promise<void>;
  /**
   * The rest of the work on written pages (the followers of one or more, and the checkpoint after
   * them, null for the end): false ends the walk, and `takeBack` undoes the pages written since.
   */
  finish?(followerIds: string[], cursor: string | null): Promise<boolean>;
  takeBack?(followerIds: string[]): Promise<void>;
}

type PageOutcome = 'go on' | 'taken back' | 'lost';

/** A page of followers whose entries are written, and the checkpoint after it (null for the last page). */
interface WrittenPage {
  followerIds: string[];
  cursor: string | null;
}

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
    private readonly taskEnqueued: (task: Task) => void,
    private readonly progress: Pick<FanOutProgressStore, 'advance'>,
    private readonly onDelivered: OnDelivered = () => {},
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
   * this runs, and its cleanup may pass a follower before this reaches them; so after a page
   * is written the post is read again (strongly consistent), and if it is gone the pages
   * written since are taken back and the fan-out ends. Either the delete came first and this
   * sees it, or it came after the page was written and its cleanup removes the page.
   */
  private async fanOut(task: ClaimedTask, payload: Extract<TaskPayload, { kind: 'fanOut' }>, save: SaveCheckpoint, stopping: () => boolean): Promise<RunOutcome> {
    const { postId, authorId } = payload;
    const [post, firstPage] = await settleAll([this.currentPost(postId), this.followerPage(authorId, task.checkpoint)] as const);
    if (!post) return 'done';
    // The author's own entry was written with the post; counting it with the first page keeps the author's timeline bounded too.
    let uncounted = task.checkpoint === null ? [authorId] : [];
    // The author's own entry is announced with the first page too (live updates).
    let unannounced = task.checkpoint === null ? [authorId] : [];
    let position = task.checkpoint;
    const entries = (followerIds: readonly string[]) => followerIds.map((userId) => ({ userId, postId, authorId, counterShards: post.counterShards }));
    return this.walkFollowers(authorId, firstPage, save, stopping, {
      write: async (followerIds) => {
        await this.timelines.addHomeEntries(entries(followerIds));
        this.onDelivered({ postId, authorId, counterShards: post.counterShards, userIds: [...unannounced, ...followerIds] });
        unannounced = [];
      },
      finish: async (followerIds, cursor) => {
        const counted = [...uncounted, ...followerIds];
        uncounted = [];
        // The progress record goes with the post if it was deleted meanwhile, and is never written back (see advance).
        const [, current] = await settleAll([
          this.keepHomeTimelinesBounded(counted),
          this.currentPost(postId),
          this.progress.advance(postId, position, cursor, followerIds.length),
        ] as const);
        position = cursor;
        return current !== null;
      },
      takeBack: (followerIds) => this.timelines.removeHomeEntries(entries(followerIds)),
    });
  }

  private async currentPost(postId: string): Promise<PostRecord | null> {
    const [post] = await this.posts.getMany([postId], { consistent: true });
    return post ?? null;
  }

  private followerPage(authorId: string, after: string | null): Promise<IdPage> {
    return this.graph.followers(authorId, { first: this.settings.fanoutPageSize, after }, UNMETERED);
  }

  /**
   * Walks the author's followers from the checkpoint as a pipeline in which the timeline
   * writes wait on nothing else: while a page is written, the next one is read, and the pages
   * written before the last one are finished (`finish`, then the checkpoint after them). The
   * last page written waits for the next one before it is finished, and at the end the pages
   * left are finished together: DynamoDB Local applies writes one at a time (see Performance in
   * the README), so the last entries never queue behind bookkeeping, and a short walk does
   * its bookkeeping once. A checkpoint is saved only once the pages before it are written and
   * finished, and after the checkpoint before it, so a resumed task never skips a page.
   */
  private async walkFollowers(authorId: string, firstPage: IdPage, save: SaveCheckpoint, stopping: () => boolean, step: FollowerPageStep): Promise<RunOutcome> {
    let page = firstPage;
    /** Written and not yet finished, oldest first. */
    const unfinished: WrittenPage[] = [];
    let finishing: Promise<PageOutcome> = Promise.resolve('go on');
    for (;;) {
      const followerIds = page.items.map((item) => item.id);
      const cursor = page.hasNextPage ? (page.items.at(-1)?.cursor ?? null) : null;
      const [next, outcome] = await settleAll([cursor ? this.followerPage(authorId, cursor) : null, finishing, step.write(followerIds)] as const);
      unfinished.push({ followerIds, cursor });
      if (outcome !== 'go on') return this.ended(outcome, step, unfinished);
      if (!next || stopping()) {
        const last = await this.finishPages(step, unfinished.splice(0), save);
        return last !== 'go on' ? this.ended(last, step, []) : next ? 'stopped' : 'done';
      }
      finishing = unfinished.length > 1 ? this.finishPages(step, unfinished.splice(0, unfinished.length - 1), save) : Promise.resolve('go on');
      page = next;
    }
  }

  /** Finishes written pages (taking them back if the walk must end) and saves the position after the last of them. */
  private async finishPages(step: FollowerPageStep, pages: readonly WrittenPage[], save: SaveCheckpoint): Promise<PageOutcome> {
    const followerIds = pages.flatMap((page) => page.followerIds);
    if (step.finish && !(await step.finish(followerIds, pages.at(-1)?.cursor ?? null))) {
      await step.takeBack?.(followerIds);
      return 'taken back';
    }
    const cursor = pages.at(-1)?.cursor;
    if (cursor && !(await save(cursor))) return 'lost';
    return 'go on';
  }

  /** A walk that must end: a lost lease leaves the rest to the new owner; a page taken back takes the pages written after it along. */
  private async ended(outcome: Exclude<PageOutcome, 'go on'>, step: FollowerPageStep, writtenSince: readonly WrittenPage[]): Promise<RunOutcome> {
    if (outcome === 'lost') return 'lost';
    await step.takeBack?.(writtenSince.flatMap((page) => page.followerIds));
    return 'done';
  }

  /**
   * The bound on home timelines, a step after every write to them: each keeps about
   * TIMELINE_MAX_ENTRIES entries without a write per entry. The size estimates of the users
   * who received entries are updated (sampledSizeAdditions), and a timeline whose estimate
   * passed the bound is trimmed to nine tenths of it, its estimate reset to what is left — so
   * a full timeline is read once per tenth of the bound of new entries, not on every write.
   */
  private async keepHomeTimelinesBounded(receivers: readonly string[]): Promise<void> {
    const max = this.settings.timelineMaxEntries;
    const additions = sampledSizeAdditions(receivers, this.settings.timelineSizeSampleEvery);
    if (additions.length === 0) return;
    const estimates = await this.timelines.addToHomeSizes(additions);
    const full = additions.filter((_, i) => estimates[i]! > max);
    await mapConcurrently(full, TRIM_CONCURRENCY, ({ userId }) => this.timelines.trimHome(userId, max - Math.floor(max / 10)));
  }

  private async deletePost(
    task: ClaimedTask,
    payload: Extract<TaskPayload, { kind: 'deletePost' }>,
    save: SaveCheckpoint,
    stopping: () => boolean,
  ): Promise<RunOutcome> {
    if (task.checkpoint !== TRACES_PHASE) {
      const outcome = await this.walkFollowers(payload.authorId, await this.followerPage(payload.authorId, task.checkpoint), save, stopping, {
        write: (followerIds) => this.timelines.removeHomeEntries(followerIds.map((userId) => ({ userId, postId: payload.postId }))),
      });
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
    if (!(await this.stillFollows(followerId, followeeId)) || this.settings.followBackfillPosts === 0) return 'done';
    const page = await this.timelines.authorPosts(followeeId, this.settings.followBackfillPosts, null);
    const entries = page.entries.map((entry) => ({ userId: followerId, postId: entry.postId, authorId: followeeId, counterShards: entry.counterShards }));
    await this.timelines.addHomeEntries(entries);
    await this.keepHomeTimelinesBounded(entries.map((e) => e.userId));
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
