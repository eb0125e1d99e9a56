import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { badInput } from '../../domain/errors.js';
import { chunk, mapConcurrently } from '../../lib/collections.js';
import type {
  FollowCounts,
  FollowEdge,
  FollowPair,
  GraphStore,
  GraphUser,
  IdPage,
  NetworkArgs,
  NetworkPage,
  PageArgs,
  SuggestedUser,
  TraversalLimits,
} from '../graph/graph-store.js';
import { type Adjacency, type Direction, friendsOfFriends, networkPage, shortestPath } from '../graph/traversal.js';
import { type ImportWriteApi, batchGet, cancellationReasons, importItems, transactWrite } from './batch.js';
import { type Key, keys } from './keys.js';

type Item = Record<string, unknown>;

/** How many list queries one traversal hop runs at once. */
const HOP_CONCURRENCY = 16;
/** Edges per import transaction: three items each plus at most two count updates stay within the 100-item limit. */
const IMPORT_CHUNK = 20;
/** Import transactions in flight at once. */
const IMPORT_CONCURRENCY = 8;
/** How many list entries a filtered page (known followers, mutuals) checks per round. */
const SCAN_CHUNK = 100;
/** Positions as followListPosition builds them; anything else is not a cursor we gave out. */
const POSITION = /^\d{15}#\S+$/;

/**
 * The items of one follow: the edge (first), then the entries in the follower's following list
 * and in the followee's followers list. Written by follow, importFollows and importGraph alike.
 */
