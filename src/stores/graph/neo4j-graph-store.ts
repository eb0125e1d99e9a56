import neo4j, { type Driver, type ManagedTransaction, type RecordShape } from 'neo4j-driver';
import { serviceUnavailable } from '../../domain/errors.js';
import { withTimeout } from '../../lib/deadline.js';
import type { DependencyState } from '../../observability/dependencies.js';
import { recordGraphRequest, startStoreRequest } from '../../observability/cost.js';
import { observeStoreRequest } from '../../observability/store-requests.js';
import { CYPHER, type CypherName } from './cypher.js';
import { type ReadStatement, countedPage, keysetParams, listPage, newerListPage } from './neo4j-pages.js';
import {
  type CountedPage,
  type Excluded,
  type FollowCounts,
  type FollowEdge,
  type FollowPair,
  type GraphStore,
  type GraphUser,
  type IdPage,
  type NetworkArgs,
  type NewerPageArgs,
  type PageArgs,
  type ReadBudget,
  type Relation,
  type RelationKind,
  type SuggestedUser,
  NOBODY,
  chargeLookup,
} from './graph-store.js';
import { type Adjacency, type Direction, UNMETERED, chargeHop, networkPage, shortestPath } from './traversal.js';
import type { Task } from '../../domain/tasks.js';
import type { TaskQueue } from '../task-queue.js';

export interface Neo4jTarget {
  uri: string;
  user: string;
  password: string;
  /** Where the tasks a follow, an unfollow or a relation enqueues go, right after its write (another engine: no shared transaction). */
  tasks?: Pick<TaskQueue, 'enqueue'>;
  /** NEO4J_TIMEOUT_MS: the longest a statement may take, its connection and retries included. */
  timeoutMs: number;
  state?: DependencyState;
}

/** The driver's errors for a server it cannot reach or that did not answer in time. */
function isUnavailability(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    code === 'ServiceUnavailable' ||
    code === 'SessionExpired' ||
    (typeof code === 'string' && (code.startsWith('Neo.TransientError.') || code.includes('TransactionTimedOut'))) ||
    (error instanceof Error && /timed? ?out|timeout/i.test(error.message))
  );
}

/** The statements of each relation kind (a relationship type cannot be a parameter). */
const RELATION_STATEMENTS = {
  blocks: {
    relate: 'block',
    unrelate: 'unblock',
    list: 'blocked',
    newer: 'blockedNewer',
    count: 'blockedCount',
    eitherWay: 'blocksEitherWay',
  },
  mutes: {
    relate: 'mute',
    unrelate: 'unmute',
    list: 'muted',
    newer: 'mutedNewer',
    count: 'mutedCount',
    eitherWay: 'mutesEitherWay',
  },
} as const satisfies Record<RelationKind, Record<string, CypherName>>;

/** Time the server has to report its own transaction timeout before the client gives up on it. */
const TIMEOUT_MARGIN_MS = 500;

/** Edges (or users) per transaction when importing in bulk. */
const IMPORT_CHUNK = 1000;

/**
 * The Neo4j backend: `(:User {id, handle, interests})-[:FOLLOWS {at}]->(:User)`. Every
 * statement comes from the CYPHER catalog and runs in a managed transaction (executeRead /
 * executeWrite), which retries transient errors; integers come back as JS numbers.
 */
export class Neo4jGraphStore implements GraphStore, Adjacency {
  readonly backend = 'neo4j' as const;

  private readonly bookmarks = neo4j.bookmarkManager();

  private readonly driver: Driver;
  private readonly tasks: Pick<TaskQueue, 'enqueue'> | null;
  private readonly timeoutMs: number;
  private readonly state: DependencyState | null;

  private constructor(options: {
    driver: Driver;
    tasks: Pick<TaskQueue, 'enqueue'> | null;
    timeoutMs: number;
    state: DependencyState | null;
  }) {
    this.driver = options.driver;
    this.tasks = options.tasks;
    this.timeoutMs = options.timeoutMs;
    this.state = options.state;
  }

