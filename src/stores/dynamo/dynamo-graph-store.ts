import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, QueryCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { WriteApi } from '../../config.js';
import { badInput } from '../../domain/errors.js';
import { idPattern } from '../../domain/ids.js';
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
import { BATCH_GET_LIMIT, SCAN_PAGE_ITEMS, SCAN_SEGMENTS, batchGet, cancellationReasons, importItems, transactWrite } from './batch.js';
import { BatchReader, type ItemReader } from './batch-reader.js';
import { IncompleteSets, type NodeSet } from './incomplete-sets.js';
import { type Key, type RelationDirection, classifyKey, keys } from './keys.js';
import type { Task } from '../task-queue.js';
import type { TaskItems } from './dynamo-task-queue.js';

type Item = Record<string, unknown>;
type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** How many list queries one traversal hop runs at once. */
const HOP_CONCURRENCY = 16;
/** Edges per import transaction: three items each plus at most two count updates stay within the 100-item limit. */
const IMPORT_CHUNK = 20;
/** Import transactions in flight at once. */
const IMPORT_CONCURRENCY = 8;
/** Positions as followListPosition builds them; anything else is not a cursor we gave out. */
const POSITION = new RegExp(`^\\d{15}#${idPattern('usr')}$`);
/**
 * Most ids a graph node's following set holds (about 31 KB of ids): past it, follows are
 * counted but not added to the set, and the user's hops read the following list instead.
 */
export const FOLLOWING_SET_MAX = 1000;
/**
 * Most ids each of a graph node's relation sets holds: past it the node is marked as not
 * holding every relation, and lookups about its user read the edges instead.
 */
export const RELATION_SET_MAX = 1000;

/**
 * The sets a graph node keeps of its user's blocks and mutes, in the transactions that write the
 * edges: the ids the user blocks or mutes (`made`) and, for blocks, the ids that block the user
 * (`received`: the rules hide blocks either way, while a mute matters only to whoever made it).
 */
const RELATION_SETS: Record<RelationKind, { made: string; received: string | null }> = {
  blocks: { made: 'blocksIds', received: 'blockedByIds' },
  mutes: { made: 'mutesIds', received: null },
};
/** Moved on by every change of a node's relation sets. */
const RELATIONS_VERSION = 'relationsVersion';
/** Present on a node whose relation sets hold every relation of its user: written with a new node, removed for good when a set has no room. */
const RELATION_SETS_COMPLETE = 'relationSetsComplete';
/** What a node read answers lookups from: the following set and its count, and the relation sets. */
const NODE_SET_ATTRIBUTES = [
  'followingCount',
  'followingIds',
  RELATION_SETS_COMPLETE,
  ...Object.values(RELATION_SETS).flatMap((sets) => (sets.received === null ? [sets.made] : [sets.made, sets.received])),
];
/** The reads of nodes' sets: kept out of the call of other node reads (strongly consistent counts), whose nodes would otherwise carry the sets too. */
const NODE_SETS_GROUP = 'node sets';
/**
 * A node is read for the lookups of one call that it can answer once they are at least this many
 * (the viewer's flags and rules on a page of several authors); fewer (a profile's flags, an author
 * page's blocks) read their edges, which then share the call of the tick's other edge reads and
 * strongly consistent counts (a mutation's payload) instead of costing one request more.
 */
const ANCHOR_MIN_LOOKUPS = 3;

/** A user whose graph node answers a lookup from one of its sets, and how (null: that set is not complete). */
interface Anchor {
  userId: string;
  set: NodeSet;
  answer: (node: Item | undefined) => boolean | null;
}

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
  // A new node has no relations yet: its (empty) relation sets are complete.
  return { ...keys.graphNode(user.id), id: user.id, handle: user.handle, interests: user.interests, ...counts, ...set, [RELATION_SETS_COMPLETE]: true };
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

/** One id added to or deleted from one node's relation set. */
interface RelationSetChange {
  userId: string;
  attribute: string;
  id: string;
  action: 'ADD' | 'DELETE';
}

