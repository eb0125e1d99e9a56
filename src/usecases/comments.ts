import { badInput, forbidden, notFound, unauthenticated } from '../domain/errors.js';
import { idKind, newId } from '../domain/ids.js';
import { decodeCursor, encodeCursor } from '../domain/cursor.js';
import type { CommentRecord, Page, PostRecord } from '../domain/models.js';
import { cleanText, idempotencyClaim, idempotencyKey, pageSize, refuseReusedKey } from '../domain/validation.js';
import type { CommentDeletion, CommentPage, CommentSlice, PostStore } from '../stores/post-store.js';
import type { Task } from '../domain/tasks.js';
import type { MentionResolver } from './mentions.js';
import type { NotificationEvents } from './notifications.js';
import type { PostUseCases } from './posts.js';
import { isBackwardOnly } from './paging.js';
import type { BlockCheck } from './relationships.js';

export const COMMENT_MAX_LENGTH = 500;

const isCommentId = (value: unknown): value is string => typeof value === 'string' && idKind(value) === 'cmt';

export interface CommentAdded {
  comment: CommentRecord;
  post: PostRecord;
}

export interface CommentDeleted {
  deletedCommentId: string;
  post: PostRecord;
}

/** Which comments of a list: `first`/`after` or `last`/`before`, as the API takes them. */
export interface CommentPageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** Attempts at a deletion whose records changed while it was planned (a reply written meanwhile). */
const DELETE_ATTEMPTS = 5;

export class CommentUseCases {
  constructor(
    private readonly posts: PostStore,
    private readonly postUseCases: PostUseCases,
    private readonly blocks: BlockCheck,
    private readonly mentions: MentionResolver,
    private readonly notifications: Pick<NotificationEvents, 'post' | 'written'>,
    /** COMMENT_MAX_DEPTH: a reply to a comment this deep joins its parent's replies. */
    private readonly maxDepth: number,
  ) {}

  /**
   * A comment on the post, or with `replyTo` a reply to one of its comments. FORBIDDEN (nothing written) when the post's
   * author, the author replied to, or an account the text mentions is in a block with the viewer.
   */
  async add(
    viewerId: string | null,
    postId: string,
    text: string,
    key?: string | null,
    replyTo?: string | null,
  ): Promise<CommentAdded> {
    if (!viewerId) throw unauthenticated();
    const checkedText = cleanText(text, 'text', COMMENT_MAX_LENGTH);
    if (replyTo !== null && replyTo !== undefined && !isCommentId(replyTo))
      throw badInput('replyTo', 'is not a comment id');
    const claim = idempotencyClaim(idempotencyKey(key, 'idempotencyKey'), [
      postId,
      checkedText,
      ...(replyTo ? [replyTo] : []),
    ]);
    const [post, mentionIds, target] = await Promise.all([
      this.postUseCases.require(postId, 'postId'),
      this.mentions.resolve(checkedText),
      replyTo ? this.requireComment(replyTo) : null,
    ]);
    if (target && target.postId !== postId) throw badInput('replyTo', 'is a comment on another post');
    const parent = target && (await this.parentFor(target));
    await this.blocks.assertNotBlocked(viewerId, [
      post.authorId,
      ...(target?.authorId ? [target.authorId] : []),
      ...mentionIds,
    ]);
    const comment: CommentRecord = {
      id: newId('cmt'),
      postId,
      authorId: viewerId,
      text: checkedText,
      createdAt: new Date().toISOString(),
      mentionIds,
      ancestorIds: parent ? [...parent.ancestorIds, parent.id] : [],
      replyCount: 0,
      deleted: false,
      replyToAuthorId: target?.authorId ?? null,
    };
    const notify = this.notifyTasks(post, comment);
    const claimed = await this.posts.addComment(post, comment, claim, notify, parent);
    if (claimed === 'postGone') throw notFound('Post', postId);
    if (claimed === 'parentGone') throw notFound('Comment', replyTo!);
    const { createdId, fingerprint } = claimed;
    if (createdId === comment.id) {
      this.notifications.written(notify);
      return { comment, post };
    }
    // A retry: the key already added a comment, and that comment is the answer (if it is the same comment).
    refuseReusedKey(claim, fingerprint, 'idempotencyKey', 'another comment');
    const [earlier] = await this.posts.getComments([createdId], { consistent: true });
    if (!earlier) throw notFound('Comment', createdId);
    // The key's fingerprint holds the post id: the post this request read, after that comment was added.
    return { comment: earlier, post };
  }

  /**
   * The tasks that bring the groups a comment notifies in line with it, on adding it and (`undo`) deleting it: a reply
   * tells the author replied to (REPLY), and the post's author as any comment does unless that is the same person.
   */
  private notifyTasks(post: PostRecord, comment: CommentRecord, undo = false): Task[] {
    const actorId = comment.authorId;
    if (!actorId) return [];
    const repliedTo = comment.replyToAuthorId ? [comment.replyToAuthorId] : [];
    const about = (kind: 'COMMENT' | 'REPLY' | 'MENTION', recipients: readonly string[]) =>
      this.notifications.post(kind, actorId, post.id, recipients, undo);
    return [
      ...about('COMMENT', repliedTo.includes(post.authorId) ? [] : [post.authorId]),
      ...about('REPLY', repliedTo),
      ...about('MENTION', comment.mentionIds),
    ];
  }

