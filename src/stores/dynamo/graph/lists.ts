import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { badInput } from '../../../domain/errors.js';
import { idPattern } from '../../../domain/ids.js';
import { mapConcurrently } from '../../../lib/collections.js';
import {
  type IdPage,
  type NewerPageArgs,
  type PageArgs,
  type ReadBudget,
  type RelationKind,
  chargeListPage,
} from '../../graph/graph-store.js';
import type { Direction } from '../../graph/traversal.js';
import { BATCH_GET_LIMIT, batchGet } from '../batch.js';
import { type RelationDirection, keys } from '../keys.js';
import { type GraphTable, type Item, completeFollowingSet } from './items.js';

/** How many list queries one traversal hop runs at once. */
const HOP_CONCURRENCY = 16;
/** Positions as followListPosition builds them; anything else is not a cursor we gave out. */
const POSITION = new RegExp(`^\\d{15}#${idPattern('usr')}$`);

export interface ListEntry {
  id: string;
  position: string;
}

export function checkedPosition(position: string | null, field = 'after'): string | null {
  if (position !== null && !POSITION.test(position)) throw badInput(field, 'is not a cursor this API gave out');
  return position;
}

/** Every entry of a user's relation list, both directions; charged to `budget` as they arrive, when given. */
export async function relationEntries(
  table: Pick<GraphTable, 'client' | 'tableName'>,
  kind: RelationKind,
  userId: string,
  budget: ReadBudget | null,
): Promise<{ id: string; direction: RelationDirection }[]> {
  const entries: { id: string; direction: RelationDirection }[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await table.client.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.relationList(kind, userId) },
        ProjectionExpression: 'sk, userId',
        ExclusiveStartKey: startKey,
      }),
    );
    const items = (result.Items ?? []) as Item[];
    budget?.charge(0, items.length);
    for (const item of items)
      entries.push({ id: item.userId as string, direction: (item.sk as string).startsWith('OUT#') ? 'OUT' : 'IN' });
    startKey = result.LastEvaluatedKey;
  } while (startKey);
  return entries;
}

/** The follow and relation lists, newest first, page by page or whole, and the adjacency the traversals walk. */
export class GraphLists {
  constructor(private readonly table: GraphTable) {}

  async followers(userId: string, page: PageArgs | NewerPageArgs, budget: ReadBudget): Promise<IdPage> {
    return this.listPage(keys.followersList(userId), page, budget);
  }

  async following(userId: string, page: PageArgs | NewerPageArgs, budget: ReadBudget): Promise<IdPage> {
    return this.listPage(keys.followingList(userId), page, budget);
  }

