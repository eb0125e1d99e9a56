import { settleAll } from '../lib/collections.js';
import type { CountedPage, Excluded, GraphStore, IdPage, ReadBudget } from '../stores/graph/graph-store.js';
import type { UserStore } from '../stores/user-store.js';
import type { FollowEvents } from './follow-events.js';
import type { NotificationEvents } from './notifications.js';
import { type TwoWayArgs, pageArgs, twoWayPageArgs, withOpaqueCursors } from './paging.js';
import { checkNewPair, checkPair, failIfClosedMeanwhile } from './pair-checks.js';
import type { BlockCheck, BlockedAccounts } from './relationships.js';

/** Follow and unfollow, and the one-hop lists: followers, following, known followers, mutuals. */
export class FollowUseCases {
  constructor(
    private readonly users: UserStore,
    private readonly graph: GraphStore,
    private readonly events: FollowEvents,
    private readonly blocks: BlockCheck,
    private readonly notifications: Pick<NotificationEvents, 'follow' | 'written'>,
    /** Told after each follow and unfollow of the follower (live timelines listen to the outbox authors it follows). */
    private readonly followsChanged: (followerId: string) => void = () => {},
  ) {}

  /**
   * Idempotent. The backfill task is enqueued even on a repeat, so a retry after a crash still gets it; the
   * notification task is written with the follow, so a retry adds none. FORBIDDEN across a block; a racing block or
   * account deletion is caught by the checks after the write (see docs/design/blocks-and-mutes.md, account-deletion.md).
   */
  async follow(viewerId: string | null, userId: string): Promise<void> {
    const followerId = await checkNewPair(this.users, viewerId, userId, 'follow');
    await this.blocks.assertNotBlocked(followerId, [userId]);
    const notify = this.notifications.follow(followerId, userId);
    const added = await this.graph.follow(followerId, userId, new Date().toISOString(), notify);
    if (added) this.notifications.written(notify);
    const notBlocked = this.blocks.assertNotBlocked(followerId, [userId]);
    // Awaited after the deletion check, which must not race a removeFollow of its own.
    notBlocked.catch(() => {});
    try {
      if (added)
        await failIfClosedMeanwhile(this.users, this.graph, followerId, userId, () =>
          this.removeFollow(followerId, userId),
        );
      await notBlocked;
    } catch (error) {
      // Whatever failed, a check after the write did not pass: the follow is taken back (idempotent).
      if (added) await this.removeFollow(followerId, userId);
      throw error;
    }
    this.followsChanged(followerId);
    await this.events.followed(followerId, userId);
  }

  async unfollow(viewerId: string | null, userId: string): Promise<void> {
    const followerId = await checkPair(this.users, viewerId, userId, 'unfollow');
    await this.removeFollow(followerId, userId);
    this.followsChanged(followerId);
    await this.events.unfollowed(followerId, userId);
  }

  /** Removes the edge with the task that takes the follower out of the followee's notifications. */
  private async removeFollow(followerId: string, followeeId: string): Promise<void> {
    const notify = this.notifications.follow(followerId, followeeId);
    if (await this.graph.unfollow(followerId, followeeId, notify)) this.notifications.written(notify);
  }

  async followers(userId: string, args: TwoWayArgs, budget: ReadBudget): Promise<IdPage> {
    return withOpaqueCursors(await this.graph.followers(userId, twoWayPageArgs(args), budget));
  }

  async following(userId: string, args: TwoWayArgs, budget: ReadBudget): Promise<IdPage> {
    return withOpaqueCursors(await this.graph.following(userId, twoWayPageArgs(args), budget));
  }

  /** Accounts the viewer follows that follow `userId`, with their number; none when anonymous. Never an account in a block with the viewer. */
  async knownFollowers(
    viewerId: string | null,
    userId: string,
    first: number | null | undefined,
    after: string | null | undefined,
    budget: ReadBudget,
    blocked: BlockedAccounts,
  ): Promise<CountedPage> {
    const page = pageArgs(first, after);
    if (!viewerId) return { items: [], hasNextPage: false, totalCount: 0 };
    return withOpaqueCursors(
      await besideCounts(blocked, (excluding) => this.graph.knownFollowers(viewerId, userId, page, budget, excluding)),
    );
  }

  /** Never an account in a block with the viewer. */
  async mutuals(
    userId: string,
    first: number | null | undefined,
    after: string | null | undefined,
    budget: ReadBudget,
    blocked: BlockedAccounts,
  ): Promise<CountedPage> {
    const page = pageArgs(first, after);
    return withOpaqueCursors(
      await besideCounts(blocked, (excluding) => this.graph.mutuals(userId, page, budget, excluding)),
    );
  }
}

/**
 * An intersection of follow lists with the viewer's blocks read beside its first read (the counts lookup)
 * instead of before it: one wave less. Both are awaited, so that neither fails unhandled; a failed
 * read of the blocks comes first.
 */
async function besideCounts(
  blocked: BlockedAccounts,
  intersect: (excluding: Promise<Excluded>) => Promise<CountedPage>,
): Promise<CountedPage> {
  const excluding = blocked();
  // Handled here too, in case intersect throws before it is awaited.
  excluding.catch(() => {});
  const [, page] = await settleAll([excluding, intersect(excluding)] as const);
  return page;
}
