import type { CommentRecord, Page, PageItem } from '../../domain/models.js';
import { pageSize } from '../../domain/validation.js';
import type { CommentPageArgs, CommentUseCases } from '../comments.js';
import type { Feed, FeedContext, Hydrated, ReadOn, ShownPage } from './pipeline.js';

export interface CommentParams {
  postId: string;
  /** Null: the post's top-level comments; else this comment's replies. */
  parent: CommentRecord | null;
  args: CommentPageArgs;
}

type CommentEntry = PageItem<CommentRecord>;

const isBackward = (args: CommentPageArgs) => args.last !== null && args.last !== undefined;
const isFirstPage = (args: CommentPageArgs) =>
  !isBackward(args) && (args.after ?? null) === null && (args.before ?? null) === null;

/**
 * Post.comments and Comment.replies: a post's top-level comments or a comment's replies, oldest first, both ways
 * (`first`/`after`, `last`/`before`). The first page of replies of a whole page of comments is one read per depth
 * (Hydrator.firstReplies batches them), so a thread a few levels deep costs a wave per level whatever the page size.
 */
export class CommentFeed implements Feed<CommentParams, CommentEntry, Hydrated<CommentRecord>, Page<CommentRecord>> {
  constructor(private readonly comments: Pick<CommentUseCases, 'page'>) {}

  /** A page of comments, read with their records; a cursor is a comment's id. */
  skeleton({ postId, parent, args }: CommentParams, ctx: FeedContext): Promise<Page<CommentRecord>> {
    // The rules' one read (once per request), beside the first level's skeleton: no wave of its own at any level.
    ctx.blocked().catch(() => {});
    if (parent && isFirstPage(args)) return ctx.hydrator.firstReplies(parent, pageSize(args.first));
    return this.comments.page(postId, parent, args);
  }

  /** Forwards, a page the rules leave short reads on; backwards it is the one read. */
  readOn({ postId, parent, args }: CommentParams): ReadOn<CommentEntry> | null {
    if (isBackward(args)) return null;
    return {
      size: pageSize(args.first),
      after: (cursor) => this.comments.page(postId, parent, { first: args.first, after: cursor }),
    };
  }

  /** The records came with the skeleton; the authors of tombstones, which the rules need (the others load with their fields). */
  async hydration(
    page: Page<CommentRecord>,
    _params: CommentParams,
    ctx: FeedContext,
  ): Promise<Hydrated<CommentRecord>[]> {
    const authorIds = tombstoneAuthors(page.items);
    if (authorIds.length > 0) await ctx.hydrator.users(authorIds);
    return page.items;
  }

  /**
   * No comment of an account in a block with the viewer, nor a tombstone whose author is gone (a deleted account's):
   * nor, so, their replies.
   */
  async rules(
    entries: Hydrated<CommentRecord>[],
    _params: CommentParams,
    ctx: FeedContext,
  ): Promise<Hydrated<CommentRecord>[]> {
    const authorIds = tombstoneAuthors(entries);
    const [hidden, authors] = await Promise.all([
      ctx.blocked(),
      authorIds.length > 0 ? ctx.hydrator.users(authorIds) : [],
    ]);
    const gone = new Set(authorIds.filter((_, i) => !authors[i]));
    const shown = (comment: CommentRecord) =>
      comment.authorId !== null && !gone.has(comment.authorId) && !hidden.has(comment.authorId);
    return entries.map((entry) => ({
      cursor: entry.cursor,
      node: entry.node && shown(entry.node) ? entry.node : null,
    }));
  }

  presentation({
    items,
    hasNextPage,
    endCursor,
    read,
  }: ShownPage<CommentEntry, Hydrated<CommentRecord>>): Page<CommentRecord> {
    // Where the read started and ended, even past entries the rules left out, so that paging either way resumes there.
    return {
      items,
      hasNextPage,
      endCursor,
      hasPreviousPage: read.hasPreviousPage ?? false,
      startCursor: read.items[0]?.cursor ?? null,
    };
  }
}

function tombstoneAuthors(entries: readonly Hydrated<CommentRecord>[]): string[] {
  return [...new Set(entries.flatMap(({ node }) => (node?.deleted && node.authorId ? [node.authorId] : [])))];
}