  /** Enqueues the tasks of a change that was made; a store opened without a queue takes none. */
  private async enqueueAfter(changed: boolean, tasks: readonly Task[]): Promise<boolean> {
    if (tasks.length > 0 && !this.tasks) throw new Error('This graph store was opened without a task queue');
    if (changed) for (const task of tasks) await this.tasks!.enqueue(task);
    return changed;
  }

  /** Connects and creates the uniqueness constraints on User.id and User.handle. */
  static async open(target: Neo4jTarget): Promise<Neo4jGraphStore> {
    const driver = neo4j.driver(target.uri, neo4j.auth.basic(target.user, target.password), {
      disableLosslessIntegers: true,
      connectionTimeout: target.timeoutMs,
      connectionAcquisitionTimeout: target.timeoutMs,
      maxTransactionRetryTime: target.timeoutMs,
      // The driver logs nothing of its own: its errors reach the caller, and the state changes the log.
      logging: { level: 'error', logger: () => {} },
    });
    const store = new Neo4jGraphStore({
      driver,
      tasks: target.tasks ?? null,
      timeoutMs: target.timeoutMs,
      state: target.state ?? null,
    });
    try {
      await store.write('userIdUnique', {});
      await store.write('userHandleUnique', {});
    } catch (error) {
      await driver.close();
      throw error;
    }
    return store;
  }

  private async run(mode: 'read' | 'write', name: CypherName, params: Record<string, unknown>): Promise<RecordShape[]> {
    const statement = CYPHER[name];
    const given = Object.keys(params).sort().join(',');
    if (given !== [...statement.params].sort().join(',')) {
      throw new Error(`Cypher ${name} takes parameters [${statement.params.join(', ')}], got [${given}]`);
    }
    const answered = startStoreRequest();
    recordGraphRequest();
    return observeStoreRequest('graph', 'neo4j', name, async () => {
      // One bookmark manager for every session, so that on a cluster a read sees this process's earlier writes.
      const session = this.driver.session({
        defaultAccessMode: mode === 'read' ? neo4j.session.READ : neo4j.session.WRITE,
        bookmarkManager: this.bookmarks,
      });
      const work = async (tx: ManagedTransaction) =>
        (await tx.run(statement.text, params)).records.map((record) => record.toObject());
      const config = { timeout: this.timeoutMs };
      const running = mode === 'read' ? session.executeRead(work, config) : session.executeWrite(work, config);
      try {
        // The transaction timeout is the server's to enforce: a server that stalls is timed out here.
        const records = await withTimeout(
          running,
          this.timeoutMs + TIMEOUT_MARGIN_MS,
          () => new Error(`Neo4j did not answer within ${this.timeoutMs} ms`),
        );
        this.state?.answered();
        return records;
      } catch (error) {
        if (!isUnavailability(error)) throw error;
        this.state?.unavailable(error);
        throw serviceUnavailable(error);
      } finally {
        answered();
        void session.close().catch(() => {});
      }
    });
  }

  /** `read` for the page helpers of neo4j-pages.ts. */
  private readonly reader: ReadStatement = (name, params) => this.read(name, params);

  private read(name: CypherName, params: Record<string, unknown>) {
    return this.run('read', name, params);
  }

  private write(name: CypherName, params: Record<string, unknown>) {
    return this.run('write', name, params);
  }

  async ping(): Promise<void> {
    await this.read('ping', {});
  }

  async close(): Promise<void> {
    await this.driver.close();
  }

  async upsertUsers(users: readonly GraphUser[]): Promise<void> {
    if (users.length === 0) return;
    await this.write('upsertUsers', {
      users: users.map((u) => ({ id: u.id, handle: u.handle, interests: u.interests })),
    });
  }

  async follow(followerId: string, followeeId: string, at: string, tasks: readonly Task[] = []): Promise<boolean> {
    const [row] = await this.write('follow', { followerId, followeeId, at });
    return this.enqueueAfter(row?.created === true, tasks);
  }

