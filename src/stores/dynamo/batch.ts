import {
  BatchGetCommand,
  BatchWriteCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { chunk, mapConcurrently } from '../../lib/collections.js';
import type { Key } from './keys.js';

export const BATCH_GET_LIMIT = 100;
export const BATCH_WRITE_LIMIT = 25;
export const TRANSACT_WRITE_LIMIT = 100;
const MAX_ROUNDS = 10;
/** Batch requests in flight at once for one call, so that a huge call (a cleanup, an import) does not flood the table. */
export const BATCH_CONCURRENCY = 16;

type Item = Record<string, unknown>;
export type WriteRequest = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: Key } };

/** Full-jitter exponential backoff: a random wait in [0, base * 2^attempt], capped. */
export function backoffDelay(attempt: number, baseMs = 25, capMs = 2_000): number {
  return Math.random() * Math.min(capMs, baseMs * 2 ** attempt);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const keyOf = (k: Key) => `${k.pk}\u0000${k.sk}`;

/**
 * BatchGetItem for any number of keys: chunks of 100, UnprocessedKeys retried with
 * backoff and jitter. Returns items aligned with `wanted` (undefined where missing).
 */
export async function batchGet(
  client: DynamoDBDocumentClient,
  tableName: string,
  wanted: readonly Key[],
  options: { projection?: string; names?: Record<string, string>; consistent?: boolean } = {},
): Promise<(Item | undefined)[]> {
  const unique = [...new Map(wanted.map((k) => [keyOf(k), { pk: k.pk, sk: k.sk }])).values()];
  const found = new Map<string, Item>();
  await mapConcurrently(chunk(unique, BATCH_GET_LIMIT), BATCH_CONCURRENCY, async (keys) => {
    let pending: Key[] = keys;
    for (let round = 0; pending.length > 0; round++) {
      if (round >= MAX_ROUNDS) throw new Error(`BatchGetItem left ${pending.length} keys unprocessed after ${MAX_ROUNDS} rounds`);
      if (round > 0) await sleep(backoffDelay(round));
      const result = await client.send(
        new BatchGetCommand({
          RequestItems: {
            [tableName]: {
              Keys: pending,
              ConsistentRead: options.consistent,
              ProjectionExpression: options.projection,
              ExpressionAttributeNames: options.names,
            },
          },
        }),
      );
      for (const item of result.Responses?.[tableName] ?? []) found.set(keyOf(item as Key), item);
      pending = (result.UnprocessedKeys?.[tableName]?.Keys as Key[] | undefined) ?? [];
    }
  });
  return wanted.map((k) => found.get(keyOf(k)));
}

/** BatchWriteItem for any number of puts and deletes: chunks of 25, UnprocessedItems retried with backoff and jitter. */
export async function batchWrite(client: DynamoDBDocumentClient, tableName: string, requests: readonly WriteRequest[]): Promise<void> {
  await mapConcurrently(chunk(requests, BATCH_WRITE_LIMIT), BATCH_CONCURRENCY, async (batch) => {
    let pending: WriteRequest[] = batch;
    for (let round = 0; pending.length > 0; round++) {
      if (round >= MAX_ROUNDS) throw new Error(`BatchWriteItem left ${pending.length} items unprocessed after ${MAX_ROUNDS} rounds`);
      if (round > 0) await sleep(backoffDelay(round));
      const result = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (result.UnprocessedItems?.[tableName] as WriteRequest[] | undefined) ?? [];
    }
  });
}

/**
 * How a store sends many independent puts and deletes. `batch`: BatchWriteItem, 25 items a
 * request — on DynamoDB half the write capacity of a transaction. `transaction`:
 * TransactWriteItems, 100 items a request — DynamoDB Local commits each item of a
 * BatchWriteItem on its own but a transaction once, which makes it several times faster
 * there (see Performance in the README). Either way each item is an idempotent put or delete.
 */
export type WriteApi = 'batch' | 'transaction';

/** Puts and deletes with the chosen write API, at most BATCH_CONCURRENCY requests in flight; the items must be distinct. */
export async function writeItems(client: DynamoDBDocumentClient, tableName: string, requests: readonly WriteRequest[], api: WriteApi): Promise<void> {
  if (api === 'batch') return batchWrite(client, tableName, requests);
  await mapConcurrently(chunk(requests, TRANSACT_WRITE_LIMIT), BATCH_CONCURRENCY, (part) =>
    transactWrite(client, {
      TransactItems: part.map((request) =>
        'PutRequest' in request ? { Put: { TableName: tableName, Item: request.PutRequest.Item } } : { Delete: { TableName: tableName, Key: request.DeleteRequest.Key } },
      ),
    }),
  );
}

export const put = (Item: Item): WriteRequest => ({ PutRequest: { Item } });
export const del = (key: Key): WriteRequest => ({ DeleteRequest: { Key: { pk: key.pk, sk: key.sk } } });

/** Why each item of a cancelled transaction failed, aligned with its TransactItems ('None' for those that did not). */
export function cancellationReasons(error: unknown): string[] | null {
  if (!(error instanceof TransactionCanceledException)) return null;
  return (error.CancellationReasons ?? []).map((r) => r.Code ?? 'None');
}

/**
 * TransactWriteItems that retries when it only lost a race with another transaction
 * (TransactionConflict), which concurrent writes to one hot item produce. Any other
 * cancellation — a failed condition above all — is thrown for the caller to interpret.
 */
export async function transactWrite(client: DynamoDBDocumentClient, input: TransactWriteCommandInput): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await client.send(new TransactWriteCommand(input));
      return;
    } catch (error) {
      const reasons = cancellationReasons(error);
      const onlyConflicts = reasons !== null && reasons.includes('TransactionConflict') && !reasons.includes('ConditionalCheckFailed');
      if (!onlyConflicts || attempt >= 12) throw error;
      await sleep(backoffDelay(attempt, 10, 500));
    }
  }
}
