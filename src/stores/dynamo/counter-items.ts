import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys.js';

/**
 * The pieces of a post's counters that other writes put into their own transactions, so
 * that a post and its counters, or a comment and its count, change together or not at all.
 */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export type CounterField = 'likeCount' | 'viewCount' | 'commentCount' | 'repostCount';

/** The updates that change counts and nothing else of their item, a post's or a profile's (see isCountsUpdate). */
export const COUNTS_UPDATES = {
  add: 'ADD #field :delta',
  follows: 'ADD followerCount :followers, followingCount :following',
  react: 'SET reactions.#kind = if_not_exists(reactions.#kind, :zero) + :one',
  unreact: 'SET reactions.#kind = if_not_exists(reactions.#kind, :zero) - :one',
} as const;

/** Does an update change only counts? A cache then keeps the rest of the item (see cache-invalidation.ts). */
export function isCountsUpdate(expression: unknown): boolean {
  return Object.values(COUNTS_UPDATES).some((update) => update === expression);
}

/** The counters a post item holds from its creation: where writes go while the post has one shard. */
export function postCounterFields(
  counts: Partial<Record<CounterField, number>> = {},
): Record<CounterField, number> & { reactions: Record<string, number> } {
  // An empty `reactions` map, so that a reaction of a kind never seen before is one
  // `SET reactions.#kind = ...` — no chain of conditional updates to create the map first.
  return {
    likeCount: counts.likeCount ?? 0,
    viewCount: counts.viewCount ?? 0,
    commentCount: counts.commentCount ?? 0,
    repostCount: counts.repostCount ?? 0,
    reactions: {},
  };
}

/**
 * A post with one shard keeps its counts on its own item, so reading the post reads them. A hot
 * post (`shards` > 1) has separate shard items `0..shards-1`, at zero, besides what its item held
 * before it was raised. Readers sum the post item and the shard items.
 */
export function counterShardItems(postId: string, shards: number, from = 0): Record<string, unknown>[] {
  if (shards <= 1) return [];
  return Array.from({ length: shards - from }, (_, n) => ({
    ...keys.counterShard(postId, from + n),
    ...postCounterFields(),
  }));
}

/** Creates a new post's separate counter shards, all at zero, failing if they exist. */
export function counterShardPuts(tableName: string, postId: string, shards: number): TransactItem[] {
  return counterShardItems(postId, shards).map((Item) => ({
    Put: { TableName: tableName, Item, ConditionExpression: 'attribute_not_exists(pk)' },
  }));
}

/**
 * Raises a post's counter shards from `from` to `to` in one transaction, conditioned on `from`, so two
 * instances raise once. Shards only grow and counts never move, so none is lost (see docs/design/counters.md).
 */
export function counterShardRaise(tableName: string, postId: string, from: number, to: number): TransactItem[] {
  // An old post without counterShards has one shard.
  const unchanged =
    from === 1
      ? 'attribute_exists(pk) AND (attribute_not_exists(counterShards) OR counterShards = :from)'
      : 'attribute_exists(pk) AND counterShards = :from';
  return [
    {
      Update: {
        TableName: tableName,
        Key: keys.post(postId),
        UpdateExpression: 'SET counterShards = :to',
        ConditionExpression: unchanged,
        ExpressionAttributeValues: { ':from': from, ':to': to },
      },
    },
    // From one shard (the post item) every separate shard is new; from more, those past `from`.
    ...counterShardItems(postId, to, from === 1 ? 0 : from).map((Item) => ({
      Put: { TableName: tableName, Item, ConditionExpression: 'attribute_not_exists(pk)' },
    })),
  ];
}

/** The separate shards a post's deletion takes with it. */
export function counterShardDeletes(tableName: string, postId: string, shards: number): TransactItem[] {
  return counterShardItems(postId, shards).map((item) => ({
    Delete: { TableName: tableName, Key: { pk: item.pk as string, sk: item.sk as string } },
  }));
}

/** Where one counter write goes: the post item while it has one shard, else a separate shard at random, so that concurrent writes to one hot post land on different items. */
export function counterTarget(postId: string, shards: number) {
  return shards <= 1 ? keys.post(postId) : keys.counterShard(postId, Math.floor(Math.random() * shards));
}

/** Adds `delta` to one counter of the post (see counterTarget); fails the transaction if the post's counters are gone. */
export function counterIncrement(
  tableName: string,
  postId: string,
  shards: number,
  field: CounterField,
  delta: number,
): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: counterTarget(postId, shards),
      UpdateExpression: COUNTS_UPDATES.add,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#field': field },
      ExpressionAttributeValues: { ':delta': delta },
    },
  };
}
