import type { NotificationCause } from '../../../domain/models.js';
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
  posts: Pick<PostStore, 'getMany'>;
  users: Pick<UserStore, 'getMany'>;
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
    // COMMENT, REPLY and MENTION: the post being there is what stands (a group keeps the actor of a comment deleted since).
    const post = await currentPost(this.stores.posts, postId);
    if (post === null) return false;
    // A mention in a comment under a post of an account in a block with the recipient: left out like that post (as a page's rules do).
    if (post.authorId === actorId || post.authorId === recipientId) return true;
    return (await this.blocks.blockedAmong(recipientId, [post.authorId])).size === 0;
  }
}
