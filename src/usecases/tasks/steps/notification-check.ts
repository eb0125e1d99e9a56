import type { CommentRecord, NotificationCause, NotificationKind } from '../../../domain/models.js';
import type { ActivityStore } from '../../../stores/activity-store.js';
import type { CounterStore } from '../../../stores/counter-store.js';
import type { GraphStore } from '../../../stores/graph/graph-store.js';
import { UNMETERED } from '../../../stores/graph/traversal.js';
import type { NotificationStore } from '../../../stores/notification-store.js';
import type { PostStore } from '../../../stores/post-store.js';
import type { RepostStore } from '../../../stores/repost-store.js';
import type { UserStore } from '../../../stores/user-store.js';
import type { RelationshipUseCases } from '../../relationships.js';
import { currentPost, stillFollows } from './current-state.js';

export interface NotificationCheckStores {
  notifications: Pick<NotificationStore, 'removeActor'>;
  graph: GraphStore;
  counters: Pick<CounterStore, 'hasLiked'>;
  reposts: Pick<RepostStore, 'hasReposted'>;
  posts: Pick<PostStore, 'getMany' | 'getComments'>;
  users: Pick<UserStore, 'getMany'>;
  activities: Pick<ActivityStore, 'commentsOn'>;
}

/** An actor's comments on one post that a check reads; an actor with more stays in the groups they made. */
const COMMENTS_CHECKED = 100;

/** Whether the comment notified the recipient so: the author replied to (REPLY), the post's author unless replied to (COMMENT), or a mention. */
function notifies(
  kind: Exclude<NotificationKind, 'FOLLOW' | 'LIKE' | 'REPOST'>,
  comment: CommentRecord,
  recipientId: string,
) {
  if (kind === 'MENTION') return comment.mentionIds.includes(recipientId);
  return (comment.replyToAuthorId === recipientId) === (kind === 'REPLY');
}

/**
 * Whether an actor belongs in the recipient's group: what they did is still there, both accounts exist and are open,
 * and no block or mute stands between them (see docs/design/notifications.md).
 */
export class NotificationCheck {
  constructor(
    private readonly stores: NotificationCheckStores,
    private readonly blocks: Pick<RelationshipUseCases, 'blockedAmong'>,
  ) {}

  /** Takes the actor out of its group unless what it did still stands (a block or a mute came between them). */
  async takeOutUnlessStands(cause: NotificationCause): Promise<void> {
    if (!(await this.stands(cause))) await this.stores.notifications.removeActor(cause);
  }

  async stands(cause: NotificationCause): Promise<boolean> {
    const { recipientId, actorId } = cause;
    const [done, accounts, blocked, [muted]] = await Promise.all([
      this.done(cause),
      // A task that runs after an account's deletion swept its notifications (a mention, whose post outlives the
      // account it names; a comment, whose post is another's) must not put the account back: closed is gone.
      this.stores.users.getMany([recipientId, actorId], { consistent: true }),
      this.blocks.blockedAmong(actorId, [recipientId]),
      this.stores.graph.relations([{ kind: 'mutes', from: recipientId, to: actorId }], UNMETERED),
    ]);
    return (
      done &&
      accounts.every((account) => account !== null && account.closedAt === undefined) &&
      blocked.size === 0 &&
      muted !== true
    );
  }

  /** Whether what the actor did is still there. */
  private async done({ kind, recipientId, actorId, postId }: NotificationCause): Promise<boolean> {
    if (kind === 'FOLLOW') return stillFollows(this.stores.graph, actorId, recipientId);
    if (postId === null) return false;
    const pair = [{ postId, userId: actorId }];
    if (kind === 'LIKE') return (await this.stores.counters.hasLiked(pair, { consistent: true }))[0] === true;
    if (kind === 'REPOST') return (await this.stores.reposts.hasReposted(pair, { consistent: true }))[0] === true;
    // COMMENT, REPLY and MENTION: the post, and a comment of the actor's on it that notified the recipient so (or the post's own mention).
    const post = await currentPost(this.stores.posts, postId);
    if (post === null) return false;
    const mentionedByPost = kind === 'MENTION' && post.authorId === actorId && post.mentionIds.includes(recipientId);
    if (!mentionedByPost && !(await this.commented(kind, actorId, recipientId, postId))) return false;
    // A mention in a comment under a post of an account in a block with the recipient: left out like that post (as a page's rules do).
    if (post.authorId === actorId || post.authorId === recipientId) return true;
    return (await this.blocks.blockedAmong(recipientId, [post.authorId])).size === 0;
  }

  /** Whether the actor still has a comment on the post that notified the recipient with this kind. */
  private async commented(
    kind: Exclude<NotificationKind, 'FOLLOW' | 'LIKE' | 'REPOST'>,
    actorId: string,
    recipientId: string,
    postId: string,
  ): Promise<boolean> {
    const { commentIds, more } = await this.stores.activities.commentsOn(actorId, postId, COMMENTS_CHECKED);
    if (more) return true;
    if (commentIds.length === 0) return false;
    const comments = await this.stores.posts.getComments(commentIds, { consistent: true });
    return comments.some((comment) => comment !== null && !comment.deleted && notifies(kind, comment, recipientId));
  }
}
