import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { settleAll } from '../../lib/collections.js';
import type { TagCount, TagStore, WindowCounts, WindowReadBound } from '../tag-store.js';
import type { TableOptions } from './client.js';
import { partitions, trendHourPrefix } from './keys.js';
import { hourOf } from './tag-count-items.js';

export interface DynamoTagStoreOptions extends TableOptions {
  /** Shards of each hour's tag counts and of each tag's total (TRENDS_SHARDS): the writers' number. */
  shards: number;
}

/** Sorts after every character a tag may hold (a-z, 0-9, _): the end of an hour's sort keys. */
const AFTER_TAGS = '~';

interface HourCount {
  hour: number;
  tag: string;
  count: number;
  lastUsedMs: number;
}

/** Where the read of one shard's day stands: what to ask next, and from which hour on it has read everything. */
interface ShardRead {
  shard: number;
  start: Record<string, unknown> | undefined;
  done: boolean;
  /** Every count of this hour and the later ones (of the day's range) has been read. */
  completeFrom: number;
}

export class DynamoTagStore implements TagStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly shards: number;

  constructor(options: DynamoTagStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.shards = options.shards;
  }

  /**
   * The window's days newest first, each in rounds of Queries (newest hour first) sent at once: the first
   * round to every shard, the next ones to the shards that have read the least far back, which share out
   * what is left of `bound.maxItems` as their Limits. The read stops before a round the bound cannot pay
   * for; only the hours read in full in every shard are counted.
   */
  async windowCounts(fromMs: number, toMs: number, bound: WindowReadBound): Promise<WindowCounts> {
    const [from, to] = [hourOf(fromMs), hourOf(toMs)];
    const read: HourCount[] = [];
    let queries = 0;
    let counted = to + 1;
    for (let day = Math.floor(to / 24); day >= Math.floor(from / 24); day--) {
      const low = Math.max(from, day * 24);
      const high = Math.min(to, day * 24 + 23);
      const shards: ShardRead[] = Array.from({ length: this.shards }, (_, shard) => ({
        shard,
        start: undefined,
        done: false,
        completeFrom: high + 1,
      }));
      for (let open = shards; open.length > 0; open = open.filter((s) => !s.done)) {
        // The shards furthest behind go on, so that what is left is spent on the newest hours not yet read in full.
        const behind = Math.max(...open.map((s) => s.completeFrom));
        const next = open.filter((s) => s.completeFrom === behind);
        const limit = Math.floor((bound.maxItems - read.length) / next.length);
        if (limit < 1 || queries + next.length > bound.maxQueries) break;
        queries += next.length;
        const pages = await settleAll(next.map((s) => this.hourRange(day, s.shard, low, high, s.start, limit)));
        pages.forEach((page, i) => {
          const s = next[i]!;
          read.push(...page.counts);
          s.start = page.next;
          s.done = page.next === undefined;
          // Read newest first: the last count's hour may go on in the next page, the later ones are whole.
          s.completeFrom = s.done ? low : Math.min(s.completeFrom, (page.counts.at(-1)?.hour ?? high) + 1);
        });
      }
      counted = Math.max(...shards.map((s) => s.completeFrom));
      if (counted > low) break;
    }
    const counts = new Map<string, TagCount>();
    for (const { hour, tag, count, lastUsedMs } of read) {
      if (hour < counted) continue;
      const entry = counts.get(tag) ?? { tag, count: 0, lastUsedMs: null };
      entry.count += count;
      entry.lastUsedMs = Math.max(entry.lastUsedMs ?? 0, lastUsedMs);
      counts.set(tag, entry);
    }
    return { counts: [...counts.values()].filter((entry) => entry.count > 0), hours: to - counted + 1 };
  }

  /** One page of a shard's counts of the hours `low` to `high` of `day`, newest hour first. */
  private async hourRange(
    day: number,
    shard: number,
    low: number,
    high: number,
    start: Record<string, unknown> | undefined,
    limit: number,
  ): Promise<{ counts: HourCount[]; next: Record<string, unknown> | undefined }> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :low AND :high',
        ExpressionAttributeValues: {
          ':pk': partitions.trends(day, shard),
          ':low': trendHourPrefix(low),
          ':high': `${trendHourPrefix(high)}${AFTER_TAGS}`,
        },
        ProjectionExpression: 'sk, #count, lastUsedMs',
        ExpressionAttributeNames: { '#count': 'count' },
        ScanIndexForward: false,
        ExclusiveStartKey: start,
        Limit: limit,
      }),
    );
    const counts = (result.Items ?? []).map((item) => {
      const sk = item.sk as string;
      const separator = sk.indexOf('#');
      return {
        hour: day * 24 + Number(sk.slice(0, separator)),
        tag: sk.slice(separator + 1),
        count: Number(item.count ?? 0),
        lastUsedMs: Number(item.lastUsedMs ?? 0),
      };
    });
    return { counts, next: result.LastEvaluatedKey };
  }

  /** One Query of the tags that share the prefix's first character, `begins_with` the prefix; shards summed. */
  async byPrefix(prefix: string, limit: number): Promise<TagCount[]> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': partitions.tagTotals(prefix), ':prefix': prefix },
        ProjectionExpression: '#tag, #count',
        ExpressionAttributeNames: { '#tag': 'tag', '#count': 'count' },
        Limit: limit,
      }),
    );
    const counts = new Map<string, number>();
    for (const item of result.Items ?? [])
      counts.set(item.tag as string, (counts.get(item.tag as string) ?? 0) + Number(item.count ?? 0));
    return [...counts].filter(([, count]) => count > 0).map(([tag, count]) => ({ tag, count, lastUsedMs: null }));
  }
}