  async related(
    kind: RelationKind,
    userId: string,
    page: PageArgs | NewerPageArgs,
    budget: ReadBudget,
  ): Promise<IdPage> {
    if ('last' in page) return this.newerPage(keys.relationList(kind, userId), page, budget, 'OUT#');
    const after = checkedPosition(page.after);
    chargeListPage(budget, page.first);
    // Newest first from below `after` (or the top of the OUT entries); IN entries sort below every OUT entry, so reading stops at the first.
    const result = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.tableName,
        KeyConditionExpression: 'pk = :pk AND sk < :below',
        ExpressionAttributeValues: {
          ':pk': keys.relationList(kind, userId),
          ':below': keys.relationListPosition('OUT', after ?? '~'),
        },
        ProjectionExpression: 'sk, userId',
        ScanIndexForward: false,
        Limit: page.first + 1,
      }),
    );
    const made = ((result.Items ?? []) as Item[]).filter((item) => (item.sk as string).startsWith('OUT#'));
    return {
      items: made
        .slice(0, page.first)
        .map((item) => ({ id: item.userId as string, cursor: (item.sk as string).slice('OUT#'.length) })),
      hasNextPage: made.length > page.first,
    };
  }

  async relatedCount(kind: RelationKind, userId: string, budget: ReadBudget): Promise<number> {
    budget.charge(1, 0);
    let count = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const result = await this.table.client.send(
        new QueryCommand({
          TableName: this.table.tableName,
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
    const entries = await relationEntries(this.table, kind, userId, budget);
    return [...new Set(entries.map((e) => e.id))];
  }

  async relationEntries(kind: RelationKind, userId: string): Promise<{ id: string; direction: RelationDirection }[]> {
    return relationEntries(this.table, kind, userId, null);
  }

  /** Each list sorted by id. */
  async neighbours(ids: readonly string[], direction: Direction): Promise<string[][]> {
    return direction === 'in' ? this.followersLists(ids) : this.countedFollowing(ids, () => {});
  }

  /** One BatchGetItem: the traversals ask countedFollowing for at most this many users, so at most this many sets are read before a charge. */
  readonly countedFollowingMax = BATCH_GET_LIMIT;

  /**
   * Following lists read with their counts from the nodes' following sets; only users whose set is incomplete
   * have their list queried, after the charge.
   */
  async countedFollowing(ids: readonly string[], chargeEdges: (degreeSum: number) => void): Promise<string[][]> {
    const nodes = await batchGet(this.table.client, this.table.tableName, ids.map(keys.graphNode), {
      projection: 'pk, sk, followingCount, followingIds',
    });
    chargeEdges(nodes.reduce((sum, node) => sum + Number(node?.followingCount ?? 0), 0));
    const sets = nodes.map(completeFollowingSet);
    return sortedById(
      await mapConcurrently(ids, HOP_CONCURRENCY, async (id, i) => sets[i] ?? this.wholeList(keys.followingList(id))),
    );
  }

  private async followersLists(ids: readonly string[]): Promise<string[][]> {
    return sortedById(await mapConcurrently(ids, HOP_CONCURRENCY, (id) => this.wholeList(keys.followersList(id))));
  }

  async interests(ids: readonly string[]): Promise<string[][]> {
    const items = await batchGet(this.table.client, this.table.tableName, ids.map(keys.graphNode), {
      projection: 'pk, sk, interests',
    });
    return items.map((item) => (item?.interests as string[] | undefined) ?? []);
  }

  /** Up to `limit` (null: all) entries of a list partition, newest first, starting after `after` (a position). */
  async readList(pk: string, after: string | null, limit: number | null): Promise<ListEntry[]> {
    const entries: ListEntry[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const result = await this.table.client.send(
        new QueryCommand({
          TableName: this.table.tableName,
          KeyConditionExpression: after === null ? 'pk = :pk' : 'pk = :pk AND sk < :after',
          ExpressionAttributeValues: after === null ? { ':pk': pk } : { ':pk': pk, ':after': after },
          ProjectionExpression: 'sk, userId',
          ScanIndexForward: false,
          Limit: limit === null ? undefined : limit - entries.length,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of (result.Items ?? []) as Item[])
        entries.push({ id: item.userId as string, position: item.sk as string });
      startKey = result.LastEvaluatedKey;
    } while (startKey && (limit === null || entries.length < limit));
    return entries;
  }

  private async wholeList(pk: string): Promise<string[]> {
    return (await this.readList(pk, null, null)).map((e) => e.id);
  }

  private async listPage(pk: string, page: PageArgs | NewerPageArgs, budget: ReadBudget): Promise<IdPage> {
    if ('last' in page) return this.newerPage(pk, page, budget);
    const after = checkedPosition(page.after);
    chargeListPage(budget, page.first);
    const entries = await this.readList(pk, after, page.first + 1);
    return {
      items: entries.slice(0, page.first).map((e) => ({ id: e.id, cursor: e.position })),
      hasNextPage: entries.length > page.first,
    };
  }

  /** Upwards from `before`, within the entries under `prefix` (a relation list keeps what was made under OUT#). */
  private async newerPage(pk: string, page: NewerPageArgs, budget: ReadBudget, prefix = ''): Promise<IdPage> {
    const before = checkedPosition(page.before, 'before')!;
    chargeListPage(budget, page.last);
    const result = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :before AND :end',
        ExpressionAttributeValues: { ':pk': pk, ':before': `${prefix}${before}#`, ':end': `${prefix}~` },
        ProjectionExpression: 'sk, userId',
        ScanIndexForward: true,
        Limit: page.last + 1,
      }),
    );
    const oldestFirst = ((result.Items ?? []) as Item[]).map((item) => ({
      id: item.userId as string,
      cursor: (item.sk as string).slice(prefix.length),
    }));
    return {
      items: oldestFirst.slice(0, page.last).reverse(),
      hasNextPage: false,
      hasPreviousPage: oldestFirst.length > page.last,
    };
  }
}

const compareIds = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const sortedById = (lists: string[][]) => lists.map((list) => list.sort(compareIds));