function followItems(edge: FollowEdge): [Item, Item, Item] {
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

/**
 * The embedded graph backend, in the service's own table. A follow is three items written in
 * one transaction with both users' counts: the edge (for existence checks), an entry in the
 * follower's following list and one in the followee's followers list. Each list is one
 * partition sorted by follow time, read newest first.
 */
export class DynamoGraphStore implements GraphStore, Adjacency {
  readonly backend = 'dynamodb' as const;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly importApi: ImportWriteApi = 'batchWrite',
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

  async follow(followerId: string, followeeId: string, at: string): Promise<boolean> {
    const [edge, ...entries] = followItems({ from: followerId, to: followeeId, at });
    try {
      await transactWrite(this.client, {
        TransactItems: [
          { Put: { TableName: this.tableName, Item: edge, ConditionExpression: 'attribute_not_exists(pk)' } },
          ...entries.map((Item) => ({ Put: { TableName: this.tableName, Item } })),
          this.countChange(followerId, 'followingCount', 1),
          this.countChange(followeeId, 'followerCount', 1),
        ],
      });
      return true;
    } catch (error) {
      if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') return false;
      throw error;
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
    while (pending.length > 0) {
      const deltas = new Map<string, { followerCount: number; followingCount: number }>();
      const delta = (id: string) => deltas.get(id) ?? deltas.set(id, { followerCount: 0, followingCount: 0 }).get(id)!;
      for (const e of pending) {
        delta(e.from).followingCount += 1;
        delta(e.to).followerCount += 1;
      }
      const items = pending.map(followItems);
      try {
        await transactWrite(this.client, {
          TransactItems: [
            ...items.map(([edge]) => ({ Put: { TableName: this.tableName, Item: edge, ConditionExpression: 'attribute_not_exists(pk)' } })),
            ...items.flatMap(([, ...entries]) => entries.map((Item) => ({ Put: { TableName: this.tableName, Item } }))),
            ...[...deltas].map(([userId, d]) => this.countChanges(userId, d)),
          ],
        });
        return pending.length;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (!reasons?.includes('ConditionalCheckFailed')) throw error;
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
    await importItems(this.client, this.tableName, users, (u) => [{ ...keys.graphNode(u.id), id: u.id, handle: u.handle, interests: u.interests, ...counts.get(u.id)! }], { api: this.importApi });
    await importItems(this.client, this.tableName, edges, followItems, { api: this.importApi, onWritten });
  }

  private countChanges(userId: string, deltas: { followerCount: number; followingCount: number }) {
    return {
      Update: {
        TableName: this.tableName,
        Key: keys.graphNode(userId),
        UpdateExpression: 'ADD followerCount :followers, followingCount :following',
        ExpressionAttributeValues: { ':followers': deltas.followerCount, ':following': deltas.followingCount },
      },
    };
  }

  async unfollow(followerId: string, followeeId: string): Promise<boolean> {
    // The list entries' keys hold the follow time, so read the edge first; the condition on
    // that time makes a concurrent unfollow-and-follow-again retry instead of deleting the wrong entries.
    for (let attempt = 0; attempt < 5; attempt++) {
      const edge = await this.client.send(
        new GetCommand({ TableName: this.tableName, Key: keys.followEdge(followerId, followeeId), ConsistentRead: true }),
      );
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
            this.countChange(followerId, 'followingCount', -1),
            this.countChange(followeeId, 'followerCount', -1),
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

  async follows(pairs: readonly FollowPair[]): Promise<boolean[]> {
    // Strongly consistent, so that a follow is visible to the same request's payload.
    const items = await batchGet(this.client, this.tableName, pairs.map((p) => keys.followEdge(p.from, p.to)), {
      projection: 'pk, sk',
      consistent: true,
    });
    return items.map((item) => item !== undefined);
  }

  async counts(userIds: readonly string[]): Promise<FollowCounts[]> {
    const items = await batchGet(this.client, this.tableName, userIds.map(keys.graphNode), {
      projection: 'pk, sk, followerCount, followingCount',
      consistent: true,
    });
    return items.map((item) => ({ followers: Number(item?.followerCount ?? 0), following: Number(item?.followingCount ?? 0) }));
  }

  async followers(userId: string, page: PageArgs): Promise<IdPage> {
    return this.listPage(keys.followersList(userId), page);
  }

  async following(userId: string, page: PageArgs): Promise<IdPage> {
    return this.listPage(keys.followingList(userId), page);
  }

  async knownFollowers(viewerId: string, userId: string, page: PageArgs): Promise<IdPage> {
    const [viewer, user] = await this.counts([viewerId, userId]);
    if (viewer!.following > user!.followers) {
      return this.filteredPage(keys.followersList(userId), page, (ids) => this.follows(ids.map((id) => ({ from: viewerId, to: id }))));
    }
    // The viewer follows fewer accounts than follow the user (the usual case with a popular
    // user): intersect from the viewer's side, so a page never scans a huge followers list.
    const after = checkedPosition(page.after);
    const followed = await this.wholeList(keys.followingList(viewerId));
    const edges = await batchGet(this.client, this.tableName, followed.map((id) => keys.followEdge(id, userId)), { projection: 'pk, sk, atMs' });
    const known = edges
      .flatMap((edge, i) => (edge ? [{ id: followed[i]!, position: keys.followListPosition(edge.atMs as number, followed[i]!) }] : []))
      .filter((entry) => after === null || entry.position < after)
      .sort((a, b) => (a.position < b.position ? 1 : -1));
    return {
      items: known.slice(0, page.first).map((e) => ({ id: e.id, cursor: e.position })),
      hasNextPage: known.length > page.first,
    };
  }

  async knownFollowerCount(viewerId: string, userId: string): Promise<number> {
    // Intersect by reading the shorter of the two lists and checking each entry's edge.
    const [viewer, user] = await this.counts([viewerId, userId]);
    if (viewer!.following <= user!.followers) {
      const followed = await this.wholeList(keys.followingList(viewerId));
      return this.countTrue(followed.map((id) => ({ from: id, to: userId })));
    }
    const followers = await this.wholeList(keys.followersList(userId));
    return this.countTrue(followers.map((id) => ({ from: viewerId, to: id })));
  }

  async mutuals(userId: string, page: PageArgs): Promise<IdPage> {
    return this.filteredPage(keys.followingList(userId), page, (ids) => this.follows(ids.map((id) => ({ from: id, to: userId }))));
  }

  async mutualCount(userId: string): Promise<number> {
    const [counts] = await this.counts([userId]);
    if (counts!.following <= counts!.followers) {
      const followed = await this.wholeList(keys.followingList(userId));
      return this.countTrue(followed.map((id) => ({ from: id, to: userId })));
    }
    const followers = await this.wholeList(keys.followersList(userId));
    return this.countTrue(followers.map((id) => ({ from: userId, to: id })));
  }

  suggestions(viewerId: string, first: number, limits: TraversalLimits): Promise<SuggestedUser[]> {
    return friendsOfFriends(this, viewerId, first, limits);
  }

  shortestPath(from: string, to: string, maxDepth: number, limits: TraversalLimits): Promise<string[] | null> {
    return shortestPath(this, from, to, maxDepth, limits);
  }

  network(args: NetworkArgs, limits: TraversalLimits): Promise<NetworkPage> {
    return networkPage(this, args, limits);
  }

  async neighbours(ids: readonly string[], direction: Direction): Promise<string[][]> {
    return mapConcurrently(ids, HOP_CONCURRENCY, (id) => this.wholeList(direction === 'out' ? keys.followingList(id) : keys.followersList(id)));
  }

  async interests(ids: readonly string[]): Promise<string[][]> {
    const items = await batchGet(this.client, this.tableName, ids.map(keys.graphNode), { projection: 'pk, sk, interests' });
    return items.map((item) => (item?.interests as string[] | undefined) ?? []);
  }

  private async countTrue(pairs: FollowPair[]): Promise<number> {
    if (pairs.length === 0) return 0;
    return (await this.follows(pairs)).filter(Boolean).length;
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

  private async listPage(pk: string, page: PageArgs): Promise<IdPage> {
    const entries = await this.readList(pk, checkedPosition(page.after), page.first + 1);
    return {
      items: entries.slice(0, page.first).map((e) => ({ id: e.id, cursor: e.position })),
      hasNextPage: entries.length > page.first,
    };
  }

  /** A page of the list entries that pass `keep`, read a chunk at a time until the page is full. */
  private async filteredPage(pk: string, page: PageArgs, keep: (ids: string[]) => Promise<boolean[]>): Promise<IdPage> {
    const kept: { id: string; position: string }[] = [];
    let after = checkedPosition(page.after);
    for (;;) {
      const entries = await this.readList(pk, after, SCAN_CHUNK);
      if (entries.length === 0) break;
      const verdicts = await keep(entries.map((e) => e.id));
      entries.forEach((entry, i) => {
        if (verdicts[i]) kept.push(entry);
      });
      if (kept.length > page.first || entries.length < SCAN_CHUNK) break;
      after = entries.at(-1)!.position;
    }
    return {
      items: kept.slice(0, page.first).map((e) => ({ id: e.id, cursor: e.position })),
      hasNextPage: kept.length > page.first,
    };
  }
}

function checkedPosition(after: string | null): string | null {
  if (after !== null && !POSITION.test(after)) throw badInput('after', 'is not a cursor this API gave out');
  return after;
}
