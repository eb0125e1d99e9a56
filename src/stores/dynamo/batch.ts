import {
  BatchWriteCommand,
  QueryCommand,
  ScanCommand,
  type ScanCommandInput,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import {
  type AttributeValue,
  BatchGetItemCommand,
  type BatchGetItemCommandOutput,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { WriteApi } from '../../config.js';
import { chunk, mapConcurrently } from '../../lib/collections.js';
import type { Key } from './keys.js';

export const BATCH_GET_LIMIT = 100;
export const BATCH_WRITE_LIMIT = 25;
export const TRANSACT_WRITE_LIMIT = 100;
const MAX_ROUNDS = 10;
/** Batch requests in flight at once for one call, so that a huge call (a cleanup, an import) does not flood the table. */
export const BATCH_CONCURRENCY = 16;
/** Import calls in flight at once: enough to keep the engine busy between commits. */
const IMPORT_CONCURRENCY = 16;
/**
 * How whole-table scans of scripts page: DynamoDB Local slows down badly on long or unlimited pages, so
 * short pages in parallel segments (see docs/design/blocks-and-mutes.md#relation-sets-embedded-backend).
 */
export const SCAN_SEGMENTS = 16;
export const SCAN_PAGE_ITEMS = 5_000;

type Item = Record<string, unknown>;
export type WriteRequest = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: Key } };

/** Full-jitter exponential backoff: a random wait in [0, base * 2^attempt], capped. */
export function backoffDelay(attempt: number, baseMs = 25, capMs = 2_000): number {
  return Math.random() * Math.min(capMs, baseMs * 2 ** attempt);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const keyOf = (k: Key) => `${k.pk}\u0000${k.sk}`;

const toAttributes = (k: Key): Record<string, AttributeValue> => ({ pk: { S: k.pk }, sk: { S: k.sk } });
const fromAttributes = (k: Record<string, AttributeValue>): Key => ({ pk: k.pk!.S!, sk: k.sk!.S! });

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
  // The document client's own options, as its commands would convert items.
  const unmarshallOptions = client.config.translateConfig?.unmarshallOptions;
  await mapConcurrently(chunk(unique, BATCH_GET_LIMIT), BATCH_CONCURRENCY, async (keys) => {
    let pending: Key[] = keys;
    for (let round = 0; pending.length > 0; round++) {
      if (round >= MAX_ROUNDS)
        throw new Error(`BatchGetItem left ${pending.length} keys unprocessed after ${MAX_ROUNDS} rounds`);
      if (round > 0) await sleep(backoffDelay(round));
      // The low-level command through the document client's middleware (deadlines, cost, fair sends): its keys and
      // items converted here directly, without its generic walk over input and output (about 2% of a page's CPU).
      const command = new BatchGetItemCommand({
        RequestItems: {
          [tableName]: {
            Keys: pending.map(toAttributes),
            ConsistentRead: options.consistent,
            ProjectionExpression: options.projection,
            ExpressionAttributeNames: options.names,
          },
        },
      });
      const result = (await client.send(command as never)) as BatchGetItemCommandOutput;
      for (const attributes of result.Responses?.[tableName] ?? []) {
        const item = unmarshall(attributes, unmarshallOptions);
        found.set(keyOf(item as Key), item);
      }
      pending = (result.UnprocessedKeys?.[tableName]?.Keys ?? []).map(fromAttributes);
    }
  });
  return wanted.map((k) => found.get(keyOf(k)));
}

/**
 * Independent idempotent puts and deletes go out with BULK_WRITE_API: BatchWriteItem is cheapest on DynamoDB,
 * TransactWriteItems faster on DynamoDB Local (see docs/performance.md). Items of one call need distinct keys.
 */
const itemsPerCall = (api: WriteApi) => (api === 'batchWrite' ? BATCH_WRITE_LIMIT : TRANSACT_WRITE_LIMIT);

/** One call of the write API: a BatchWriteItem sent again with what came back unprocessed until nothing does, or one TransactWriteItems. */
async function sendWrites(
  client: DynamoDBDocumentClient,
  tableName: string,
  requests: readonly WriteRequest[],
  api: WriteApi,
): Promise<void> {
  if (api === 'transactWrite') {
    const TransactItems = requests.map((request) =>
      'PutRequest' in request
        ? { Put: { TableName: tableName, Item: request.PutRequest.Item } }
        : { Delete: { TableName: tableName, Key: request.DeleteRequest.Key } },
    );
    return transactWrite(client, { TransactItems });
  }
  let pending = requests;
  for (let round = 0; pending.length > 0; round++) {
    if (round >= MAX_ROUNDS)
      throw new Error(`BatchWriteItem left ${pending.length} items unprocessed after ${MAX_ROUNDS} rounds`);
    if (round > 0) await sleep(backoffDelay(round));
    const result = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: [...pending] } }));
    pending = (result.UnprocessedItems?.[tableName] as WriteRequest[] | undefined) ?? [];
  }
}

/** Any number of puts and deletes with the write API, in full calls, at most BATCH_CONCURRENCY in flight. */
export async function writeItems(
  client: DynamoDBDocumentClient,
  tableName: string,
  requests: readonly WriteRequest[],
  api: WriteApi,
): Promise<void> {
  await mapConcurrently(chunk(requests, itemsPerCall(api)), BATCH_CONCURRENCY, (part) =>
    sendWrites(client, tableName, part, api),
  );
}

