/**
 * The follow graph, behind one interface for both backends (DynamoDB and Neo4j). Plural methods so a page
 * costs one call; every read charges a ReadBudget first (see docs/design/graph.md).
 */
import type { Task } from '../../domain/tasks.js';

export interface GraphUser {
  id: string;
  handle: string;
  interests: string[];
}

export interface FollowPair {
  from: string;
  to: string;
}

/** A follow to load in bulk, with its follow time (ISO 8601). */
export interface FollowEdge extends FollowPair {
  at: string;
}

/**
 * The other relationships one user can have to another besides following, stored like follows
 * (an edge, and an entry in a list of each user) but without counts. What they mean — who sees
 * what — is the use cases' business; the store only keeps them.
 */
export type RelationKind = 'blocks' | 'mutes';

export interface Relation extends FollowPair {
  kind: RelationKind;
}

export interface FollowCounts {
  followers: number;
  following: number;
}

export interface PageArgs {
  first: number;
  after: string | null;
}

/** Paging a follow list backwards: the `last` follows newer than the position `before`. */
export interface NewerPageArgs {
  last: number;
  before: string;
}

/** A page of user ids, each with the cursor that resumes after it. */
export interface IdPage {
  items: { id: string; cursor: string }[];
  hasNextPage: boolean;
  /** Paging backwards: whether newer entries remain. */
  hasPreviousPage?: boolean;
}

export interface SuggestedUser {
  userId: string;
  mutualCount: number;
  /** Up to 3 of the accounts the viewer follows that follow `userId`. */
  viaIds: string[];
}

/** A page together with the size of the whole list it is taken from. */
export interface CountedPage extends IdPage {
  totalCount: number;
}

/** Users a read leaves out as if they did not exist: never returned, never passed through, never counted. */
export type Excluded = ReadonlySet<string>;

export const NOBODY: Excluded = new Set();

export interface NetworkArgs {
  origin: string;
  /** May still be arriving (the caller reads it beside the first hop): awaited once the first hop is read; an excluded origin reaches nobody. */
  excluding?: Excluded | Promise<Excluded>;
  maxDepth: number;
  interest: string | null;
  first: number;
  after: string | null;
}

/**
 * What graph reads may still cost, in the same units on both backends. `charge` throws QUERY_TOO_EXPENSIVE
 * instead of charging past a bound, so a read is refused before it is sent (see docs/design/graph.md#bounds).
 */
export interface ReadBudget {
  charge(reads: number, items: number): void;
  /** Throws as `charge` would, without charging: for reads that are certain to come later. */
  ensure(reads: number, items: number): void;
}

/** Keys per lookup read: what one BatchGetItem takes. */
export const LOOKUP_BATCH = 100;

/** Round trips of a lookup of `keys` keys. */
export const lookupReads = (keys: number) => Math.ceil(keys / LOOKUP_BATCH);

/** Charges a lookup of `keys` nodes or edges. */
export function chargeLookup(budget: ReadBudget, keys: number): void {
  budget.charge(lookupReads(keys), keys);
}

/** Charges one list page: one read of up to first + 1 entries (the extra one tells whether more follow). */
export function chargeListPage(budget: ReadBudget, first: number): void {
  budget.charge(1, first + 1);
}

/** Charges an intersection of two follow lists read from the shorter, of `size` entries: that whole list, then an edge lookup per entry. */
export function chargeIntersection(budget: ReadBudget, size: number): void {
  budget.charge(1 + lookupReads(size), 2 * size);
}

export interface GraphStore {
  readonly backend: 'dynamodb' | 'neo4j';
  /** Resolves when the backend answers; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Creates or updates the users' nodes (handle and interests). */
  upsertUsers(users: readonly GraphUser[]): Promise<void>;

