import { decodeCursor, encodeCursor } from '../domain/cursor.js';
import { forbidden, unauthenticated } from '../domain/errors.js';
import { idKind } from '../domain/ids.js';
import { normalizeWord, pageSize } from '../domain/validation.js';
import type { GraphStore } from '../stores/graph/graph-store.js';
import { UNMETERED } from '../stores/graph/traversal.js';
import { type EntryPage, type TimelineEntry, type TimelineStore, mergeNewestFirst } from '../stores/timeline-store.js';
import type { OutboxAuthors } from './outbox-authors.js';

/** One entry of a page's skeleton: its cursor, its post, and what hydrating the post needs (null: look it up). */
export interface SkeletonItem extends TimelineEntry {
  cursor: string;
}

/** The skeleton step's answer: a page of entries, read in one wave; the feed pipeline hydrates it (see feed-pipeline.ts). */
export interface TimelineSkeleton {
  items: SkeletonItem[];
  hasNextPage: boolean;
}

const isPostId = (value: unknown): value is string => typeof value === 'string' && idKind(value) === 'pst';

/**
 * Outboxes read together with the check of which of their authors the reader follows, before
 * it answers, so that the home page stays one wave. Outbox authors are the few with more than
 * FANOUT_MAX_FOLLOWERS followers; past this many, reading every outbox costs more than the
 * wave it saves, and the check comes first.
 */
export const OUTBOXES_READ_BEFORE_CHECK = 8;

/**
 * The skeleton step of every post timeline: one read of the timeline's partition(s), newest
 * first, paged by keyset: the cursor is the last post id of the page and the next page holds
 * strictly older ids. Post ids are time-ordered, so posts written during a walk sort before
 * its position and never shift it.
 */
export class TimelineUseCases {
  constructor(
    private readonly timelines: TimelineStore,
    private readonly graph: GraphStore,
    private readonly outboxAuthors: OutboxAuthors,
  ) {}

  /** The user's home timeline: fanned-out entries merged with the outboxes of followed authors who are not fanned out. */
  async home(viewerId: string | null, userId: string, first: number | null | undefined, after: string | null | undefined): Promise<TimelineSkeleton> {
    if (!viewerId) throw unauthenticated();
    if (viewerId !== userId) throw forbidden('Only the user may read their home timeline');
    const size = pageSize(first);
    const position = decodeCursor(after, 'after', isPostId);
    const candidates = (await this.outboxAuthors.list()).filter((authorId) => authorId !== userId);
    if (candidates.length > OUTBOXES_READ_BEFORE_CHECK) {
      const followed = await this.followedAmong(userId, candidates);
      return toSkeleton(mergeNewestFirst(await this.timelines.homeLists(userId, [...followed], size, position), size));
    }
    const [[home, ...outboxes], followed] = await Promise.all([this.timelines.homeLists(userId, candidates, size, position), this.followedAmong(userId, candidates)]);
    return toSkeleton(mergeNewestFirst([home!, ...outboxes.filter((_, i) => followed.has(candidates[i]!))], size));
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
    const position = decodeCursor(after, 'after', isPostId);
    return toSkeleton(await (includeReposts ? this.timelines.authorPostsAndReposts(authorId, size, position) : this.timelines.authorPosts(authorId, size, position)));
  }

  async tag(tag: string, first: number | null | undefined, after: string | null | undefined): Promise<TimelineSkeleton> {
    const normalized = normalizeWord(tag, 'tag');
    const size = pageSize(first);
    return toSkeleton(await this.timelines.tag(normalized, size, decodeCursor(after, 'after', isPostId)));
  }

  async public(first: number | null | undefined, after: string | null | undefined): Promise<TimelineSkeleton> {
    const size = pageSize(first);
    return toSkeleton(await this.timelines.public(size, decodeCursor(after, 'after', isPostId)));
  }
}

function toSkeleton(page: EntryPage): TimelineSkeleton {
  return { items: page.entries.map((entry) => ({ ...entry, cursor: encodeCursor(entry.postId) })), hasNextPage: page.hasNextPage };
}
