import type { PostRecord } from '../../domain/models.js';
import type { TransactItem } from './counter-items.js';
import { keys } from './keys.js';
import { shardOf } from './shards.js';

export const HOUR_MS = 3_600_000;

/** An hour's bucket outlives the longest window TRENDS_WINDOW_HOURS allows (a week), then expires by TTL. */
const BUCKET_TTL_HOURS = 24 * 7 + 1;

export const hourOf = (ms: number) => Math.floor(ms / HOUR_MS);

/** A tag's counter in an hour's bucket, and the time it was last used. */
export const countAttribute = (tag: string) => `t_${tag}`;
export const lastUseAttribute = (tag: string) => `l_${tag}`;

/**
 * What a post's tags add to the tag counts (`delta` 1 when it is written, -1 when it is deleted), for the
 * post's own transaction: its creation hour's bucket (one item: the post's shard of that hour) and each
 * tag's total (the post's shard of it). Spread over `shards` by post id, as hot counters are.
 */
export function tagCountItems(tableName: string, post: PostRecord, shards: number, delta: 1 | -1): TransactItem[] {
  if (post.tags.length === 0) return [];
  const shard = shardOf(post.id, shards);
  const atMs = Date.parse(post.createdAt);
  const names: Record<string, string> = {};
  const adds: string[] = [];
  const sets = ['expiresAt = if_not_exists(expiresAt, :expires)'];
  post.tags.forEach((tag, i) => {
    names[`#t${i}`] = countAttribute(tag);
    adds.push(`#t${i} :delta`);
    if (delta > 0) {
      names[`#l${i}`] = lastUseAttribute(tag);
      sets.push(`#l${i} = :at`);
    }
  });
  const bucket: TransactItem = {
    Update: {
      TableName: tableName,
      Key: keys.trendBucket(hourOf(atMs), shard),
      UpdateExpression: `ADD ${adds.join(', ')} SET ${sets.join(', ')}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: {
        ':delta': delta,
        ':expires': (hourOf(atMs) + BUCKET_TTL_HOURS) * 3600,
        ...(delta > 0 ? { ':at': atMs } : {}),
      },
    },
  };
  const totals: TransactItem[] = post.tags.map((tag) => ({
    Update: {
      TableName: tableName,
      Key: keys.tagTotal(tag, shard),
      UpdateExpression: 'ADD #count :delta SET #tag = :tag',
      ExpressionAttributeNames: { '#count': 'count', '#tag': 'tag' },
      ExpressionAttributeValues: { ':delta': delta, ':tag': tag },
    },
  }));
  return [bucket, ...totals];
}

/** The tag counts of posts imported in bulk into a store that holds none (seeding): whole items, as the transactions would have left them. */
export function importedTagCounts(posts: readonly PostRecord[], shards: number): Record<string, unknown>[] {
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
    const bucket = itemAt(keys.trendBucket(hourOf(atMs), shard), {
      expiresAt: (hourOf(atMs) + BUCKET_TTL_HOURS) * 3600,
    });
    for (const tag of post.tags) {
      bucket[countAttribute(tag)] = Number(bucket[countAttribute(tag)] ?? 0) + 1;
      bucket[lastUseAttribute(tag)] = Math.max(Number(bucket[lastUseAttribute(tag)] ?? 0), atMs);
      const total = itemAt(keys.tagTotal(tag, shard), { tag, count: 0 });
      total.count = Number(total.count) + 1;
    }
  }
  return [...items.values()];
}