/** The relation set changes of a relation made (ADD) or ended (DELETE): the maker's `made` set, and the `received` set of the user it is about. */
function relationSetChanges({ kind, from, to }: Relation, action: 'ADD' | 'DELETE'): RelationSetChange[] {
  const sets = RELATION_SETS[kind];
  return [{ userId: from, attribute: sets.made, id: to, action }, ...(sets.received === null ? [] : [{ userId: to, attribute: sets.received, id: from, action }])];
}

/** A node's following set, when it holds every account the user follows: its size equals the node's followingCount. */
function completeFollowingIds(node: Item | undefined): ReadonlySet<string> | null {
  const ids = (node?.followingIds as Set<string> | undefined) ?? new Set<string>();
  return ids.size === Number(node?.followingCount ?? 0) ? ids : null;
}

function completeFollowingSet(node: Item | undefined): string[] | null {
  const ids = completeFollowingIds(node);
  return ids && [...ids];
}

/** Whether the node's relation set `attribute` holds `id`; null when the node's relation sets are not complete (or there is no node). */
function inRelationSet(node: Item | undefined, attribute: string, id: string): boolean | null {
  if (node?.[RELATION_SETS_COMPLETE] !== true) return null;
  return ((node[attribute] as Set<string> | undefined) ?? new Set<string>()).has(id);
}

/** The nodes that can answer a follow lookup: the follower's, from its following set. */
function followAnchors(pair: FollowPair): Anchor[] {
  return [{ userId: pair.from, set: 'following', answer: (node) => completeFollowingIds(node)?.has(pair.to) ?? null }];
}

