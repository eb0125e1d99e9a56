import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ItemCache } from '../cache/item-cache.js';
import { cacheKeyOf, countsCacheKeyOf } from './cached-reader.js';
import { isCountsUpdate } from './counter-items.js';
import { type Key, cachedKindOf } from './keys.js';

type Input = Record<string, unknown>;
type KeyAttributes = { pk?: unknown; sk?: unknown } | undefined;

/** A key attribute as the document client holds it: a string, or its marshalled `{ S }`. */
function stringOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { S?: unknown }).S === 'string')
    return (value as { S: string }).S;
  return undefined;
}

function keyOf(attributes: KeyAttributes): Key | null {
  const pk = stringOf(attributes?.pk);
  const sk = stringOf(attributes?.sk);
  return pk !== undefined && sk !== undefined ? { pk, sk } : null;
}

type Written = { key: Key | null; countsOnly?: boolean };
type UpdateInput = { Key?: KeyAttributes; UpdateExpression?: unknown };

const updated = (update: UpdateInput): Written => ({
  key: keyOf(update.Key),
  countsOnly: isCountsUpdate(update.UpdateExpression),
});

/** The keys an item write names: Put's item, Update's and Delete's key, each one of a transaction or batch. */
function writtenKeys(command: string, input: Input): Written[] {
  switch (command) {
    case 'PutItemCommand':
      return [{ key: keyOf(input.Item as KeyAttributes) }];
    case 'UpdateItemCommand':
      return [updated(input as UpdateInput)];
    case 'DeleteItemCommand':
      return [{ key: keyOf(input.Key as KeyAttributes) }];
    case 'TransactWriteItemsCommand':
      return (
        (input.TransactItems ?? []) as Record<string, { Item?: KeyAttributes; Key?: KeyAttributes } | undefined>[]
      ).map((item) =>
        item.Update ? updated(item.Update as UpdateInput) : { key: keyOf(item.Put?.Item ?? item.Delete?.Key) },
      );
    case 'BatchWriteItemCommand':
      return Object.values(
        (input.RequestItems ?? {}) as Record<
          string,
          { PutRequest?: { Item: KeyAttributes }; DeleteRequest?: { Key: KeyAttributes } }[]
        >,
      )
        .flat()
        .map((request) => ({ key: keyOf(request.PutRequest?.Item ?? request.DeleteRequest?.Key) }));
    default:
      return [];
  }
}

/**
 * Invalidates the cache before every write that may change a cached item (no reader sees the old item) and
 * after it (an overlapping read cannot refill it). The write returns only after both.
 */
export function addCacheInvalidation(client: DynamoDBDocumentClient, cache: ItemCache): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      // A counter write changes only a post's or a profile's counts (ReadOptions.counters): the rest of the item stays cached.
      const cached = writtenKeys(context.commandName ?? '', args.input as Input).flatMap(({ key, countsOnly }) => {
        const kind = key && cachedKindOf(key);
        if (!kind) return [];
        const counts = kind === 'post' || kind === 'counter' || kind === 'user';
        return countsOnly && counts ? [countsCacheKeyOf(key)] : [cacheKeyOf(key), countsCacheKeyOf(key)];
      });
      if (cached.length === 0) return next(args);
      await cache.invalidate(cached);
      try {
        return await next(args);
      } finally {
        await cache.invalidate(cached);
      }
    },
    { step: 'initialize', name: 'cacheInvalidation' },
  );
}
