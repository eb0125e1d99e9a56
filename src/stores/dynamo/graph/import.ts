import type { WriteApi } from '../../../config.js';
import { chunk, mapConcurrently } from '../../../lib/collections.js';
import type { FollowEdge, GraphUser } from '../../graph/graph-store.js';
import { TRANSACT_WRITE_LIMIT, cancellationReasons, importItems, transactWrite } from '../batch.js';
import { keys } from '../keys.js';
import {
  type FollowCounter,
  type GraphTable,
  followItems,
  followingChange,
  graphNodeItem,
  profileCountsChange,
} from './items.js';

/** Edges per import transaction: three items each, a node update per follower and two profile updates stay within the 100-item limit. */
const IMPORT_CHUNK = 16;
/** Import transactions in flight at once. */
const IMPORT_CONCURRENCY = 8;

/** Follows and users written in bulk: imports and the seed. */
export class GraphImport {
  constructor(
    private readonly table: GraphTable,
    private readonly importApi: WriteApi,
  ) {}

  async importFollows(edges: readonly FollowEdge[]): Promise<number> {
    // The first of repeated pairs wins, as if the follows had been made one by one.
    const byPair = new Map<string, FollowEdge>();
    for (const e of edges) if (!byPair.has(`${e.from}>${e.to}`)) byPair.set(`${e.from}>${e.to}`, e);
    const unique = [...byPair.values()];
    const added = await mapConcurrently(chunk(unique, IMPORT_CHUNK), IMPORT_CONCURRENCY, (part) =>
      this.importChunk(part),
    );
    return added.reduce((sum, n) => sum + n, 0);
  }

  /**
   * One transaction for a chunk of edges, their list entries and the summed count changes, so
   * the counts agree with the lists even if the import stops half-way. Edges that already
   * exist fail their condition; the chunk is retried without them.
   */
  private async importChunk(edges: readonly FollowEdge[]): Promise<number> {
    const { client, tableName } = this.table;
    let pending = [...edges];
    // Followers whose following set cannot take this chunk's follows: they are only counted.
    const fullSets = new Set<string>();
    while (pending.length > 0) {
      const followed = new Map<string, string[]>();
      const counts = new Map<string, Record<FollowCounter, number>>();
      const count = (id: string) => counts.get(id) ?? counts.set(id, { followerCount: 0, followingCount: 0 }).get(id)!;
      for (const e of pending) {
        (followed.get(e.from) ?? followed.set(e.from, []).get(e.from)!).push(e.to);
        count(e.from).followingCount += 1;
        count(e.to).followerCount += 1;
      }
      const items = pending.map(followItems);
      const followers = [...followed];
      try {
        await transactWrite(client, {
          TransactItems: [
            ...items.map(([edge]) => ({
              Put: { TableName: tableName, Item: edge, ConditionExpression: 'attribute_not_exists(pk)' },
            })),
            ...items.flatMap(([, ...entries]) => entries.map((Item) => ({ Put: { TableName: tableName, Item } }))),
            ...followers.map(([userId, ids]) =>
              followingChange(this.table, userId, ids.length, fullSets.has(userId) ? [] : ids),
            ),
            ...[...counts].map(([userId, deltas]) => profileCountsChange(tableName, userId, deltas)),
          ],
        });
        return pending.length;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (!reasons?.includes('ConditionalCheckFailed')) throw error;
        // Edges that exist already are dropped; a node update that failed has a full following set.
        followers.forEach(([userId], i) => {
          if (reasons[3 * items.length + i] === 'ConditionalCheckFailed') fullSets.add(userId);
        });
        pending = pending.filter((_, i) => reasons[i] !== 'ConditionalCheckFailed');
      }
    }
    return 0;
  }

  async importGraph(
    users: readonly GraphUser[],
    edges: readonly FollowEdge[],
    onWritten?: (edges: number) => void,
  ): Promise<void> {
    const { client, tableName } = this.table;
    const counts = new Map(users.map((u) => [u.id, { followerCount: 0, followingCount: 0 }]));
    const following = new Map<string, string[]>();
    for (const e of edges) {
      counts.get(e.from)!.followingCount += 1;
      counts.get(e.to)!.followerCount += 1;
      (following.get(e.from) ?? following.set(e.from, []).get(e.from)!).push(e.to);
    }
    await importItems(
      client,
      tableName,
      users,
      (u) => [graphNodeItem(u, following.get(u.id) ?? [], this.table.followingSetMax)],
      { api: this.importApi },
    );
    // Set, not added: an import written twice leaves what writing it once does.
    await mapConcurrently(chunk(users, TRANSACT_WRITE_LIMIT), IMPORT_CONCURRENCY, (part) =>
      transactWrite(client, {
        TransactItems: part.map((u) => ({
          Update: {
            TableName: tableName,
            Key: keys.user(u.id),
            UpdateExpression: 'SET followerCount = :followers, followingCount = :following',
            ExpressionAttributeValues: {
              ':followers': counts.get(u.id)!.followerCount,
              ':following': counts.get(u.id)!.followingCount,
            },
          },
        })),
      }),
    );
    await importItems(client, tableName, edges, followItems, { api: this.importApi, onWritten });
  }
}
