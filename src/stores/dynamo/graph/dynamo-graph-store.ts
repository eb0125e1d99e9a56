import type { WriteApi } from '../../../config.js';
import type {
  CountedPage,
  Excluded,
  FollowCounts,
  FollowEdge,
  FollowPair,
  GraphStore,
  GraphUser,
  IdPage,
  NetworkArgs,
  NewerPageArgs,
  PageArgs,
  ReadBudget,
  Relation,
  RelationKind,
  SuggestedUser,
} from '../../graph/graph-store.js';
import { type Adjacency, type Direction, friendsOfFriends, networkPage, shortestPath } from '../../graph/traversal.js';
import type { Task } from '../../../domain/tasks.js';
import { BatchReader, type ItemReader } from '../batch-reader.js';
import type { TableOptions } from '../client.js';
import type { TaskItems } from '../dynamo-task-queue.js';
import { GraphImport } from './import.js';
import { GraphIntersections } from './intersections.js';
import { FOLLOWING_SET_MAX, type GraphTable, RELATION_SET_MAX } from './items.js';
import { GraphLists } from './lists.js';
import { GraphLookups } from './lookups.js';
import { GraphWrites } from './writes.js';

export interface DynamoGraphStoreOptions extends TableOptions {
  /** BULK_WRITE_API, for importGraph; `batchWrite` unless given. */
  importApi?: WriteApi;
  /** Coalesces this store's lookups of one tick (a page's follow flags, a hop's nodes) into one call; a reader of its own unless given. */
  reader?: ItemReader;
  /**
   * Reader for eventually consistent follow counts (on the profiles), through the cache when there is one, so
   * they join the page's other lookups in one BatchGetItem; `reader` unless given.
   */
  tableReader?: ItemReader;
  /** Writes the tasks a follow, an unfollow or a relation enqueues with itself; a store without it takes none. */
  taskItems?: TaskItems | null;
  /** FOLLOWING_SET_MAX unless given (tests use small sets). */
  followingSetMax?: number;
  /** RELATION_SET_MAX unless given. */
  relationSetMax?: number;
}

/**
 * The embedded graph backend, in the service's own table: a follow is the edge and both list entries, written
 * in one transaction with the counts. Graph nodes keep following and relation sets so a hop or a page's viewer
 * lookups are one read (see docs/design/graph.md and docs/design/blocks-and-mutes.md).
 */
export class DynamoGraphStore implements GraphStore, Adjacency {
  readonly backend = 'dynamodb' as const;
  private readonly writes: GraphWrites;
  private readonly bulk: GraphImport;
  private readonly lookups: GraphLookups;
  private readonly lists: GraphLists;
  private readonly intersections: GraphIntersections;

  constructor(options: DynamoGraphStoreOptions) {
    const { client, tableName } = options;
    const reader = options.reader ?? new BatchReader(client, tableName, false);
    const table: GraphTable = {
      client,
      tableName,
      reader,
      followingSetMax: options.followingSetMax ?? FOLLOWING_SET_MAX,
      relationSetMax: options.relationSetMax ?? RELATION_SET_MAX,
    };
    this.lists = new GraphLists(table);
    this.lookups = new GraphLookups(table, options.tableReader ?? reader);
    this.writes = new GraphWrites(table, this.lists, options.taskItems ?? null);
    this.bulk = new GraphImport(table, options.importApi ?? 'batchWrite');
    this.intersections = new GraphIntersections(table, this.lists, (userIds) => this.lookups.degrees(userIds));
  }

  /** The table is pinged with the rest of DynamoDB; this backend has nothing of its own to check. */
  async ping(): Promise<void> {}

  async close(): Promise<void> {}

  upsertUsers(users: readonly GraphUser[]): Promise<void> {
    return this.writes.upsertUsers(users);
  }

  follow(followerId: string, followeeId: string, at: string, tasks?: readonly Task[]): Promise<boolean> {
    return this.writes.follow(followerId, followeeId, at, tasks);
  }

  unfollow(followerId: string, followeeId: string, tasks?: readonly Task[]): Promise<boolean> {
    return this.writes.unfollow(followerId, followeeId, tasks);
  }

