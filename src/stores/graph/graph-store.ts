/**
 * The follow graph. Two backends implement it — DynamoDB adjacency lists (the embedded
 * default) and Neo4j — and the use cases never know which one answers. Methods are
 * plural where a page needs them: ids in, aligned lists out, so a page costs one call.
 * List cursors are the backend's own strings; callers treat them as opaque.
 */
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

export interface FollowCounts {
  followers: number;
  following: number;
}

export interface PageArgs {
  first: number;
  after: string | null;
}

/** A page of user ids, each with the cursor that resumes after it. */
export interface IdPage {
  items: { id: string; cursor: string }[];
  hasNextPage: boolean;
}

export interface SuggestedUser {
  userId: string;
  mutualCount: number;
  /** Up to 3 of the accounts the viewer follows that follow `userId`. */
  viaIds: string[];
}

export interface NetworkArgs {
  origin: string;
  maxDepth: number;
  interest: string | null;
  first: number;
  after: string | null;
}

export interface NetworkPage extends IdPage {
  totalCount: number;
}

/** Bounds on multi-hop work: a query that would expand more edges ends with QUERY_TOO_EXPENSIVE. */
export interface TraversalLimits {
  maxEdges: number;
}

export interface GraphStore {
  readonly backend: 'dynamodb' | 'neo4j';
  /** Resolves when the backend answers; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Creates or updates the users' nodes (handle and interests). */
  upsertUsers(users: readonly GraphUser[]): Promise<void>;

  /** Adds the edge; false (and nothing changed) when it already existed. */
  follow(followerId: string, followeeId: string, at: string): Promise<boolean>;
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
  importGraph(users: readonly GraphUser[], edges: readonly FollowEdge[], onWritten?: (edges: number) => void): Promise<void>;
  /** Removes the edge; false (and nothing changed) when there was none. */
  unfollow(followerId: string, followeeId: string): Promise<boolean>;
  /** For each pair: does `from` follow `to`? */
  follows(pairs: readonly FollowPair[]): Promise<boolean[]>;
  counts(userIds: readonly string[]): Promise<FollowCounts[]>;

  /** Newest follow first. `first` may exceed 100 here: fan-out reads followers in large pages. */
  followers(userId: string, page: PageArgs): Promise<IdPage>;
  following(userId: string, page: PageArgs): Promise<IdPage>;
  /** Accounts `viewerId` follows that follow `userId`. */
  knownFollowers(viewerId: string, userId: string, page: PageArgs): Promise<IdPage>;
  knownFollowerCount(viewerId: string, userId: string): Promise<number>;
  /** Accounts `userId` follows that follow `userId` back. */
  mutuals(userId: string, page: PageArgs): Promise<IdPage>;
  mutualCount(userId: string): Promise<number>;

  /** Friends of friends, ranked by mutualCount descending, ties by id. */
  suggestions(viewerId: string, first: number, limits: TraversalLimits): Promise<SuggestedUser[]>;
  /** The shortest directed follow path as user ids from `from` to `to`, or null when none within maxDepth. */
  shortestPath(from: string, to: string, maxDepth: number, limits: TraversalLimits): Promise<string[] | null>;
  /** Users within maxDepth hops of the origin (origin excluded), by distance then id. */
  network(args: NetworkArgs, limits: TraversalLimits): Promise<NetworkPage>;
}