/** The nodes that can answer a relation lookup: the maker's, and for a block the node of the user it is about. */
function relationAnchors({ kind, from, to }: Relation): Anchor[] {
  const sets = RELATION_SETS[kind];
  const made: Anchor = { userId: from, set: 'relations', answer: (node) => inRelationSet(node, sets.made, to) };
  const received = sets.received;
  return received === null ? [made] : [made, { userId: to, set: 'relations', answer: (node) => inRelationSet(node, received, from) }];
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
 *
 * A node also keeps its user's blocks and mutes as sets (RELATION_SETS), written in the
 * transactions of the relations, so that the lookups a page makes about its viewer — whom they
 * follow, block, are blocked by and mute, for every author — are one node read instead of an
 * edge each (see anchoredLookups). Those sets are complete while the node is marked so: a new
 * node is; a node from before the sets is not until `npm run graph:relation-sets` writes them;
 * one whose set ran out of room is not for good.
 */
export class DynamoGraphStore implements GraphStore, Adjacency {
  readonly backend = 'dynamodb' as const;
  /** Nodes that could not answer from a set when last read: their lookups read the edges beside them. */
  private readonly incompleteSets = new IncompleteSets();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly importApi: WriteApi = 'batchWrite',
    /** Coalesces this store's lookups of one tick (a page's follow flags, a hop's nodes) into one call. */
    private readonly reader = new BatchReader(client, tableName, false),
    private readonly followingSetMax = FOLLOWING_SET_MAX,
    /** Writes the tasks a follow, an unfollow or a relation enqueues with itself; a store without it takes none. */
    private readonly taskItems: TaskItems | null = null,
    private readonly relationSetMax = RELATION_SET_MAX,
    /**
     * The reader of the table's other stores, through the cache when there is one. A query's
     * follow counts, eventually consistent like the rest of its items, go through it, so that a
     * page's counts join its posts, authors and counters in one BatchGetItem (or come from the
     * cache, like a hot author's profile). Strongly consistent counts (a mutation's payload) stay
     * on this store's reader, with the follow flags read after the same write; so do the
     * traversals' reads, counted as graph requests.
     */
    private readonly tableReader: ItemReader = reader,
  ) {}

  /** The table is pinged with the rest of DynamoDB; this backend has nothing of its own to check. */
  async ping(): Promise<void> {}

  async close(): Promise<void> {}

  async upsertUsers(users: readonly GraphUser[]): Promise<void> {
    // An update, not a put, so that the node's follow counts survive a profile change.
    const upsert = async (u: GraphUser) => {
      const update = (marked: boolean) =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.graphNode(u.id),
            UpdateExpression: `SET id = :id, handle = :handle, interests = :interests${marked ? ', #complete = :complete' : ''}`,
            // A new node (or one marked already) holds every relation; a node from before the relation sets existed may not.
            ...(marked
              ? { ConditionExpression: 'attribute_not_exists(pk) OR attribute_exists(#complete)', ExpressionAttributeNames: { '#complete': RELATION_SETS_COMPLETE } }
              : {}),
            ExpressionAttributeValues: { ':id': u.id, ':handle': u.handle, ':interests': u.interests, ...(marked ? { ':complete': true } : {}) },
          }),
        );
      try {
        await update(true);
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        await update(false);
      }
    };
    await Promise.all(users.map(upsert));
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

  async removeNode(userId: string): Promise<void> {
    // Edges are items of their own here: deleting the node's item leaves them to removeUser.
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: keys.graphNode(userId) }));
  }

  async follows(pairs: readonly FollowPair[], budget: ReadBudget): Promise<boolean[]> {
    chargeLookup(budget, pairs.length);
    // Strongly consistent (the nodes too), so that a follow is visible to the same request's payload.
    return this.anchoredLookups(
      pairs.map((p) => keys.followEdge(p.from, p.to)),
      pairs.map(followAnchors),
    );
  }

  async followsAmong(followerId: string, followeeIds: readonly string[], budget: ReadBudget): Promise<boolean[]> {
    if (followeeIds.length === 0) return [];
    const edgeKeys = followeeIds.map((to) => keys.followEdge(followerId, to));
    // A node whose set could not answer last time has the edges read beside it, in the same call: no wave after it.
    const beside = this.incompleteSets.has(followerId, 'following');
    chargeLookup(budget, beside ? 1 + followeeIds.length : 1);
    // Strongly consistent: the follow transaction adds to the set, so a follow shows on the next read.
    const [[node], besideAnswers] = await Promise.all([
      this.reader.get([keys.graphNode(followerId)], { attributes: ['followingCount', 'followingIds'], consistent: true }),
      beside ? this.edgesExist(edgeKeys) : null,
    ]);
    const set = completeFollowingIds(node);
    this.incompleteSets.record(followerId, 'following', set !== null);
    if (set) return followeeIds.map((id) => set.has(id));
    if (besideAnswers) return besideAnswers;
    chargeLookup(budget, followeeIds.length);
    return this.edgesExist(edgeKeys);
  }

  async counts(userIds: readonly string[], budget: ReadBudget, options: { consistent?: boolean } = {}): Promise<FollowCounts[]> {
    chargeLookup(budget, userIds.length);
    const consistent = options.consistent !== false;
    return this.readCounts(consistent ? this.reader : this.tableReader, userIds, consistent);
  }

  async degrees(userIds: readonly string[]): Promise<FollowCounts[]> {
    return this.readCounts(this.reader, userIds, true);
  }

  private async readCounts(reader: ItemReader, userIds: readonly string[], consistent: boolean): Promise<FollowCounts[]> {
    const items = await reader.get(userIds.map(keys.graphNode), { attributes: ['followerCount', 'followingCount'], consistent });
    return items.map((item) => ({ followers: Number(item?.followerCount ?? 0), following: Number(item?.followingCount ?? 0) }));
  }

  async followers(userId: string, page: PageArgs, budget: ReadBudget): Promise<IdPage> {
    return this.listPage(keys.followersList(userId), page, budget);
  }

  async following(userId: string, page: PageArgs, budget: ReadBudget): Promise<IdPage> {
    return this.listPage(keys.followingList(userId), page, budget);
  }

  async knownFollowers(viewerId: string, userId: string, page: PageArgs, budget: ReadBudget, excluding: Excluded | Promise<Excluded> = NOBODY): Promise<CountedPage> {
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

  async mutuals(userId: string, page: PageArgs, budget: ReadBudget, excluding: Excluded | Promise<Excluded> = NOBODY): Promise<CountedPage> {
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
    excluding: Excluded | Promise<Excluded>,
  ): Promise<CountedPage> {
    if (list.size === 0) return { items: [], hasNextPage: false, totalCount: 0 };
    chargeIntersection(budget, list.size);
    const listed = await this.readList(list.pk, null, null);
    const excluded = await excluding;
    const entries = listed.filter((entry) => !excluded.has(entry.id));
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

  suggestions(viewerId: string, first: number, budget: ReadBudget, excluding?: Excluded | Promise<Excluded>): Promise<SuggestedUser[]> {
    return friendsOfFriends(this, viewerId, first, budget, excluding);
  }

  shortestPath(from: string, to: string, maxDepth: number, budget: ReadBudget, excluding?: Excluded | Promise<Excluded>): Promise<string[] | null> {
    return shortestPath(this, from, to, maxDepth, budget, excluding);
  }

  network(args: NetworkArgs, budget: ReadBudget): Promise<CountedPage> {
    return networkPage(this, args, budget);
  }

  async relate(relation: Relation, at: string, tasks: readonly Task[] = []): Promise<boolean> {
    const [edge, ...entries] = relationItems(relation, at);
    // First with the ids added to the nodes' relation sets; a node whose set has no room is marked incomplete instead.
    const full = new Set<string>();
    for (;;) {
      const changes = relationSetChanges(relation, 'ADD');
      try {
        await transactWrite(this.client, {
          TransactItems: [
            { Put: { TableName: this.tableName, Item: edge, ConditionExpression: 'attribute_not_exists(pk)' } },
            ...entries.map((Item) => ({ Put: { TableName: this.tableName, Item } })),
            ...changes.map((change) => this.relationSetChange(change, full.has(change.userId))),
            ...this.enqueueItems(tasks),
          ],
        });
        return true;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (reasons?.[0] === 'ConditionalCheckFailed') return false;
        const overflowing = changes.filter((change, i) => !full.has(change.userId) && reasons?.[1 + entries.length + i] === 'ConditionalCheckFailed');
        if (overflowing.length === 0) throw error;
        for (const change of overflowing) full.add(change.userId);
      }
    }
  }

  /**
   * The update of one node's relation set: ADD within the set's room (the condition fails when
   * full), or with `full` the node marked as not holding every relation; DELETE always.
   */
  private relationSetChange(change: RelationSetChange, full: boolean): TransactItem {
    // Every change moves the node's relations version on, which completeRelationSets is conditioned on.
    const names = { '#version': RELATIONS_VERSION, ...(full ? { '#complete': RELATION_SETS_COMPLETE } : { '#set': change.attribute }) };
    const values = { ':one': 1, ...(full ? {} : { ':ids': new Set([change.id]) }), ...(!full && change.action === 'ADD' ? { ':room': this.relationSetMax } : {}) };
    return {
      Update: {
        TableName: this.tableName,
        Key: keys.graphNode(change.userId),
        UpdateExpression: full ? 'REMOVE #complete ADD #version :one' : change.action === 'ADD' ? 'ADD #set :ids, #version :one' : 'DELETE #set :ids ADD #version :one',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ...(!full && change.action === 'ADD' ? { ConditionExpression: 'attribute_not_exists(#set) OR size(#set) < :room' } : {}),
      },
    };
  }

  /**
   * Writes the relation sets of a node from before they existed (a data migration: `npm run
   * graph:relation-sets`), from the user's relation lists, and marks it complete. Conditioned on
   * the node's relations version, so that a relation made or ended meanwhile makes it read
   * again. False when there is nothing to do: the node is complete already, has no room for
   * the user's relations, or is gone.
   */
  async completeRelationSets(userId: string): Promise<boolean> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const { Item: node } = await this.client.send(
        new GetCommand({
          TableName: this.tableName,
          Key: keys.graphNode(userId),
          ConsistentRead: true,
          ProjectionExpression: '#complete, #version',
          ExpressionAttributeNames: { '#complete': RELATION_SETS_COMPLETE, '#version': RELATIONS_VERSION },
        }),
      );
      if (!node || node[RELATION_SETS_COMPLETE] === true) return false;
      const sets = new Map<string, Set<string>>();
      for (const kind of ['blocks', 'mutes'] as const) {
        for (const entry of await this.relationEntries(kind, userId, null)) {
          const attribute = entry.direction === 'OUT' ? RELATION_SETS[kind].made : RELATION_SETS[kind].received;
          if (attribute !== null) (sets.get(attribute) ?? sets.set(attribute, new Set()).get(attribute)!).add(entry.id);
        }
      }
      if ([...sets.values()].some((set) => set.size > this.relationSetMax)) return false;
      // Sets cannot be empty: an attribute left out is an empty set.
      const attributes = Object.values(RELATION_SETS).flatMap((each) => (each.received === null ? [each.made] : [each.made, each.received]));
      const names = Object.fromEntries(attributes.map((attribute, i) => [`#s${i}`, attribute]));
      const assigned = attributes.flatMap((attribute, i) => (sets.has(attribute) ? [`#s${i} = :s${i}`] : []));
      const removed = attributes.flatMap((attribute, i) => (sets.has(attribute) ? [] : [`#s${i}`]));
      const version = node[RELATIONS_VERSION] as number | undefined;
      try {
        await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.graphNode(userId),
            UpdateExpression: `SET ${['#complete = :complete', ...assigned].join(', ')}${removed.length > 0 ? ` REMOVE ${removed.join(', ')}` : ''}`,
            ConditionExpression: `attribute_exists(pk) AND ${version === undefined ? 'attribute_not_exists(#version)' : '#version = :version'}`,
            ExpressionAttributeNames: { ...names, '#complete': RELATION_SETS_COMPLETE, '#version': RELATIONS_VERSION },
            ExpressionAttributeValues: {
              ':complete': true,
              ...Object.fromEntries(attributes.flatMap((attribute, i) => (sets.has(attribute) ? [[`:s${i}`, sets.get(attribute)!]] : []))),
              ...(version === undefined ? {} : { ':version': version }),
            },
          }),
        );
        return true;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    throw new Error(`the relation sets of ${userId} kept racing with relation changes`);
  }

  /** The ids of the graph nodes that are not marked as holding every relation (nodes from before the relation sets, or past their room): a whole-table scan. */
  async *nodesWithoutRelationSets(): AsyncGenerator<string[]> {
    // One segment after another: the pages stay short (see SCAN_SEGMENTS), and the caller's writes keep pace.
    for (let segment = 0; segment < SCAN_SEGMENTS; segment++) {
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await this.client.send(
          new ScanCommand({
            TableName: this.tableName,
            FilterExpression: 'sk = :node AND attribute_not_exists(#complete)',
            ExpressionAttributeNames: { '#complete': RELATION_SETS_COMPLETE },
            ExpressionAttributeValues: { ':node': 'NODE' },
            ProjectionExpression: 'pk, sk',
            Segment: segment,
            TotalSegments: SCAN_SEGMENTS,
            ExclusiveStartKey: startKey,
            Limit: SCAN_PAGE_ITEMS,
          }),
        );
        yield (page.Items ?? []).flatMap((item) => {
          const node = classifyKey(item as Key);
          return node?.kind === 'graphNode' ? [node.userId] : [];
        });
        startKey = page.LastEvaluatedKey;
      } while (startKey);
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
            ...relationSetChanges(relation, 'DELETE').map((change) => this.relationSetChange(change, false)),
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
    return this.anchoredLookups(
      relations.map((r) => keys.relationEdge(r.kind, r.from, r.to)),
      relations.map(relationAnchors),
    );
  }

  /** Whether each edge (a follow, a block, a mute) exists: strongly consistent, so that the request that wrote one sees it. */
  private async edgesExist(edgeKeys: readonly Key[], group?: string): Promise<boolean[]> {
    const items = await this.reader.get(edgeKeys, { attributes: [], consistent: true, group });
    return items.map((item) => item !== undefined);
  }

  /**
   * Whether each edge exists. A user whose node can answer several of the lookups (the viewer
   * of a page: whom they follow, block, are blocked by, mute) has that one node read instead of
   * their edges, while its sets are complete; the other lookups read their edges in the same
   * tick, and so does a lookup whose node turned out incomplete, after it (or beside it, when
   * this process found that node incomplete before: see IncompleteSets). The nodes and the
   * edges beside them are one call, apart from the tick's other reads of nodes (strongly
   * consistent counts), so that those nodes do not carry the sets.
   */
  private async anchoredLookups(edgeKeys: readonly Key[], anchors: readonly (readonly Anchor[])[]): Promise<boolean[]> {
    const coverage = new Map<string, number>();
    for (const options of anchors) for (const anchor of options) coverage.set(anchor.userId, (coverage.get(anchor.userId) ?? 0) + 1);
    // Each lookup goes to the node that answers the most of them (the viewer's), so that as few nodes as possible are read.
    const chosen = anchors.map((options) => {
      const best = options.reduce<Anchor | null>((a, b) => (a === null || coverage.get(b.userId)! > coverage.get(a.userId)! ? b : a), null);
      return best && coverage.get(best.userId)! >= ANCHOR_MIN_LOOKUPS ? best : null;
    });
    const nodeIds = [...new Set(chosen.flatMap((anchor) => (anchor ? [anchor.userId] : [])))];
    const edgesOf = async (indexes: number[], group?: string) => {
      const found = await this.edgesExist(
        indexes.map((i) => edgeKeys[i]!),
        group,
      );
      return new Map(indexes.map((index, i) => [index, found[i]!]));
    };
    // Beside a node read the other edges join its call (an edge has none of the node's attributes); alone, the tick's other edges and strong counts.
    // So do the edges of lookups whose node's set could not answer last time: a page about such a viewer keeps its two waves.
    const group = nodeIds.length > 0 ? NODE_SETS_GROUP : undefined;
    const [nodes, direct] = await Promise.all([
      this.reader.get(nodeIds.map(keys.graphNode), { attributes: NODE_SET_ATTRIBUTES, consistent: true, group: NODE_SETS_GROUP }),
      edgesOf(
        chosen.flatMap((anchor, i) => (anchor && !this.incompleteSets.has(anchor.userId, anchor.set) ? [] : [i])),
        group,
      ),
    ]);
    const nodeOf = new Map(nodeIds.map((id, i) => [id, nodes[i]]));
    const answers = chosen.map((anchor, i) => {
      if (!anchor) return direct.get(i)!;
      const answer = anchor.answer(nodeOf.get(anchor.userId));
      this.incompleteSets.record(anchor.userId, anchor.set, answer !== null);
      return answer ?? direct.get(i) ?? null;
    });
    const unanswered = await edgesOf(answers.flatMap((answer, i) => (answer === null ? [i] : [])));
    return answers.map((answer, i) => answer ?? unanswered.get(i)!);
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

  /** Each list sorted by id. */
  async neighbours(ids: readonly string[], direction: Direction): Promise<string[][]> {
    return direction === 'in' ? this.followersLists(ids) : this.countedFollowing(ids, () => {});
  }

  /** One BatchGetItem: the traversals ask countedFollowing for at most this many users, so at most this many sets are read before a charge. */
  readonly countedFollowingMax = BATCH_GET_LIMIT;

  /**
   * Following lists with their counts: the nodes' following sets (at most followingSetMax ids
   * each) are read in the request that looks up the counts, and only users whose set is not
   * complete have their list read (one Query each), after the charge. Eventually consistent, as
   * the sets always were: the charge and the lists come from the same items.
   */
  async countedFollowing(ids: readonly string[], chargeEdges: (degreeSum: number) => void): Promise<string[][]> {
    const nodes = await batchGet(this.client, this.tableName, ids.map(keys.graphNode), { projection: 'pk, sk, followingCount, followingIds' });
    chargeEdges(nodes.reduce((sum, node) => sum + Number(node?.followingCount ?? 0), 0));
    const sets = nodes.map(completeFollowingSet);
    return sortedById(await mapConcurrently(ids, HOP_CONCURRENCY, async (id, i) => sets[i] ?? this.wholeList(keys.followingList(id))));
  }

  private async followersLists(ids: readonly string[]): Promise<string[][]> {
    return sortedById(await mapConcurrently(ids, HOP_CONCURRENCY, (id) => this.wholeList(keys.followersList(id))));
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
const sortedById = (lists: string[][]) => lists.map((list) => list.sort(compareIds));

function checkedPosition(after: string | null): string | null {
  if (after !== null && !POSITION.test(after)) throw badInput('after', 'is not a cursor this API gave out');
  return after;
}