  async importFollows(edges: readonly FollowEdge[]): Promise<number> {
    let added = 0;
    // Bounded transactions: one huge UNWIND would hold every lock and all the state at once.
    for (let start = 0; start < edges.length; start += IMPORT_CHUNK) {
      const chunk = edges.slice(start, start + IMPORT_CHUNK).map((e) => ({ from: e.from, to: e.to, at: e.at }));
      const [row] = await this.write('importFollows', { edges: chunk });
      added += Number(row?.added ?? 0);
    }
    return added;
  }

  async importGraph(
    users: readonly GraphUser[],
    edges: readonly FollowEdge[],
    onWritten?: (edges: number) => void,
  ): Promise<void> {
    // Neo4j computes counts from its own adjacency, so the import is the nodes, then the edges by UNWIND.
    for (let start = 0; start < users.length; start += IMPORT_CHUNK)
      await this.upsertUsers(users.slice(start, start + IMPORT_CHUNK));
    for (let start = 0; start < edges.length; start += IMPORT_CHUNK) {
      const part = edges.slice(start, start + IMPORT_CHUNK);
      await this.importFollows(part);
      onWritten?.(part.length);
    }
  }

  async unfollow(followerId: string, followeeId: string, tasks: readonly Task[] = []): Promise<boolean> {
    const [row] = await this.write('unfollow', { followerId, followeeId });
    return this.enqueueAfter(Number(row?.removed ?? 0) > 0, tasks);
  }

  async removeUser(userId: string): Promise<void> {
    await this.write('removeUser', { userId });
  }

  async removeNode(userId: string): Promise<void> {
    await this.write('removeNode', { userId });
  }

  async follows(pairs: readonly FollowPair[], budget: ReadBudget): Promise<boolean[]> {
    if (pairs.length === 0) return [];
    chargeLookup(budget, pairs.length);
    const rows = await this.read('follows', { pairs: pairs.map((p) => ({ from: p.from, to: p.to })) });
    const result = pairs.map(() => false);
    for (const row of rows) result[row.i as number] = row.follows === true;
    return result;
  }

  /** The edges, in one statement; charged as the embedded backend's read of one node with a complete following set. */
  async followsAmong(followerId: string, followeeIds: readonly string[], budget: ReadBudget): Promise<boolean[]> {
    if (followeeIds.length === 0) return [];
    chargeLookup(budget, 1);
    return this.follows(
      followeeIds.map((to) => ({ from: followerId, to })),
      UNMETERED,
    );
  }

  async counts(userIds: readonly string[], budget: ReadBudget): Promise<FollowCounts[]> {
    chargeLookup(budget, userIds.length);
    return this.degrees(userIds);
  }

  async degrees(userIds: readonly string[]): Promise<FollowCounts[]> {
    if (userIds.length === 0) return [];
    const rows = await this.read('counts', { ids: [...userIds] });
    const byId = new Map(
      rows.map((row) => [row.id as string, { followers: row.followers as number, following: row.following as number }]),
    );
    return userIds.map((id) => byId.get(id) ?? { followers: 0, following: 0 });
  }

  followers(userId: string, page: PageArgs | NewerPageArgs, budget: ReadBudget): Promise<IdPage> {
    return 'last' in page
      ? newerListPage(this.reader, 'followersNewer', userId, page, budget)
      : listPage(this.reader, 'followers', userId, page, budget);
  }

  following(userId: string, page: PageArgs | NewerPageArgs, budget: ReadBudget): Promise<IdPage> {
    return 'last' in page
      ? newerListPage(this.reader, 'followingNewer', userId, page, budget)
      : listPage(this.reader, 'following', userId, page, budget);
  }

  async knownFollowers(
    viewerId: string,
    userId: string,
    page: PageArgs,
    budget: ReadBudget,
    excluding: Excluded | Promise<Excluded> = NOBODY,
  ): Promise<CountedPage> {
    const keyset = keysetParams(page);
    chargeLookup(budget, 2);
    const [viewer, user] = await this.degrees([viewerId, userId]);
    const params = { viewerId, userId, excluding: [...(await excluding)], ...keyset };
    return countedPage(
      this.reader,
      'knownFollowers',
      params,
      Math.min(viewer!.following, user!.followers),
      page.first,
      budget,
    );
  }

