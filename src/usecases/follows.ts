import { decodeCursor, encodeCursor, isString } from '../domain/cursor.js';
import { badInput, notFound, unauthenticated } from '../domain/errors.js';
import { requireIdOf } from '../domain/ids.js';
import { pageSize } from '../domain/validation.js';
import type { CountedPage, GraphStore, IdPage, PageArgs, ReadBudget } from '../stores/graph/graph-store.js';
import type { UserStore } from '../stores/user-store.js';
import type { FollowEvents } from './follow-events.js';

/** The page arguments a client gave, checked: `first` 1-100 (default 20), `after` a cursor we gave out. */
export function pageArgs(first: number | null | undefined, after: string | null | undefined): PageArgs {
  return { first: pageSize(first), after: decodeCursor(after, 'after', isString) };
}

/** Wraps the backend's own list positions into the API's opaque cursors. */
export function withOpaqueCursors<P extends IdPage>(page: P): P {
  return { ...page, items: page.items.map((item) => ({ id: item.id, cursor: encodeCursor(item.cursor) })) };
}

/** Follow and unfollow, and the one-hop lists: followers, following, known followers, mutuals. */
export class FollowUseCases {
  constructor(
    private readonly users: UserStore,
    private readonly graph: GraphStore,
    private readonly events: FollowEvents,
  ) {}

  /**
   * Idempotent: following someone already followed changes nothing in the graph and is not
   * an error. The timeline task is enqueued even then: if a process died between the graph
   * change and the enqueue, the client's retry still gets the backfill. Tasks check the
   * follow when they run, so a repeat is harmless.
   */
  async follow(viewerId: string | null, userId: string): Promise<void> {
    const followerId = await this.checkPair(viewerId, userId);
    await this.graph.follow(followerId, userId, new Date().toISOString());
    await this.events.followed(followerId, userId);
  }

  async unfollow(viewerId: string | null, userId: string): Promise<void> {
    const followerId = await this.checkPair(viewerId, userId);
    await this.graph.unfollow(followerId, userId);
    await this.events.unfollowed(followerId, userId);
  }

  private async checkPair(viewerId: string | null, userId: string): Promise<string> {
    if (!viewerId) throw unauthenticated();
    if (userId === viewerId) throw badInput('userId', 'you cannot follow yourself');
    requireIdOf('usr', userId, 'userId');
    // Strongly consistent: an account created a moment ago must be followable.
    const [user] = await this.users.getMany([userId], { consistent: true });
    if (!user) throw notFound('User', userId);
    return viewerId;
  }

  async followers(userId: string, first: number | null | undefined, after: string | null | undefined, budget: ReadBudget): Promise<IdPage> {
    return withOpaqueCursors(await this.graph.followers(userId, pageArgs(first, after), budget));
  }

  async following(userId: string, first: number | null | undefined, after: string | null | undefined, budget: ReadBudget): Promise<IdPage> {
    return withOpaqueCursors(await this.graph.following(userId, pageArgs(first, after), budget));
  }

  /** Accounts the viewer follows that follow `userId`, with their number; none when anonymous. */
  async knownFollowers(viewerId: string | null, userId: string, first: number | null | undefined, after: string | null | undefined, budget: ReadBudget): Promise<CountedPage> {
    const page = pageArgs(first, after);
    if (!viewerId) return { items: [], hasNextPage: false, totalCount: 0 };
    return withOpaqueCursors(await this.graph.knownFollowers(viewerId, userId, page, budget));
  }

  async mutuals(userId: string, first: number | null | undefined, after: string | null | undefined, budget: ReadBudget): Promise<CountedPage> {
    return withOpaqueCursors(await this.graph.mutuals(userId, pageArgs(first, after), budget));
  }
}
