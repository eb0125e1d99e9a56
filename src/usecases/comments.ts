import { notFound, unauthenticated } from '../domain/errors.js';
import { idKind, newId } from '../domain/ids.js';
import { decodeCursor, encodeCursor } from '../domain/cursor.js';
import type { CommentRecord, Page, PostRecord } from '../domain/models.js';
import { checkRequiredText, pageSize } from '../domain/validation.js';
import type { PostStore } from '../stores/post-store.js';
import type { PostUseCases } from './posts.js';

export const COMMENT_MAX_LENGTH = 500;

const isCommentId = (value: unknown): value is string => typeof value === 'string' && idKind(value) === 'cmt';

export interface CommentAdded {
  comment: CommentRecord;
  post: PostRecord;
}

export class CommentUseCases {
  constructor(
    private readonly posts: PostStore,
    private readonly postUseCases: PostUseCases,
  ) {}

  async add(viewerId: string | null, postId: string, text: string): Promise<CommentAdded> {
    if (!viewerId) throw unauthenticated();
    const checkedText = checkRequiredText(text, 'text', COMMENT_MAX_LENGTH);
    const post = await this.postUseCases.require(postId, 'postId');
    const comment: CommentRecord = { id: newId('cmt'), postId, authorId: viewerId, text: checkedText, createdAt: new Date().toISOString() };
    if (!(await this.posts.addComment(post, comment))) throw notFound('Post', postId);
    return { comment, post };
  }

  /** Oldest first, in keyset pages: the cursor is the last comment's id. */
  async list(postId: string, first: number | null | undefined, after: string | null | undefined): Promise<Page<CommentRecord>> {
    const size = pageSize(first);
    const afterId = decodeCursor(after, 'after', isCommentId);
    const page = await this.posts.comments(postId, size, afterId);
    return { items: page.items.map((node) => ({ cursor: encodeCursor(node.id), node })), hasNextPage: page.hasNextPage };
  }
}