  async mutuals(
    userId: string,
    page: PageArgs,
    budget: ReadBudget,
    excluding: Excluded | Promise<Excluded> = NOBODY,
  ): Promise<CountedPage> {
    const keyset = keysetParams(page);
    chargeLookup(budget, 1);
    const [counts] = await this.degrees([userId]);
    return countedPage(
      this.reader,
      'mutuals',
      { userId, excluding: [...(await excluding)], ...keyset },
      Math.min(counts!.following, counts!.followers),
      page.first,
      budget,
    );
  }

  async suggestions(
    viewerId: string,
    first: number,
    budget: ReadBudget,
    excluding: Excluded | Promise<Excluded> = NOBODY,
  ): Promise<SuggestedUser[]> {
    // Charged hop by hop as the shared traversal charges the embedded backend, then answered by one aggregate.
    let following = 0;
    await chargeHop(budget, 1, async () => (following = (await this.degrees([viewerId]))[0]!.following));
    if (following === 0) return [];
    await chargeHop(budget, following, async () =>
      Number((await this.read('suggestionCost', { viewerId }))[0]?.edges ?? 0),
    );
    const rows = await this.read('suggestions', {
      viewerId,
      excluding: [...(await excluding)],
      limit: neo4j.int(first),
    });
    return rows.map((row) => ({
      userId: row.userId as string,
      mutualCount: row.mutualCount as number,
      viaIds: row.via as string[],
    }));
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

  async relate(relation: Relation, at: string, tasks: readonly Task[] = []): Promise<boolean> {
    const [row] = await this.write(RELATION_STATEMENTS[relation.kind].relate, {
      fromId: relation.from,
      toId: relation.to,
      at,
    });
    return this.enqueueAfter(row?.created === true, tasks);
  }

  async unrelate(relation: Relation): Promise<boolean> {
    const [row] = await this.write(RELATION_STATEMENTS[relation.kind].unrelate, {
      fromId: relation.from,
      toId: relation.to,
    });
    return Number(row?.removed ?? 0) > 0;
  }

  async relations(relations: readonly Relation[], budget: ReadBudget): Promise<boolean[]> {
    if (relations.length === 0) return [];
    chargeLookup(budget, relations.length);
    const rows = await this.read('relations', {
      relations: relations.map((r) => ({ kind: r.kind, from: r.from, to: r.to })),
    });
    const result = relations.map(() => false);
    for (const row of rows) result[row.i as number] = row.related === true;
    return result;
  }

  related(kind: RelationKind, userId: string, page: PageArgs | NewerPageArgs, budget: ReadBudget): Promise<IdPage> {
    const statements = RELATION_STATEMENTS[kind];
    return 'last' in page
      ? newerListPage(this.reader, statements.newer, userId, page, budget)
      : listPage(this.reader, statements.list, userId, page, budget);
  }

  async relatedCount(kind: RelationKind, userId: string, budget: ReadBudget): Promise<number> {
    budget.charge(1, 0);
    const [row] = await this.read(RELATION_STATEMENTS[kind].count, { userId });
    return Number(row?.total ?? 0);
  }

  async relatedEitherWay(kind: RelationKind, userId: string, budget: ReadBudget): Promise<string[]> {
    budget.charge(1, 0);
    const [row] = await this.read(RELATION_STATEMENTS[kind].eitherWay, { userId });
    const ids = (row?.ids ?? []) as string[];
    budget.charge(0, ids.length);
    return ids;
  }

  async neighbours(ids: readonly string[], direction: Direction): Promise<string[][]> {
    if (ids.length === 0) return [];
    const rows = await this.read(direction === 'out' ? 'followingIds' : 'followerIds', { ids: [...ids] });
    const byId = new Map(rows.map((row) => [row.id as string, row.ids as string[]]));
    return ids.map((id) => byId.get(id) ?? []);
  }

  async interests(ids: readonly string[]): Promise<string[][]> {
    if (ids.length === 0) return [];
    const rows = await this.read('interests', { ids: [...ids] });
    const byId = new Map(rows.map((row) => [row.id as string, row.interests as string[]]));
    return ids.map((id) => byId.get(id) ?? []);
  }
}
