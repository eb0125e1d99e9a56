import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TagCount, TagStore } from '../tag-store.js';
import type { ItemReader } from './batch-reader.js';
import type { TableOptions } from './client.js';
import { keys, partitions } from './keys.js';
import { hourOf } from './tag-count-items.js';

export interface DynamoTagStoreOptions extends TableOptions {
  /** Shards of each hour's bucket and of each tag's total (TRENDS_SHARDS): the writers' number. */
  shards: number;
  reader: ItemReader;
}

const COUNT = 't_';
const LAST_USE = 'l_';

export class DynamoTagStore implements TagStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly shards: number;
  private readonly reader: ItemReader;

  constructor(options: DynamoTagStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.shards = options.shards;
    this.reader = options.reader;
  }

  /** Every bucket of the window, in one batch (BatchGetItem takes 100 keys: 24 hours of 4 shards is one request). */
  async windowCounts(fromMs: number, toMs: number): Promise<TagCount[]> {
    const bucketKeys = [];
    for (let hour = hourOf(fromMs); hour <= hourOf(toMs); hour++) {
      for (let shard = 0; shard < this.shards; shard++) bucketKeys.push(keys.trendBucket(hour, shard));
    }
    const counts = new Map<string, TagCount>();
    for (const item of await this.reader.get(bucketKeys)) {
      for (const [name, value] of Object.entries(item ?? {})) {
        if (!name.startsWith(COUNT) && !name.startsWith(LAST_USE)) continue;
        const tag = name.slice(2);
        const entry = counts.get(tag) ?? { tag, count: 0, lastUsedMs: null };
        if (name.startsWith(COUNT)) entry.count += Number(value);
        else entry.lastUsedMs = Math.max(entry.lastUsedMs ?? 0, Number(value));
        counts.set(tag, entry);
      }
    }
    return [...counts.values()].filter((entry) => entry.count > 0);
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
