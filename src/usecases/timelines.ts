import { decodeCursor } from '../domain/cursor.js';
import { badInput, forbidden, unauthenticated } from '../domain/errors.js';
import { pageSize } from '../domain/validation.js';
import type { GraphStore } from '../stores/graph/graph-store.js';
import { UNMETERED } from '../stores/graph/traversal.js';
import { type TimelineEntry, type TimelineStore, isFeedPosition } from '../stores/timeline-store.js';
import { type TimelineSkeleton, isPostId, toSkeleton } from './feeds/post-steps.js';
import { mergeNewestFirst, mergeOldestFirst } from './feeds/timeline-merge.js';
import type { OutboxAuthors } from './outbox-authors.js';

export interface HomePageArguments {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/**
 * Outboxes read together with the check of which of their authors the reader follows, before
 * it answers, so that the home page stays one wave. Outbox authors are the few with more than
 * FANOUT_MAX_FOLLOWERS followers; past this many, reading every outbox costs more than the
 * wave it saves, and the check comes first.
 */
export const OUTBOXES_READ_BEFORE_CHECK = 8;

/**
 * The skeleton step of every post timeline: one read of the timeline's partition(s), newest
 * first, paged by keyset: the cursor is the last feed position of the page (a post id, or a
 * repost's position in home timelines and author pages) and the next page holds strictly older
 * ones. Positions are time-ordered, so entries written during a walk sort before its position
 * and never shift it.
 */
export class TimelineUseCases {
  constructor(
    private readonly timelines: TimelineStore,
    private readonly graph: GraphStore,
    private readonly outboxAuthors: OutboxAuthors,
  ) {}

  /** The user's home timeline: fanned-out entries merged with the outboxes of followed authors who are not fanned out. */
  async home(viewerId: string | null, userId: string, first: number | null | undefined, after: string | null | undefined): Promise<TimelineSkeleton> {
    const size = pageSize(first);
    const position = decodeCursor(after, 'after', isFeedPosition);
    return this.homePage(
      viewerId,
      userId,
      (authorIds) => this.timelines.homeLists(userId, authorIds, size, position),
      (lists) => toSkeleton(mergeNewestFirst(lists, size)),
    );
  }

  /** User.timeline: forwards (`first`/`after`) or backwards (`last`/`before`), not both. */
  homeTimeline(viewerId: string | null, userId: string, args: HomePageArguments): Promise<TimelineSkeleton> {
    const backwards = args.last != null || args.before != null;
    if (!backwards) return this.home(viewerId, userId, args.first, args.after);
    if (args.first != null || args.after != null) throw badInput(args.first != null ? 'first' : 'after', 'cannot be given with last or before');
    return this.homeNewer(viewerId, userId, args.last, args.before);
  }

  /**
   * Pull-to-refresh (Relay's `last`/`before`): the `last` entries of the home timeline just newer
   * than `before`, still newest first; `hasPreviousPage` says whether newer ones remain (ask
   * again with the page's start cursor as `before`).
   */
  async homeNewer(viewerId: string | null, userId: string, last: number | null | undefined, before: string | null | undefined): Promise<TimelineSkeleton> {
    const size = pageSize(last, 'last');
    const position = decodeCursor(before, 'before', isFeedPosition);
    if (position === null) throw badInput('before', 'is required with last: the cursor of the newest post the client has');
    return this.homePage(
      viewerId,
      userId,
      (authorIds) => this.timelines.homeListsNewer(userId, authorIds, size, position),
      (lists) => {
        const page = mergeOldestFirst(lists, size);
        return { ...toSkeleton({ entries: page.entries, hasNextPage: false }), hasPreviousPage: page.hasMore };
      },
    );
  }

  /** A page of the home partition merged with the outboxes the reader follows, read with the follow check in one wave (see OUTBOXES_READ_BEFORE_CHECK). */
  private async homePage(
    viewerId: string | null,
    userId: string,
    read: (outboxAuthorIds: readonly string[]) => Promise<TimelineEntry[][]>,
    merge: (lists: TimelineEntry[][]) => TimelineSkeleton,
  ): Promise<TimelineSkeleton> {
    if (!viewerId) throw unauthenticated();
    if (viewerId !== userId) throw forbidden('Only the user may read their home timeline');
    const candidates = (await this.outboxAuthors.list()).filter((authorId) => authorId !== userId);
    if (candidates.length > OUTBOXES_READ_BEFORE_CHECK) {
      const followed = await this.followedAmong(userId, candidates);
      return merge(await read([...followed]));
    }
    const [[home, ...outboxes], followed] = await Promise.all([read(candidates), this.followedAmong(userId, candidates)]);
    return merge([home!, ...outboxes.filter((_, i) => followed.has(candidates[i]!))]);
  }

  /** The outbox authors the user follows: their posts reach the user's home timeline at read time (and live updates from their channels). */
  async followedOutboxAuthors(userId: string): Promise<string[]> {
    const candidates = (await this.outboxAuthors.list()).filter((authorId) => authorId !== userId);
    return [...(await this.followedAmong(userId, candidates))];
  }

  private async followedAmong(userId: string, authorIds: readonly string[]): Promise<Set<string>> {
    if (authorIds.length === 0) return new Set();
    // One item, the reader's graph node, while its following set is complete (see GraphStore.followsAmong).
    const follows = await this.graph.followsAmong(userId, authorIds, UNMETERED);
    return new Set(authorIds.filter((_, i) => follows[i]));
  }

  /** The author's page: the author's posts, and with `includeReposts` the author's reposts (entries with the author as their reason). */
  async authorPosts(authorId: string, first: number | null | undefined, after: string | null | undefined, includeReposts = false): Promise<TimelineSkeleton> {
    const size = pageSize(first);
    const position = decodeCursor(after, 'after', isFeedPosition);
    return toSkeleton(mergeNewestFirst(await this.timelines.authorLists(authorId, includeReposts, size, position), size));
  }

  async public(first: number | null | undefined, after: string | null | undefined): Promise<TimelineSkeleton> {
    const size = pageSize(first);
    return toSkeleton(mergeNewestFirst(await this.timelines.publicLists(size, decodeCursor(after, 'after', isPostId)), size));
  }
}
