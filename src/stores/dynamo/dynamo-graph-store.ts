import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { badInput } from '../../domain/errors.js';
import { chunk, mapConcurrently } from '../../lib/collections.js';
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
  type PageArgs,
  type ReadBudget,
  type Relation,
  type RelationKind,
  type SuggestedUser,
  NOBODY,
  chargeIntersection,
  chargeLookup,
  chargeListPage,
} from '../graph/graph-store.js';
import { type Adjacency, type Direction, UNMETERED, friendsOfFriends, networkPage, shortestPath } from '../graph/traversal.js';
import { type WriteApi, batchGet, cancellationReasons, importItems, transactWrite } from './batch.js';
import { BatchReader } from './batch-reader.js';
import { type Key, type RelationDirection, keys } from './keys.js';
import type { Task } from '../task-queue.js';
import type { TaskItems } from './dynamo-task-queue.js';

type Item = Record<string, unknown>;

/** How many list queries one traversal hop runs at once. */
const HOP_CONCURRENCY = 16;
/** Edges per import transaction: three items each plus at most two count updates stay within the 100-item limit. */
const IMPORT_CHUNK = 20;
/** Import transactions in flight at once. */
const IMPORT_CONCURRENCY = 8;
/** Positions as followListPosition builds them; anything else is not a cursor we gave out. */
const POSITION = /^\d{15}#\S+$/;
/**
 * Most ids a graph node's following set holds (about 31 KB of ids): past it, follows are
 * counted but not added to the set, and the user's hops read the following list instead.
 */
export const FOLLOWING_SET_MAX = 1000;

/**
 * The items of one follow: the edge (first), then the entries in the follower's following list
 * and in the followee's followers list. Written by follow, importFollows and importGraph alike.
 */
export function followItems(edge: FollowEdge): [Item, Item, Item] {
  const atMs = Date.parse(edge.at);
  const [following, followers] = listEntryKeys(edge.from, edge.to, atMs);
  return [
    { ...keys.followEdge(edge.from, edge.to), at: edge.at, atMs },
    { ...following, userId: edge.to, at: edge.at },
    { ...followers, userId: edge.from, at: edge.at },
  ];
}

/** Where a follow made at `atMs` sits in the follower's following list and in the followee's followers list. */
function listEntryKeys(followerId: string, followeeId: string, atMs: number): [Key, Key] {
  return [
    { pk: keys.followingList(followerId), sk: keys.followListPosition(atMs, followeeId) },
    { pk: keys.followersList(followeeId), sk: keys.followListPosition(atMs, followerId) },
  ];
}

/** A user's graph node as importGraph writes it: its counts, and its following set when that fits (see DynamoGraphStore). */
export function graphNodeItem(
  user: GraphUser,
  counts: { followerCount: number; followingCount: number },
  followingIds: readonly string[],
  followingSetMax = FOLLOWING_SET_MAX,
): Item {
  // Sets cannot be empty; a node without one has a complete empty set when it follows nobody.
  const set = followingIds.length > 0 && followingIds.length <= followingSetMax ? { followingIds: new Set(followingIds) } : {};
  return { ...keys.graphNode(user.id), id: user.id, handle: user.handle, interests: user.interests, ...counts, ...set };
}

/**
 * The items of one block or mute: the edge (first), then its entries in the relation lists of
 * the user who made it (OUT) and of the user it is about (IN).
 */
function relationItems(relation: Relation, at: string): [Item, Item, Item] {
  const atMs = Date.parse(at);
  const [made, received] = relationEntryKeys(relation, atMs);
  return [
    { ...keys.relationEdge(relation.kind, relation.from, relation.to), at, atMs },
    { ...made, userId: relation.to, at },
    { ...received, userId: relation.from, at },
  ];
}

function relationEntryKeys({ kind, from, to }: Relation, atMs: number): [Key, Key] {
  return [
    { pk: keys.relationList(kind, from), sk: keys.relationListPosition('OUT', keys.followListPosition(atMs, to)) },
    { pk: keys.relationList(kind, to), sk: keys.relationListPosition('IN', keys.followListPosition(atMs, from)) },
  ];
}

