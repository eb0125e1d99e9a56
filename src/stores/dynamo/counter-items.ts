import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys.js';

/**
 * The pieces of a post's counters that other writes put into their own transactions, so
 * that a post and its counters, or a comment and its count, change together or not at all.
 */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export type CounterField = 'likeCount' | 'viewCount' | 'commentCount' | 'repostCount';

/**
 * A new post's counter shards, holding `counts` spread over them. Each starts with an empty
 * `reactions` map, so that a reaction of a kind never seen before is one
 * `ADD reactions.#kind :1` — no chain of conditional updates to create the map first.
 */
export function counterShardItems(
  postId: string,
  shards: number,
  counts: Partial<Record<CounterField, number>> = {},
): Record<string, unknown>[] {
  const share = (total: number, shard: number) => Math.floor(total / shards) + (shard < total % shards ? 1 : 0);
  return Array.from({ length: shards }, (_, shard) => ({
    ...keys.counterShard(postId, shard),
    likeCount: share(counts.likeCount ?? 0, shard),
    viewCount: share(counts.viewCount ?? 0, shard),
    commentCount: share(counts.commentCount ?? 0, shard),
    repostCount: share(counts.repostCount ?? 0, shard),
    reactions: {},
  }));
}

/** Creates a new post's counter shards, all at zero, failing if they exist. */
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
    {
      Update: {
        TableName: tableName,
        Key: keys.counterShard(postId, 0),
        UpdateExpression: 'SET shards = :to',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':to': to },
      },
    },
    ...counterShardItems(postId, to)
      .slice(from)
      .map((Item) => ({ Put: { TableName: tableName, Item, ConditionExpression: 'attribute_not_exists(pk)' } })),
  ];
}

export function counterShardDeletes(tableName: string, postId: string, shards: number): TransactItem[] {
  return Array.from({ length: shards }, (_, shard) => ({
    Delete: { TableName: tableName, Key: keys.counterShard(postId, shard) },
  }));
}

/** A shard chosen at random, so that concurrent writes to one hot post land on different items. */
export function randomShard(shards: number): number {
  return Math.floor(Math.random() * shards);
}

/** Adds `delta` to one counter of the post, on a random shard; fails the transaction if the post's counters are gone. */
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
      Key: keys.counterShard(postId, randomShard(shards)),
      UpdateExpression: 'ADD #field :delta',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#field': field },
      ExpressionAttributeValues: { ':delta': delta },
    },
  };
}
