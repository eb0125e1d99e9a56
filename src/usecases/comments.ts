import { notFound, unauthenticated } from '../domain/errors.js';
import { idKind, newId } from '../domain/ids.js';
import { decodeCursor, encodeCursor } from '../domain/cursor.js';
import type { CommentRecord, Page, PostRecord } from '../domain/models.js';
import { cleanText, idempotencyClaim, idempotencyKey, pageSize, refuseReusedKey } from '../domain/validation.js';
import type { PostStore } from '../stores/post-store.js';
import type { MentionResolver } from './mentions.js';
import type { NotificationEvents } from './notifications.js';
import type { PostUseCases } from './posts.js';
import type { BlockCheck } from './relationships.js';

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
    private readonly blocks: BlockCheck,
    private readonly mentions: MentionResolver,
    private readonly notifications: Pick<NotificationEvents, 'post' | 'written'>,
  ) {}

  /** FORBIDDEN (nothing written) on a post whose author, or for a text mentioning an account, that is in a block with the viewer. */
  async add(viewerId: string | null, postId: string, text: string, key?: string | null): Promise<CommentAdded> {
    if (!viewerId) throw unauthenticated();
    const checkedText = cleanText(text, 'text', COMMENT_MAX_LENGTH);
    const claim = idempotencyClaim(idempotencyKey(key, 'idempotencyKey'), [postId, checkedText]);
    const [post, mentionIds] = await Promise.all([this.postUseCases.require(postId, 'postId'), this.mentions.resolve(checkedText)]);
    await this.blocks.assertNotBlocked(viewerId, [post.authorId, ...mentionIds]);
    const comment: CommentRecord = { id: newId('cmt'), postId, authorId: viewerId, text: checkedText, createdAt: new Date().toISOString(), mentionIds };
    const notify = [...this.notifications.post('COMMENT', viewerId, post.id, [post.authorId]), ...this.notifications.post('MENTION', viewerId, post.id, mentionIds)];
    const claimed = await this.posts.addComment(post, comment, claim, notify);
    if (claimed === null) throw notFound('Post', postId);
    const { createdId, fingerprint } = claimed;
    if (createdId === comment.id) {
      this.notifications.written(notify);
      return { comment, post };
    }
    // A retry: the key already added a comment, and that comment is the answer (if it is the same comment).
    refuseReusedKey(claim, fingerprint, 'idempotencyKey', 'another comment');
    const [earlier] = await this.posts.getComments([createdId], { consistent: true });
    if (!earlier) throw notFound('Comment', createdId);
    return { comment: earlier, post: await this.postUseCases.require(earlier.postId, 'postId') };
  }

  /** Oldest first, in keyset pages: the cursor is the last comment's id. */
  async list(postId: string, first: number | null | undefined, after: string | null | undefined): Promise<Page<CommentRecord>> {
    const size = pageSize(first);
    const afterId = decodeCursor(after, 'after', isCommentId);
    const page = await this.posts.comments(postId, size, afterId);
    const items = page.items.map((node) => ({ cursor: encodeCursor(node.id), node }));
    return { items, hasNextPage: page.hasNextPage, endCursor: items.at(-1)?.cursor ?? null };
  }
}
