import { decodeCursor, encodeCursor } from '../domain/cursor.js';
import { forbidden, unauthenticated } from '../domain/errors.js';
import { idKind } from '../domain/ids.js';
import { normalizeWord, pageSize } from '../domain/validation.js';
import type { GraphStore } from '../stores/graph/graph-store.js';
import { UNMETERED } from '../stores/graph/traversal.js';
import type { PostIdPage, TimelineStore } from '../stores/timeline-store.js';
import type { OutboxAuthors } from './outbox-authors.js';

/** A page of post ids; the resolvers load the posts in one batch. */
export interface TimelinePage {
  items: { cursor: string; postId: string }[];
  hasNextPage: boolean;
}

const isPostId = (value: unknown): value is string => typeof value === 'string' && idKind(value) === 'pst';

/**
 * Every timeline is newest first, paged by keyset: the cursor is the last post id of the
 * page and the next page holds strictly older ids. Post ids are time-ordered, so posts
 * written during a walk sort before its position and never shift it.
 */
export class TimelineUseCases {
  constructor(
    private readonly timelines: TimelineStore,
    private readonly graph: GraphStore,
    private readonly outboxAuthors: OutboxAuthors,
  ) {}

  /** The user's home timeline: fanned-out entries merged with the outboxes of followed authors who are not fanned out. */
  async home(viewerId: string | null, userId: string, first: number | null | undefined, after: string | null | undefined): Promise<TimelinePage> {
    if (!viewerId) throw unauthenticated();
    if (viewerId !== userId) throw forbidden('Only the user may read their home timeline');
    const size = pageSize(first);
    const position = decodeCursor(after, 'after', isPostId);
    const outboxAuthors = (await this.outboxAuthors.list()).filter((authorId) => authorId !== userId);
    const followed = outboxAuthors.length ? await this.graph.follows(outboxAuthors.map((to) => ({ from: userId, to })), UNMETERED) : [];
    const merged = outboxAuthors.filter((_, i) => followed[i]);
    return toPage(await this.timelines.home(userId, merged, size, position));
  }

  async authorPosts(authorId: string, first: number | null | undefined, after: string | null | undefined): Promise<TimelinePage> {
    const size = pageSize(first);
    return toPage(await this.timelines.authorPosts(authorId, size, decodeCursor(after, 'after', isPostId)));
  }

  async tag(tag: string, first: number | null | undefined, after: string | null | undefined): Promise<TimelinePage> {
    const normalized = normalizeWord(tag, 'tag');
    const size = pageSize(first);
    return toPage(await this.timelines.tag(normalized, size, decodeCursor(after, 'after', isPostId)));
  }

  async public(first: number | null | undefined, after: string | null | undefined): Promise<TimelinePage> {
    const size = pageSize(first);
    return toPage(await this.timelines.public(size, decodeCursor(after, 'after', isPostId)));
  }
}

function toPage(page: PostIdPage): TimelinePage {
  return { items: page.postIds.map((postId) => ({ cursor: encodeCursor(postId), postId })), hasNextPage: page.hasNextPage };
}
