import type { WriteApi } from '../../../config.js';
import { chunk, mapConcurrently } from '../../../lib/collections.js';
import type { FollowEdge, GraphUser } from '../../graph/graph-store.js';
import { cancellationReasons, importItems, transactWrite } from '../batch.js';
import { type GraphTable, countChanges, followItems, graphNodeItem } from './items.js';

/** Edges per import transaction: three items each plus at most two count updates stay within the 100-item limit. */
const IMPORT_CHUNK = 20;
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
      const deltas = new Map<string, { followerCount: number; followingCount: number; followed: string[] }>();
      const delta = (id: string) =>
        deltas.get(id) ?? deltas.set(id, { followerCount: 0, followingCount: 0, followed: [] }).get(id)!;
      for (const e of pending) {
        delta(e.from).followingCount += 1;
        if (!fullSets.has(e.from)) delta(e.from).followed.push(e.to);
        delta(e.to).followerCount += 1;
      }
      const items = pending.map(followItems);
      const updated = [...deltas];
      try {
        await transactWrite(client, {
          TransactItems: [
            ...items.map(([edge]) => ({
              Put: { TableName: tableName, Item: edge, ConditionExpression: 'attribute_not_exists(pk)' },
            })),
            ...items.flatMap(([, ...entries]) => entries.map((Item) => ({ Put: { TableName: tableName, Item } }))),
            ...updated.map(([userId, d]) => countChanges(this.table, userId, d, d.followed)),
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

  async importGraph(
    users: readonly GraphUser[],
    edges: readonly FollowEdge[],
    onWritten?: (edges: number) => void,
  ): Promise<void> {
    const { client, tableName } = this.table;
    const counts = new Map(users.map((u) => [u.id, { followerCount: 0, followingCount: 0 }]));
    for (const e of edges) {
      counts.get(e.from)!.followingCount += 1;
      counts.get(e.to)!.followerCount += 1;
    }
    const following = new Map<string, string[]>();
    for (const e of edges) (following.get(e.from) ?? following.set(e.from, []).get(e.from)!).push(e.to);
    await importItems(
      client,
      tableName,
      users,
      (u) => [graphNodeItem(u, counts.get(u.id)!, following.get(u.id) ?? [], this.table.followingSetMax)],
      { api: this.importApi },
    );
    await importItems(client, tableName, edges, followItems, { api: this.importApi, onWritten });
  }
}
