import { forbidden, unauthenticated } from '../domain/errors.js';
import type { Excluded, GraphStore, IdPage, ReadBudget, Relation, RelationKind } from '../stores/graph/graph-store.js';
import { UNMETERED } from '../stores/graph/traversal.js';
import type { UserStore } from '../stores/user-store.js';
import type { FollowEvents } from './follow-events.js';
import type { NotificationEvents } from './notifications.js';
import { type TwoWayArgs, twoWayPageArgs, withOpaqueCursors } from './paging.js';
import { checkNewPair, checkPair, failIfClosedMeanwhile } from './pair-checks.js';

/**
 * What every interaction with another account checks before it writes, and what the graph
 * queries leave out: the use cases that need it depend on this much of RelationshipUseCases.
 */
export interface BlockCheck {
  /** FORBIDDEN (and nothing written) when `actorId` and any of `otherIds` have blocked each other, either way. One batched lookup. */
  assertNotBlocked(actorId: string, otherIds: readonly string[]): Promise<void>;
}

/**
 * The accounts in a block with the request's viewer, either way (nobody when anonymous): what the
 * graph queries leave out. The GraphQL layer reads it once per request, however many fields ask.
 */
export type BlockedAccounts = () => Promise<Excluded>;

/** Both blocks between `a` and each of `others`, in this order: a → other, other → a. */
export function blocksBetween(a: string, others: readonly string[]): Relation[] {
  return others.flatMap((other) => [
    { kind: 'blocks' as const, from: a, to: other },
    { kind: 'blocks' as const, from: other, to: a },
  ]);
}

/**
 * Keeps blocks and mutes and answers the checks; what they hide is applied by the feeds' rules and the graph
 * queries (see docs/design/blocks-and-mutes.md).
 */
export class RelationshipUseCases implements BlockCheck {
  constructor(
    private readonly users: UserStore,
    private readonly graph: GraphStore,
    private readonly events: FollowEvents,
    private readonly notifications: Pick<NotificationEvents, 'follow' | 'relation' | 'written'>,
    /** Told after a block's unfollows, of each follower, as FollowUseCases tells of an unfollow (live timelines listen to the outbox authors it follows). */
    private readonly followsChanged: (followerId: string) => void = () => {},
  ) {}

  /**
   * Idempotent. The block is written before the follows are removed, so a racing follow is refused or removed.
   * Unfollow events go out even without a follow, so a retry after a crash still purges the timelines.
   */
  async block(viewerId: string | null, userId: string): Promise<void> {
    const blockerId = await checkNewPair(this.users, viewerId, userId, 'block');
    // Each is taken out of the other's notifications, in the block's own write.
    const reconcile = [this.notifications.relation(blockerId, userId), this.notifications.relation(userId, blockerId)];
    const related = await this.graph.relate(
      { kind: 'blocks', from: blockerId, to: userId },
      new Date().toISOString(),
      reconcile,
    );
    if (related) this.notifications.written(reconcile);
    try {
      for (const [from, to] of [
        [blockerId, userId],
        [userId, blockerId],
      ] as const) {
        const notify = this.notifications.follow(from, to);
        if (await this.graph.unfollow(from, to, notify)) this.notifications.written(notify);
        this.followsChanged(from);
        await this.events.unfollowed(from, to);
      }
    } finally {
      // After the unfollows, so that a failed check leaves no follow beside the block; and also when they
      // failed. The reconcile tasks only ever take notifications out: nothing of them to take back.
      if (related)
        await failIfClosedMeanwhile(this.users, this.graph, blockerId, userId, () =>
          this.graph.unrelate({ kind: 'blocks', from: blockerId, to: userId }),
        );
    }
  }

  /** Idempotent; ends only the viewer's own block, and follows the block ended stay ended. */
  async unblock(viewerId: string | null, userId: string): Promise<void> {
    const blockerId = await checkPair(this.users, viewerId, userId, 'unblock');
    await this.graph.unrelate({ kind: 'blocks', from: blockerId, to: userId });
  }

  async mute(viewerId: string | null, userId: string): Promise<void> {
    const muterId = await checkNewPair(this.users, viewerId, userId, 'mute');
    // The muted account is taken out of the muter's notifications, in the mute's own write.
    const reconcile = [this.notifications.relation(muterId, userId)];
    if (await this.graph.relate({ kind: 'mutes', from: muterId, to: userId }, new Date().toISOString(), reconcile)) {
      this.notifications.written(reconcile);
      await failIfClosedMeanwhile(this.users, this.graph, muterId, userId, () =>
        this.graph.unrelate({ kind: 'mutes', from: muterId, to: userId }),
      );
    }
  }

  async unmute(viewerId: string | null, userId: string): Promise<void> {
    const muterId = await checkPair(this.users, viewerId, userId, 'unmute');
    await this.graph.unrelate({ kind: 'mutes', from: muterId, to: userId });
  }

  /** The accounts `userId` has blocked (or muted), newest first; only that user may read them. */
  async list(
    kind: RelationKind,
    viewerId: string | null,
    userId: string,
    args: TwoWayArgs,
    budget: ReadBudget,
  ): Promise<IdPage> {
    this.requireOwner(viewerId, userId, kind);
    return withOpaqueCursors(await this.graph.related(kind, userId, twoWayPageArgs(args), budget));
  }

  count(kind: RelationKind, userId: string, budget: ReadBudget): Promise<number> {
    return this.graph.relatedCount(kind, userId, budget);
  }

  private requireOwner(viewerId: string | null, userId: string, kind: RelationKind): void {
    if (!viewerId) throw unauthenticated();
    if (viewerId !== userId)
      throw forbidden(`Only the user may read whom they ${kind === 'blocks' ? 'block' : 'mute'}`);
  }

  async assertNotBlocked(actorId: string, otherIds: readonly string[]): Promise<void> {
    const blocked = await this.blockedAmong(actorId, otherIds);
    if (blocked.size > 0) throw forbidden(`A block stands between you and user ${[...blocked][0]}`);
  }

  /** Those of `otherIds` that `actorId` has blocked or is blocked by: one batched lookup, strongly consistent. */
  async blockedAmong(actorId: string, otherIds: readonly string[]): Promise<Set<string>> {
    const others = [...new Set(otherIds)].filter((id) => id !== actorId);
    if (others.length === 0) return new Set();
    const relations = blocksBetween(actorId, others);
    const found = await this.graph.relations(relations, UNMETERED);
    return new Set(relations.filter((_, i) => found[i]).map((r) => (r.from === actorId ? r.to : r.from)));
  }

  /** Every account in a block with `userId`, either way: one read. */
  async blockedEitherWay(userId: string, budget: ReadBudget): Promise<Excluded> {
    return new Set(await this.graph.relatedEitherWay('blocks', userId, budget));
  }
}