/** A node's following set, when it holds every account the user follows: its size equals the node's followingCount. */
function completeFollowingSet(node: Item | undefined): string[] | null {
  const ids = (node?.followingIds as Set<string> | undefined) ?? new Set<string>();
  return ids.size === Number(node?.followingCount ?? 0) ? [...ids] : null;
}

/**
 * The embedded graph backend, in the service's own table. A follow is three items written in
 * one transaction with both users' counts: the edge (for existence checks), an entry in the
 * follower's following list and one in the followee's followers list. Each list is one
 * partition sorted by follow time, read newest first.
 *
 * The follower's graph node also keeps the followee's id in a string set, `followingIds`, in the
 * same transaction, so a traversal hop reads the following lists of up to 100 users in one
 * BatchGetItem instead of one Query each. The set only ever holds accounts the user follows
 * (ids are added and removed atomically with the edges), so it is complete exactly when its
 * size equals the node's `followingCount` — checked on every read, in one item, with no
 * staleness. A node whose set is not complete — past `followingSetMax` accounts, or written
 * before the set existed — has its hops read from the following list instead, and becomes
 * complete again once unfollows bring its count down to the set's size.
 */
export class DynamoGraphStore implements GraphStore, Adjacency {
  readonly backend = 'dynamodb' as const;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly importApi: WriteApi = 'batchWrite',
    /** Coalesces the count and edge lookups of one tick (a page's follow counts and flags) into one call. */
    private readonly reader = new BatchReader(client, tableName, false),
    private readonly followingSetMax = FOLLOWING_SET_MAX,
    /** Writes the tasks a follow, an unfollow or a relation enqueues with itself; a store without it takes none. */
    private readonly taskItems: TaskItems | null = null,
  ) {}

  /** The table is pinged with the rest of DynamoDB; this backend has nothing of its own to check. */
  async ping(): Promise<void> {}

  async close(): Promise<void> {}

  async upsertUsers(users: readonly GraphUser[]): Promise<void> {
    // An update, not a put, so that the node's follow counts survive a profile change.
    await Promise.all(
      users.map((u) =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.graphNode(u.id),
            UpdateExpression: 'SET id = :id, handle = :handle, interests = :interests',
            ExpressionAttributeValues: { ':id': u.id, ':handle': u.handle, ':interests': u.interests },
          }),
        ),
      ),
    );
  }

  /** The tasks as items of this store's transactions. */
  private enqueueItems(tasks: readonly Task[]) {
    if (tasks.length > 0 && !this.taskItems) throw new Error('This graph store was built without a task queue');
    return tasks.map((task) => this.taskItems!.enqueueItem(task));
  }

  async follow(followerId: string, followeeId: string, at: string, tasks: readonly Task[] = []): Promise<boolean> {
    const [edge, ...entries] = followItems({ from: followerId, to: followeeId, at });
    // First with the followee added to the follower's following set; if the set is full, without.
    for (let addToSet = true; ; addToSet = false) {
      try {
        await transactWrite(this.client, {
          TransactItems: [
            { Put: { TableName: this.tableName, Item: edge, ConditionExpression: 'attribute_not_exists(pk)' } },
            ...entries.map((Item) => ({ Put: { TableName: this.tableName, Item } })),
            this.countChanges(followerId, { followerCount: 0, followingCount: 1 }, addToSet ? [followeeId] : []),
            this.countChange(followeeId, 'followerCount', 1),
            ...this.enqueueItems(tasks),
          ],
        });
        return true;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (reasons?.[0] === 'ConditionalCheckFailed') return false;
        if (!addToSet || reasons?.[3] !== 'ConditionalCheckFailed') throw error;
      }
    }
  }

  async importFollows(edges: readonly FollowEdge[]): Promise<number> {
    // The first of repeated pairs wins, as if the follows had been made one by one.
    const byPair = new Map<string, FollowEdge>();
    for (const e of edges) if (!byPair.has(`${e.from}>${e.to}`)) byPair.set(`${e.from}>${e.to}`, e);
    const unique = [...byPair.values()];
    const added = await mapConcurrently(chunk(unique, IMPORT_CHUNK), IMPORT_CONCURRENCY, (part) => this.importChunk(part));
    return added.reduce((sum, n) => sum + n, 0);
  }

  /**
   * One transaction for a chunk of edges, their list entries and the summed count changes, so
   * the counts agree with the lists even if the import stops half-way. Edges that already
   * exist fail their condition; the chunk is retried without them.
   */
  private async importChunk(edges: readonly FollowEdge[]): Promise<number> {
    let pending = [...edges];
    // Followers whose following set cannot take this chunk's follows: they are only counted.
    const fullSets = new Set<string>();
    while (pending.length > 0) {
      const deltas = new Map<string, { followerCount: number; followingCount: number; followed: string[] }>();
      const delta = (id: string) => deltas.get(id) ?? deltas.set(id, { followerCount: 0, followingCount: 0, followed: [] }).get(id)!;
      for (const e of pending) {
        delta(e.from).followingCount += 1;
        if (!fullSets.has(e.from)) delta(e.from).followed.push(e.to);
        delta(e.to).followerCount += 1;
      }
      const items = pending.map(followItems);
      const updated = [...deltas];
      try {
        await transactWrite(this.client, {
          TransactItems: [
            ...items.map(([edge]) => ({ Put: { TableName: this.tableName, Item: edge, ConditionExpression: 'attribute_not_exists(pk)' } })),
            ...items.flatMap(([, ...entries]) => entries.map((Item) => ({ Put: { TableName: this.tableName, Item } }))),
            ...updated.map(([userId, d]) => this.countChanges(userId, d, d.followed)),
          ],
        });
        return pending.length;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (!reasons?.includes('ConditionalCheckFailed')) throw error;
        // Edges that exist already are dropped; a count update that failed has a full following set.
        updated.forEach(([userId], i) => {
          if (reasons[3 * items.length + i] === 'ConditionalCheckFailed') fullSets.add(userId);
        });
        pending = pending.filter((_, i) => reasons[i] !== 'ConditionalCheckFailed');
      }
    }
    return 0;
  }

  async importGraph(users: readonly GraphUser[], edges: readonly FollowEdge[], onWritten?: (edges: number) => void): Promise<void> {
    const counts = new Map(users.map((u) => [u.id, { followerCount: 0, followingCount: 0 }]));
    for (const e of edges) {
      counts.get(e.from)!.followingCount += 1;
      counts.get(e.to)!.followerCount += 1;
    }
    const following = new Map<string, string[]>();
    for (const e of edges) (following.get(e.from) ?? following.set(e.from, []).get(e.from)!).push(e.to);
    await importItems(
      this.client,
      this.tableName,
      users,
      (u) => {
        return [graphNodeItem(u, counts.get(u.id)!, following.get(u.id) ?? [], this.followingSetMax)];
      },
      { api: this.importApi },
    );
    await importItems(this.client, this.tableName, edges, followItems, { api: this.importApi, onWritten });
  }

  /**
   * Adds to a node's counts and, with `followed`, those ids to its following set, on the
   * condition that the set stays within followingSetMax (the condition fails otherwise).
   */
  private countChanges(userId: string, deltas: { followerCount: number; followingCount: number }, followed: readonly string[] = []) {
    const counts = { ':followers': deltas.followerCount, ':following': deltas.followingCount };
    if (followed.length === 0 || followed.length > this.followingSetMax) {
      return {
        Update: {
          TableName: this.tableName,
          Key: keys.graphNode(userId),
          UpdateExpression: 'ADD followerCount :followers, followingCount :following',
          ExpressionAttributeValues: counts,
        },
      };
    }
    return {
      Update: {
        TableName: this.tableName,
        Key: keys.graphNode(userId),
        UpdateExpression: 'ADD followerCount :followers, followingCount :following, followingIds :ids',
        ConditionExpression: 'attribute_not_exists(followingIds) OR size(followingIds) <= :room',
        ExpressionAttributeValues: { ...counts, ':ids': new Set(followed), ':room': this.followingSetMax - followed.length },
      },
    };
  }

  async unfollow(followerId: string, followeeId: string, tasks: readonly Task[] = []): Promise<boolean> {
    // The list entries' keys hold the follow time, so read the edge first; the condition on
    // that time makes a concurrent unfollow-and-follow-again retry instead of deleting the wrong entries.
    for (let attempt = 0; attempt < 5; attempt++) {
      const edge = await this.client.send(new GetCommand({ TableName: this.tableName, Key: keys.followEdge(followerId, followeeId), ConsistentRead: true }));
      if (!edge.Item) return false;
      const atMs = edge.Item.atMs as number;
      try {
        await transactWrite(this.client, {
          TransactItems: [
            {
              Delete: {
                TableName: this.tableName,
                Key: keys.followEdge(followerId, followeeId),
                ConditionExpression: 'atMs = :atMs',
                ExpressionAttributeValues: { ':atMs': atMs },
              },
            },
            ...listEntryKeys(followerId, followeeId, atMs).map((Key) => ({ Delete: { TableName: this.tableName, Key } })),
            {
              Update: {
                TableName: this.tableName,
                Key: keys.graphNode(followerId),
                UpdateExpression: 'ADD followingCount :minus DELETE followingIds :ids',
                ExpressionAttributeValues: { ':minus': -1, ':ids': new Set([followeeId]) },
              },
            },
            this.countChange(followeeId, 'followerCount', -1),
            ...this.enqueueItems(tasks),
          ],
        });
        return true;
      } catch (error) {
        if (cancellationReasons(error)?.[0] !== 'ConditionalCheckFailed') throw error;
      }
    }
    throw new Error(`unfollow ${followerId} -> ${followeeId} kept racing with other changes`);
  }

  private countChange(userId: string, counter: 'followerCount' | 'followingCount', delta: 1 | -1) {
    return {
      Update: {
        TableName: this.tableName,
        Key: keys.graphNode(userId),
        UpdateExpression: 'ADD #counter :delta',
        ExpressionAttributeNames: { '#counter': counter },
        ExpressionAttributeValues: { ':delta': delta },
      },
    };
  }

  async removeUser(userId: string): Promise<void> {
    // Edge by edge, through unfollow, so that the other side's count goes down with each.
    for (const side of ['followers', 'following'] as const) {
      for (;;) {
        const page = await this[side](userId, { first: 100, after: null }, UNMETERED);
        const removed = await Promise.all(page.items.map((item) => (side === 'followers' ? this.unfollow(item.id, userId) : this.unfollow(userId, item.id))));
        // A list entry without its edge (which the audit reports) would otherwise be read again forever.
        if (!removed.includes(true)) break;
      }
    }
    for (const kind of ['blocks', 'mutes'] as const) {
      const entries = await this.relationEntries(kind, userId, null);
      await Promise.all(entries.map((e) => this.unrelate(e.direction === 'OUT' ? { kind, from: userId, to: e.id } : { kind, from: e.id, to: userId })));
    }
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: keys.graphNode(userId) }));
  }

  async follows(pairs: readonly FollowPair[], budget: ReadBudget): Promise<boolean[]> {
    chargeLookup(budget, pairs.length);
    // Strongly consistent, so that a follow is visible to the same request's payload.
    const items = await this.reader.get(
      pairs.map((p) => keys.followEdge(p.from, p.to)),
      { attributes: [], consistent: true },
    );
    return items.map((item) => item !== undefined);
  }

  async followsAmong(followerId: string, followeeIds: readonly string[], budget: ReadBudget): Promise<boolean[]> {
    if (followeeIds.length === 0) return [];
    chargeLookup(budget, 1);
    // Strongly consistent: the follow transaction adds to the set, so a follow shows on the next read.
    const [node] = await this.reader.get([keys.graphNode(followerId)], { attributes: ['followingCount', 'followingIds'], consistent: true });
    const set = completeFollowingSet(node);
    if (!set)
      return this.follows(
        followeeIds.map((to) => ({ from: followerId, to })),
        budget,
      );
    const followed = new Set(set);
    return followeeIds.map((id) => followed.has(id));
  }

  async counts(userIds: readonly string[], budget: ReadBudget): Promise<FollowCounts[]> {
    chargeLookup(budget, userIds.length);
    return this.degrees(userIds);
  }

  async degrees(userIds: readonly string[]): Promise<FollowCounts[]> {
    const items = await this.reader.get(userIds.map(keys.graphNode), { attributes: ['followerCount', 'followingCount'], consistent: true });
    return items.map((item) => ({ followers: Number(item?.followerCount ?? 0), following: Number(item?.followingCount ?? 0) }));
  }

  async followers(userId: string, page: PageArgs, budget: ReadBudget): Promise<IdPage> {
    return this.listPage(keys.followersList(userId), page, budget);
  }

  async following(userId: string, page: PageArgs, budget: ReadBudget): Promise<IdPage> {
    return this.listPage(keys.followingList(userId), page, budget);
  }

  async knownFollowers(viewerId: string, userId: string, page: PageArgs, budget: ReadBudget, excluding: Excluded = NOBODY): Promise<CountedPage> {
    const after = checkedPosition(page.after);
    chargeLookup(budget, 2);
    const [viewer, user] = await this.degrees([viewerId, userId]);
    // Ordered by when each followed the user: the user's followers list holds those positions;
    // from the viewer's side they come from the edges checked.
    return viewer!.following <= user!.followers
      ? this.intersection(
          { pk: keys.followingList(viewerId), size: viewer!.following, edge: (id) => keys.followEdge(id, userId), edgeIsOrder: true },
          after,
          page.first,
          budget,
          excluding,
        )
      : this.intersection(
          { pk: keys.followersList(userId), size: user!.followers, edge: (id) => keys.followEdge(viewerId, id), edgeIsOrder: false },
          after,
          page.first,
          budget,
          excluding,
        );
  }

  async mutuals(userId: string, page: PageArgs, budget: ReadBudget, excluding: Excluded = NOBODY): Promise<CountedPage> {
    const after = checkedPosition(page.after);
    chargeLookup(budget, 1);
    const [counts] = await this.degrees([userId]);
    // Ordered by when the user followed each: the user's following list holds those positions;
    // from the followers side they come from the edges checked.
    return counts!.following <= counts!.followers
      ? this.intersection(
          { pk: keys.followingList(userId), size: counts!.following, edge: (id) => keys.followEdge(id, userId), edgeIsOrder: false },
          after,
          page.first,
          budget,
          excluding,
        )
      : this.intersection(
          { pk: keys.followersList(userId), size: counts!.followers, edge: (id) => keys.followEdge(userId, id), edgeIsOrder: true },
          after,
          page.first,
          budget,
          excluding,
        );
  }

  /**
   * The entries of the list `pk` (the shorter of two, `size` entries by the counts) whose `edge`
   * exists, newest first, less those `excluding`: a page of them after `after`, and how many there are. With
   * `edgeIsOrder` the checked edge's follow time gives the order, else the list's own positions.
   */
  private async intersection(
    list: { pk: string; size: number; edge: (id: string) => Key; edgeIsOrder: boolean },
    after: string | null,
    first: number,
    budget: ReadBudget,
    excluding: Excluded,
  ): Promise<CountedPage> {
    if (list.size === 0) return { items: [], hasNextPage: false, totalCount: 0 };
    chargeIntersection(budget, list.size);
    const entries = (await this.readList(list.pk, null, null)).filter((entry) => !excluding.has(entry.id));
    const edges = await batchGet(
      this.client,
      this.tableName,
      entries.map((e) => list.edge(e.id)),
      {
        projection: list.edgeIsOrder ? 'pk, sk, atMs' : 'pk, sk',
      },
    );
    const kept = entries
      .flatMap((entry, i) => {
        const edge = edges[i];
        if (!edge) return [];
        return [{ id: entry.id, position: list.edgeIsOrder ? keys.followListPosition(edge.atMs as number, entry.id) : entry.position }];
      })
      .sort((a, b) => (a.position < b.position ? 1 : -1));
    const rest = after === null ? kept : kept.filter((entry) => entry.position < after);
    return {
      items: rest.slice(0, first).map((e) => ({ id: e.id, cursor: e.position })),
      hasNextPage: rest.length > first,
      totalCount: kept.length,
    };
  }

  suggestions(viewerId: string, first: number, budget: ReadBudget, excluding?: Excluded): Promise<SuggestedUser[]> {
    return friendsOfFriends(this, viewerId, first, budget, excluding);
  }

  shortestPath(from: string, to: string, maxDepth: number, budget: ReadBudget, excluding?: Excluded): Promise<string[] | null> {
    return shortestPath(this, from, to, maxDepth, budget, excluding);
  }

  network(args: NetworkArgs, budget: ReadBudget): Promise<CountedPage> {
    return networkPage(this, args, budget);
  }

  async relate(relation: Relation, at: string, tasks: readonly Task[] = []): Promise<boolean> {
    const [edge, ...entries] = relationItems(relation, at);
    try {
      await transactWrite(this.client, {
        TransactItems: [
          { Put: { TableName: this.tableName, Item: edge, ConditionExpression: 'attribute_not_exists(pk)' } },
          ...entries.map((Item) => ({ Put: { TableName: this.tableName, Item } })),
          ...this.enqueueItems(tasks),
        ],
      });
      return true;
    } catch (error) {
      if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') return false;
      throw error;
    }
  }

  async unrelate(relation: Relation): Promise<boolean> {
    const edgeKey = keys.relationEdge(relation.kind, relation.from, relation.to);
    // As unfollow: the entries' keys hold the time, and the condition on it makes a race with a new relation retry.
    for (let attempt = 0; attempt < 5; attempt++) {
      const edge = await this.client.send(new GetCommand({ TableName: this.tableName, Key: edgeKey, ConsistentRead: true }));
      if (!edge.Item) return false;
      const atMs = edge.Item.atMs as number;
      try {
        await transactWrite(this.client, {
          TransactItems: [
            { Delete: { TableName: this.tableName, Key: edgeKey, ConditionExpression: 'atMs = :atMs', ExpressionAttributeValues: { ':atMs': atMs } } },
            ...relationEntryKeys(relation, atMs).map((Key) => ({ Delete: { TableName: this.tableName, Key } })),
          ],
        });
        return true;
      } catch (error) {
        if (cancellationReasons(error)?.[0] !== 'ConditionalCheckFailed') throw error;
      }
    }
    throw new Error(`unrelate ${relation.kind} ${relation.from} -> ${relation.to} kept racing with other changes`);
  }

  async relations(relations: readonly Relation[], budget: ReadBudget): Promise<boolean[]> {
    chargeLookup(budget, relations.length);
    // Same shape as the follow and count lookups, so that a page's flags and relations share one call.
    const items = await this.reader.get(
      relations.map((r) => keys.relationEdge(r.kind, r.from, r.to)),
      { attributes: [], consistent: true },
    );
    return items.map((item) => item !== undefined);
  }

  async related(kind: RelationKind, userId: string, page: PageArgs, budget: ReadBudget): Promise<IdPage> {
    const after = checkedPosition(page.after);
    chargeListPage(budget, page.first);
    // Newest first from below `after` (or the top of the OUT entries); IN entries sort below every OUT entry, so reading stops at the first.
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk < :below',
        ExpressionAttributeValues: { ':pk': keys.relationList(kind, userId), ':below': keys.relationListPosition('OUT', after ?? '~') },
        ProjectionExpression: 'sk, userId',
        ScanIndexForward: false,
        Limit: page.first + 1,
      }),
    );
    const made = ((result.Items ?? []) as Item[]).filter((item) => (item.sk as string).startsWith('OUT#'));
    return {
      items: made.slice(0, page.first).map((item) => ({ id: item.userId as string, cursor: (item.sk as string).slice('OUT#'.length) })),
      hasNextPage: made.length > page.first,
    };
  }

  async relatedCount(kind: RelationKind, userId: string, budget: ReadBudget): Promise<number> {
    budget.charge(1, 0);
    let count = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const result = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :out)',
          ExpressionAttributeValues: { ':pk': keys.relationList(kind, userId), ':out': 'OUT#' },
          Select: 'COUNT',
          ExclusiveStartKey: startKey,
        }),
      );
      count += result.Count ?? 0;
      startKey = result.LastEvaluatedKey;
    } while (startKey);
    return count;
  }

  async relatedEitherWay(kind: RelationKind, userId: string, budget: ReadBudget): Promise<string[]> {
    budget.charge(1, 0);
    const entries = await this.relationEntries(kind, userId, budget);
    return [...new Set(entries.map((e) => e.id))];
  }

  /** Every entry of a user's relation list, both directions; charged to `budget` as they arrive, when given. */
  private async relationEntries(kind: RelationKind, userId: string, budget: ReadBudget | null): Promise<{ id: string; direction: RelationDirection }[]> {
    const entries: { id: string; direction: RelationDirection }[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const result = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.relationList(kind, userId) },
          ProjectionExpression: 'sk, userId',
          ExclusiveStartKey: startKey,
        }),
      );
      const items = (result.Items ?? []) as Item[];
      budget?.charge(0, items.length);
      for (const item of items) entries.push({ id: item.userId as string, direction: (item.sk as string).startsWith('OUT#') ? 'OUT' : 'IN' });
      startKey = result.LastEvaluatedKey;
    } while (startKey);
    return entries;
  }

  /**
   * Each list sorted by id. Following lists come from the nodes' following sets, up to 100 in
   * one BatchGetItem; only users whose set is not complete have their list read (one Query each),
   * as followers lists always are.
   */
  async neighbours(ids: readonly string[], direction: Direction): Promise<string[][]> {
    const byId = (lists: string[][]) => lists.map((list) => list.sort(compareIds));
    if (direction === 'in') return byId(await mapConcurrently(ids, HOP_CONCURRENCY, (id) => this.wholeList(keys.followersList(id))));
    const nodes = await batchGet(this.client, this.tableName, ids.map(keys.graphNode), { projection: 'pk, sk, followingCount, followingIds' });
    const sets = nodes.map(completeFollowingSet);
    return byId(await mapConcurrently(ids, HOP_CONCURRENCY, async (id, i) => sets[i] ?? this.wholeList(keys.followingList(id))));
  }

  async interests(ids: readonly string[]): Promise<string[][]> {
    const items = await batchGet(this.client, this.tableName, ids.map(keys.graphNode), { projection: 'pk, sk, interests' });
    return items.map((item) => (item?.interests as string[] | undefined) ?? []);
  }

  /** Up to `limit` (null: all) entries of a list partition, newest first, starting after `after` (a position). */
  private async readList(pk: string, after: string | null, limit: number | null): Promise<{ id: string; position: string }[]> {
    const entries: { id: string; position: string }[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const result = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: after === null ? 'pk = :pk' : 'pk = :pk AND sk < :after',
          ExpressionAttributeValues: after === null ? { ':pk': pk } : { ':pk': pk, ':after': after },
          ProjectionExpression: 'sk, userId',
          ScanIndexForward: false,
          Limit: limit === null ? undefined : limit - entries.length,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of (result.Items ?? []) as Item[]) entries.push({ id: item.userId as string, position: item.sk as string });
      startKey = result.LastEvaluatedKey;
    } while (startKey && (limit === null || entries.length < limit));
    return entries;
  }

  private async wholeList(pk: string): Promise<string[]> {
    return (await this.readList(pk, null, null)).map((e) => e.id);
  }

  private async listPage(pk: string, page: PageArgs, budget: ReadBudget): Promise<IdPage> {
    const after = checkedPosition(page.after);
    chargeListPage(budget, page.first);
    const entries = await this.readList(pk, after, page.first + 1);
    return {
      items: entries.slice(0, page.first).map((e) => ({ id: e.id, cursor: e.position })),
      hasNextPage: entries.length > page.first,
    };
  }
}

const compareIds = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function checkedPosition(after: string | null): string | null {
  if (after !== null && !POSITION.test(after)) throw badInput('after', 'is not a cursor this API gave out');
  return after;
}