  /**
   * Adds the edge; false (and nothing changed) when it already existed. `tasks` are enqueued with
   * it: in its transaction on DynamoDB; right after it on Neo4j (another engine, see the README).
   */
  follow(followerId: string, followeeId: string, at: string, tasks?: readonly Task[]): Promise<boolean>;
  /**
   * Adds many edges at once (seeding, imports), with the same guarantees as `follow`: an edge
   * that already exists is left as it is and not counted again. Returns how many were added.
   */
  importFollows(edges: readonly FollowEdge[]): Promise<number>;
  /**
   * Loads users and the follows among them into a graph that holds none of them yet (seeding),
   * with the backend's fastest bulk writes: counts come from `edges`, which must not repeat a
   * pair or name a user missing from `users`. Reports progress in edges.
   */
  importGraph(
    users: readonly GraphUser[],
    edges: readonly FollowEdge[],
    onWritten?: (edges: number) => void,
  ): Promise<void>;
  /** Removes the edge; false (and nothing changed) when there was none. `tasks` are enqueued with it, as with `follow`. */
  unfollow(followerId: string, followeeId: string, tasks?: readonly Task[]): Promise<boolean>;
  /**
   * Removes a deleted account's node, and with it any follow edge that reached it after its follows
   * were taken back one by one (with `unfollow`, which keeps every other count exact), and every
   * relation (block, mute) it has to or from anyone. Idempotent.
   */
  removeUser(userId: string): Promise<void>;
  /**
   * Removes the user's node alone (on DynamoDB with the follow counts left on the key of its gone profile), after a
   * write that raced the account's deletion recreated it. Leaves the edges (and a node that still has some) to
   * removeUser, so it stays bounded. Idempotent.
   */
  removeNode(userId: string): Promise<void>;
  /** For each pair: does `from` follow `to`? A lookup of pairs.length keys. */
  follows(pairs: readonly FollowPair[], budget: ReadBudget): Promise<boolean[]>;
  /**
   * Which of `followeeIds` `followerId` follows, strongly consistent like `follows` (the home page's outbox
   * authors).
   */
  followsAmong(followerId: string, followeeIds: readonly string[], budget: ReadBudget): Promise<boolean[]>;
  /**
   * A lookup of userIds.length keys; strongly consistent unless `consistent` is false, as a query's counts
   * may trail a write like its other items.
   */
  counts(userIds: readonly string[], budget: ReadBudget, options?: { consistent?: boolean }): Promise<FollowCounts[]>;

  /** Newest follow first; one list read of up to first + 1 entries (backwards, last + 1 newer than `before`, returned newest first). `first` may exceed 100 here: fan-out reads followers in large pages. */
  followers(userId: string, page: PageArgs | NewerPageArgs, budget: ReadBudget): Promise<IdPage>;
  following(userId: string, page: PageArgs | NewerPageArgs, budget: ReadBudget): Promise<IdPage>;
  /**
   * Accounts `viewerId` follows that follow `userId`, newest follow first, with their number. `excluding`
   * may still be arriving; it is awaited before the list is filtered.
   */
  knownFollowers(
    viewerId: string,
    userId: string,
    page: PageArgs,
    budget: ReadBudget,
    excluding?: Excluded | Promise<Excluded>,
  ): Promise<CountedPage>;
  /** Accounts `userId` follows that follow `userId` back, newest follow first, with their number; `excluding` as with knownFollowers. */
  mutuals(
    userId: string,
    page: PageArgs,
    budget: ReadBudget,
    excluding?: Excluded | Promise<Excluded>,
  ): Promise<CountedPage>;

  /** Friends of friends, ranked by mutualCount descending, ties by id. */
  /** `excluding` may still be arriving: it is awaited only when the candidates are filtered, so that its read overlaps the first hops. */
  suggestions(
    viewerId: string,
    first: number,
    budget: ReadBudget,
    excluding?: Excluded | Promise<Excluded>,
  ): Promise<SuggestedUser[]>;
  /**
   * The shortest directed follow path as user ids from `from` to `to`, or null when none within maxDepth.
   * `excluding` may still be arriving (the caller reads it beside the first hop): it is awaited once the first hop is read.
   */
  shortestPath(
    from: string,
    to: string,
    maxDepth: number,
    budget: ReadBudget,
    excluding?: Excluded | Promise<Excluded>,
  ): Promise<string[] | null>;
  /** Users within maxDepth hops of the origin (origin excluded), by distance then id. */
  network(args: NetworkArgs, budget: ReadBudget): Promise<CountedPage>;

  /** Adds the relation; false (and nothing changed) when it already existed. `tasks` are enqueued with it, as with `follow`. */
  relate(relation: Relation, at: string, tasks?: readonly Task[]): Promise<boolean>;
  /** Removes the relation; false (and nothing changed) when there was none. */
  unrelate(relation: Relation): Promise<boolean>;
  /** For each: does it exist? A lookup of relations.length keys, strongly consistent like `follows`. */
  relations(relations: readonly Relation[], budget: ReadBudget): Promise<boolean[]>;
  /** The users `userId` has this relation to, newest first; one list read of up to first + 1 entries. */
  related(kind: RelationKind, userId: string, page: PageArgs | NewerPageArgs, budget: ReadBudget): Promise<IdPage>;
  /** How many users `userId` has this relation to; one counting read. */
  relatedCount(kind: RelationKind, userId: string, budget: ReadBudget): Promise<number>;
  /** Every user with this relation to or from `userId`, in one read (charged its entries once read). */
  relatedEitherWay(kind: RelationKind, userId: string, budget: ReadBudget): Promise<string[]>;
}