  /** The comment a reply to `target` goes under: the target, or past COMMENT_MAX_DEPTH its ancestor at the deepest depth a parent may have. */
  private async parentFor(target: CommentRecord): Promise<CommentRecord> {
    if (target.ancestorIds.length < this.maxDepth) return target;
    const ancestorId = target.ancestorIds[this.maxDepth - 1]!;
    const [ancestor] = await this.posts.getComments([ancestorId], { consistent: true });
    if (!ancestor || ancestor.deleted) throw notFound('Comment', ancestorId);
    return ancestor;
  }

  /** A comment that is there and no tombstone, read strongly consistent. */
  private async requireComment(commentId: string): Promise<CommentRecord> {
    const [comment] = await this.posts.getComments([commentId], { consistent: true });
    if (!comment || comment.deleted) throw notFound('Comment', commentId);
    return comment;
  }

  /**
   * Deletes a comment: its author may, and so may the author of the post it is on. One with replies becomes a tombstone
   * (its author kept, no text) that keeps the thread's shape; one without goes, and so do the tombstones it leaves without
   * replies. The post's commentCount goes down with it, in the same transaction, with the tasks that take its author out
   * of the notification groups no other comment of theirs on the post keeps them in.
   */
  async delete(viewerId: string | null, commentId: string): Promise<CommentDeleted> {
    if (!viewerId) throw unauthenticated();
    if (!isCommentId(commentId)) throw badInput('commentId', 'is not a comment id');
    for (let attempt = 1; ; attempt++) {
      const comment = await this.requireComment(commentId);
      // The ancestors a deletion may empty, beside the post.
      const [post, ancestors] = await Promise.all([
        this.postUseCases.require(comment.postId, 'commentId'),
        comment.replyCount === 0 && comment.ancestorIds.length > 0
          ? this.posts.getComments(comment.ancestorIds, { consistent: true })
          : [],
      ]);
      if (viewerId !== comment.authorId && viewerId !== post.authorId)
        throw forbidden("Only the comment's author or the post's author may delete it");
      const notify = this.notifyTasks(post, comment, true);
      if (await this.posts.deleteComment({ ...plan(post, comment, ancestors), tasks: notify })) {
        this.notifications.written(notify);
        return { deletedCommentId: commentId, post };
      }
      if (attempt === DELETE_ATTEMPTS)
        throw new Error(`comment ${commentId} changed during each of ${DELETE_ATTEMPTS} attempts to delete it`);
    }
  }

  /** A page of the post's top-level comments (`parent` null) or of a comment's replies, oldest first. */
  async page(postId: string, parent: CommentRecord | null, args: CommentPageArgs): Promise<Page<CommentRecord>> {
    return toPage(await this.posts.commentSlice(postId, parent, commentSliceOf(args)));
  }

  /** The first page of each parent's replies, read together. */
  async firstReplies(parents: readonly CommentRecord[], first: number): Promise<Page<CommentRecord>[]> {
    return (await this.posts.firstReplies(parents, first)).map(toPage);
  }
}

/** What deleting the comment changes, from its records and its ancestors' (top-level first) as they are now. */
function plan(
  post: PostRecord,
  comment: CommentRecord,
  ancestors: readonly (CommentRecord | null)[],
): Omit<CommentDeletion, 'tasks'> {
  if (comment.replyCount > 0) return { post, comment, emptied: null, keptAncestor: null };
  const emptied: CommentRecord[] = [];
  for (const ancestor of [...ancestors].reverse()) {
    // A tombstone whose last reply this was goes too.
    if (ancestor?.deleted && ancestor.replyCount === 1) {
      emptied.push(ancestor);
      continue;
    }
    return { post, comment, emptied, keptAncestor: ancestor };
  }
  return { post, comment, emptied, keptAncestor: null };
}

/** The slice `first`/`after` or `last`/`before` ask for (`last` alone: the newest); BAD_USER_INPUT for a mix of the two or a cursor not of this list. */
export function commentSliceOf(args: CommentPageArgs): CommentSlice {
  if (isBackwardOnly(args))
    return { last: pageSize(args.last, 'last'), before: decodeCursor(args.before, 'before', isCommentId) };
  return { first: pageSize(args.first), after: decodeCursor(args.after, 'after', isCommentId) };
}

/** A store's page of comments as the API pages it: each comment's cursor is its id. */
export function toPage(page: CommentPage): Page<CommentRecord> {
  const items = page.items.map((node) => ({ cursor: encodeCursor(node.id), node }));
  return {
    items,
    hasNextPage: page.hasNextPage,
    hasPreviousPage: page.hasPreviousPage,
    startCursor: items[0]?.cursor ?? null,
    endCursor: items.at(-1)?.cursor ?? null,
  };
}