  relate(relation: Relation, at: string, tasks?: readonly Task[]): Promise<boolean> {
    return this.writes.relate(relation, at, tasks);
  }

  unrelate(relation: Relation): Promise<boolean> {
    return this.writes.unrelate(relation);
  }

  removeUser(userId: string): Promise<void> {
    return this.writes.removeUser(userId);
  }

  removeNode(userId: string): Promise<void> {
    return this.writes.removeNode(userId);
  }

  importFollows(edges: readonly FollowEdge[]): Promise<number> {
    return this.bulk.importFollows(edges);
  }

  importGraph(
    users: readonly GraphUser[],
    edges: readonly FollowEdge[],
    onWritten?: (edges: number) => void,
  ): Promise<void> {
    return this.bulk.importGraph(users, edges, onWritten);
  }

  follows(pairs: readonly FollowPair[], budget: ReadBudget): Promise<boolean[]> {
    return this.lookups.follows(pairs, budget);
  }

  followsAmong(followerId: string, followeeIds: readonly string[], budget: ReadBudget): Promise<boolean[]> {
    return this.lookups.followsAmong(followerId, followeeIds, budget);
  }

  relations(relations: readonly Relation[], budget: ReadBudget): Promise<boolean[]> {
    return this.lookups.relations(relations, budget);
  }

  counts(userIds: readonly string[], budget: ReadBudget, options?: { consistent?: boolean }): Promise<FollowCounts[]> {
    return this.lookups.counts(userIds, budget, options);
  }

  degrees(userIds: readonly string[]): Promise<FollowCounts[]> {
    return this.lookups.degrees(userIds);
  }

  followers(userId: string, page: PageArgs | NewerPageArgs, budget: ReadBudget): Promise<IdPage> {
    return this.lists.followers(userId, page, budget);
  }

  following(userId: string, page: PageArgs | NewerPageArgs, budget: ReadBudget): Promise<IdPage> {
    return this.lists.following(userId, page, budget);
  }

  related(kind: RelationKind, userId: string, page: PageArgs | NewerPageArgs, budget: ReadBudget): Promise<IdPage> {
    return this.lists.related(kind, userId, page, budget);
  }

  relatedCount(kind: RelationKind, userId: string, budget: ReadBudget): Promise<number> {
    return this.lists.relatedCount(kind, userId, budget);
  }

  relatedEitherWay(kind: RelationKind, userId: string, budget: ReadBudget): Promise<string[]> {
    return this.lists.relatedEitherWay(kind, userId, budget);
  }

  knownFollowers(
    viewerId: string,
    userId: string,
    page: PageArgs,
    budget: ReadBudget,
    excluding?: Excluded | Promise<Excluded>,
  ): Promise<CountedPage> {
    return this.intersections.knownFollowers(viewerId, userId, page, budget, excluding);
  }

  mutuals(
    userId: string,
    page: PageArgs,
    budget: ReadBudget,
    excluding?: Excluded | Promise<Excluded>,
  ): Promise<CountedPage> {
    return this.intersections.mutuals(userId, page, budget, excluding);
  }

  suggestions(
    viewerId: string,
    first: number,
    budget: ReadBudget,
    excluding?: Excluded | Promise<Excluded>,
  ): Promise<SuggestedUser[]> {
    return friendsOfFriends(this, viewerId, first, budget, excluding);
  }

  shortestPath(
    from: string,
    to: string,
    maxDepth: number,
    budget: ReadBudget,
    excluding?: Excluded | Promise<Excluded>,
  ): Promise<string[] | null> {
    return shortestPath(this, from, to, maxDepth, budget, excluding);
  }

  network(args: NetworkArgs, budget: ReadBudget): Promise<CountedPage> {
    return networkPage(this, args, budget);
  }

  neighbours(ids: readonly string[], direction: Direction): Promise<string[][]> {
    return this.lists.neighbours(ids, direction);
  }

  get countedFollowingMax(): number {
    return this.lists.countedFollowingMax;
  }

  countedFollowing(ids: readonly string[], chargeEdges: (degreeSum: number) => void): Promise<string[][]> {
    return this.lists.countedFollowing(ids, chargeEdges);
  }

  interests(ids: readonly string[]): Promise<string[][]> {
    return this.lists.interests(ids);
  }
}
