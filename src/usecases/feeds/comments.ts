import type { CommentRecord, Page, PageItem } from '../../domain/models.js';
import { pageSize } from '../../domain/validation.js';
import type { CommentUseCases } from '../comments.js';
import type { Feed, FeedContext, Hydrated, ReadOn, ShownPage } from './pipeline.js';
import { hiddenUsers } from './visibility.js';

export interface CommentParams {
  postId: string;
  first?: number | null;
  after?: string | null;
}

type CommentEntry = PageItem<CommentRecord>;

/** Post.comments: a post's comments, oldest first. */
export class CommentFeed implements Feed<CommentParams, CommentEntry, Hydrated<CommentRecord>, Page<CommentRecord>> {
  constructor(private readonly comments: Pick<CommentUseCases, 'list'>) {}

  /** A page of the post's comments, read with their records; the cursor is the last comment's id. */
  skeleton({ postId, first, after }: CommentParams): Promise<Page<CommentRecord>> {
    return this.comments.list(postId, first, after);
  }

  readOn({ postId, first }: CommentParams): ReadOn<CommentEntry> {
    return { size: pageSize(first), after: (cursor) => this.comments.list(postId, first, cursor) };
  }

  /** The records came with the skeleton; their authors are loaded by the fields that show them. */
  hydration(page: Page<CommentRecord>): Promise<Hydrated<CommentRecord>[]> {
    return Promise.resolve(page.items);
  }

  /** No comment of an account in a block with the viewer. */
  async rules(entries: Hydrated<CommentRecord>[], _params: CommentParams, ctx: FeedContext): Promise<Hydrated<CommentRecord>[]> {
    const authorIds = entries.flatMap((entry) => (entry.node ? [entry.node.authorId] : []));
    const hidden = await hiddenUsers(ctx.viewerId, authorIds, false, ctx.hydrator);
    return entries.map((entry) => ({ cursor: entry.cursor, node: entry.node && !hidden.has(entry.node.authorId) ? entry.node : null }));
  }

  presentation({ items, hasNextPage, endCursor }: ShownPage<CommentEntry, Hydrated<CommentRecord>>): Page<CommentRecord> {
    return { items, hasNextPage, endCursor };
  }
}