/** BatchWriteItem for any number of puts and deletes: chunks of 25, UnprocessedItems retried with backoff and jitter. */
export function batchWrite(
  client: DynamoDBDocumentClient,
  tableName: string,
  requests: readonly WriteRequest[],
): Promise<void> {
  return writeItems(client, tableName, requests, 'batchWrite');
}

export interface ImportOptions {
  api: WriteApi;
  /** Told how many more records are written, as they are. */
  onWritten?: (records: number) => void;
}

/**
 * Writes the items of many records (each record gives one or more items) in full calls of the write API. Plain puts
 * without conditions: for new items that no other writer touches (an import into an empty store). With
 * transactWrite (DynamoDB Local's API) all the records' items go in key order, so that SQLite adds to a few pages
 * of its indexes per commit instead of pages all over them (see docs/running.md, Speed); with batchWrite
 * (DynamoDB's), items of consecutive records, which spread over partitions.
 */
export async function importItems<T>(
  client: DynamoDBDocumentClient,
  tableName: string,
  records: Iterable<T>,
  itemsOf: (record: T) => Item[],
  options: ImportOptions,
): Promise<void> {
  const calls =
    options.api === 'transactWrite'
      ? keyOrderCalls(records, itemsOf, TRANSACT_WRITE_LIMIT)
      : packCalls(records, itemsOf, itemsPerCall(options.api));
  // Lanes pull the next call from one shared generator, so calls are built only as they are sent.
  const lane = async () => {
    for (let next = calls.next(); !next.done; next = calls.next()) {
      if (next.value.items.length > 0) await sendWrites(client, tableName, next.value.items.map(put), options.api);
      if (next.value.records > 0) options.onWritten?.(next.value.records);
    }
  };
  await Promise.all(Array.from({ length: IMPORT_CONCURRENCY }, lane));
}

/** Groups the records' items into calls of `perCall` items; `records` counts the records whose last item is in the call. */
function* packCalls<T>(
  records: Iterable<T>,
  itemsOf: (record: T) => Item[],
  perCall: number,
): Generator<{ items: Item[]; records: number }> {
  let items: Item[] = [];
  let finished = 0;
  for (const record of records) {
    for (const item of itemsOf(record)) {
      if (items.length === perCall) {
        yield { items, records: finished };
        items = [];
        finished = 0;
      }
      items.push(item);
    }
    finished += 1;
  }
  if (items.length > 0 || finished > 0) yield { items, records: finished };
}

const byKey = (a: Item, b: Item) => {
  const [pa, pb, sa, sb] = [a.pk as string, b.pk as string, a.sk as string, b.sk as string];
  return pa < pb ? -1 : pa > pb ? 1 : sa < sb ? -1 : sa > sb ? 1 : 0;
};

/** Every item of the records in key order, in calls of `perCall`; a call counts records in proportion to its items. */
function* keyOrderCalls<T>(
  records: Iterable<T>,
  itemsOf: (record: T) => Item[],
  perCall: number,
): Generator<{ items: Item[]; records: number }> {
  const items: Item[] = [];
  let count = 0;
  for (const record of records) {
    for (const item of itemsOf(record)) items.push(item);
    count += 1;
  }
  items.sort(byKey);
  let reported = 0;
  for (let start = 0; start < items.length; start += perCall) {
    const end = Math.min(items.length, start + perCall);
    const done = Math.floor((count * end) / items.length);
    yield { items: items.slice(start, end), records: done - reported };
    reported = done;
  }
  if (reported < count) yield { items: [], records: count - reported };
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
      const onlyConflicts =
        reasons !== null && reasons.includes('TransactionConflict') && !reasons.includes('ConditionalCheckFailed');
      if (!onlyConflicts || attempt >= 12) throw error;
      await sleep(backoffDelay(attempt, 10, 500));
    }
  }
}

/**
 * A whole-table scan's items, a page at a time: segment after segment, so that the pages stay short and the caller's
 * writes keep pace (see SCAN_SEGMENTS).
 */
export async function* scanPages(
  client: DynamoDBDocumentClient,
  tableName: string,
  input: Omit<ScanCommandInput, 'TableName' | 'Segment' | 'TotalSegments' | 'ExclusiveStartKey' | 'Limit'>,
): AsyncGenerator<Record<string, unknown>[]> {
  for (let segment = 0; segment < SCAN_SEGMENTS; segment++) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new ScanCommand({
          ...input,
          TableName: tableName,
          Segment: segment,
          TotalSegments: SCAN_SEGMENTS,
          ExclusiveStartKey: start,
          Limit: SCAN_PAGE_ITEMS,
        }),
      );
      yield page.Items ?? [];
      start = page.LastEvaluatedKey;
    } while (start);
  }
}

/** Every item a Query matches, page after page (or the first `max`). */
export async function queryItems(
  client: DynamoDBDocumentClient,
  tableName: string,
  input: Omit<QueryCommandInput, 'TableName'>,
  max = Infinity,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const result = await client.send(new QueryCommand({ ...input, TableName: tableName, ExclusiveStartKey: start }));
    items.push(...(result.Items ?? []));
    start = result.LastEvaluatedKey;
  } while (start && items.length < max);
  return items.slice(0, max);
}
