import type { PostRecord } from '../../domain/models.js';
import type { TransactItem } from './counter-items.js';
import { keys } from './keys.js';
import { shardOf } from './shards.js';

export const HOUR_MS = 3_600_000;

/** An hour's counts outlive the longest window TRENDS_WINDOW_HOURS allows (a week), then expire by TTL. */
const TREND_TTL_HOURS = 24 * 7 + 1;

export const hourOf = (ms: number) => Math.floor(ms / HOUR_MS);

/** When an hour's counts expire (epoch seconds, the table's TTL attribute `expiresAt`). */
export const trendExpiresAt = (hour: number) => (hour + TREND_TTL_HOURS) * 3600;

/**
 * What a post's tags add to the tag counts (`delta` 1 when it is written, -1 when it is deleted), for the
 * post's own transaction: for each tag, its count in the post's creation hour (`lastUsedMs` too when
 * written) and its total, both in the post's shard. Spread over `shards` by post id, as hot counters are.
 * Two items a tag: ten tags are 20 of the transaction's 100.
 */
export function tagCountItems(tableName: string, post: PostRecord, shards: number, delta: 1 | -1): TransactItem[] {
  const shard = shardOf(post.id, shards);
  const atMs = Date.parse(post.createdAt);
  const hour = hourOf(atMs);
  return post.tags.flatMap((tag): TransactItem[] => [
    {
      Update: {
        TableName: tableName,
        Key: keys.trendCount(hour, shard, tag),
        UpdateExpression: `ADD #count :delta SET expiresAt = if_not_exists(expiresAt, :expires)${delta > 0 ? ', lastUsedMs = :at' : ''}`,
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: {
          ':delta': delta,
          ':expires': trendExpiresAt(hour),
          ...(delta > 0 ? { ':at': atMs } : {}),
        },
      },
    },
    {
      Update: {
        TableName: tableName,
        Key: keys.tagTotal(tag, shard),
        UpdateExpression: 'ADD #count :delta SET #tag = :tag',
        ExpressionAttributeNames: { '#count': 'count', '#tag': 'tag' },
        ExpressionAttributeValues: { ':delta': delta, ':tag': tag },
      },
    },
  ]);
}

/**
 * The tag counts of posts imported in bulk into a store that holds none (seeding): whole items, as the transactions
 * would have left them at `nowMs`, without the hours whose counts have expired by then (TTL deletes them).
 */
export function importedTagCounts(
  posts: readonly PostRecord[],
  shards: number,
  nowMs: number,
): Record<string, unknown>[] {
  const items = new Map<string, Record<string, unknown>>();
  const itemAt = (key: { pk: string; sk: string }, fields: Record<string, unknown>) => {
    const id = `${key.pk}\n${key.sk}`;
    const item = items.get(id) ?? { ...key, ...fields };
    items.set(id, item);
    return item;
  };
  for (const post of posts) {
    const shard = shardOf(post.id, shards);
    const atMs = Date.parse(post.createdAt);
    const hour = hourOf(atMs);
    const expired = trendExpiresAt(hour) * 1000 <= nowMs;
    for (const tag of post.tags) {
      const total = itemAt(keys.tagTotal(tag, shard), { tag, count: 0 });
      total.count = Number(total.count) + 1;
      if (expired) continue;
      const counted = itemAt(keys.trendCount(hour, shard, tag), { count: 0, expiresAt: trendExpiresAt(hour) });
      counted.count = Number(counted.count) + 1;
      counted.lastUsedMs = Math.max(Number(counted.lastUsedMs ?? 0), atMs);
    }
  }
  return [...items.values()];
}
