import { type AttributeValue, BatchGetItemCommand } from '@aws-sdk/client-dynamodb';
import { type BatchWriteCommand, type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { batchGet, batchWrite, del, importItems, put, writeItems } from '../../src/stores/dynamo/batch.js';

/**
 * DynamoDB Local never leaves keys unprocessed, so the retry paths are checked here against a
 * client that answers like a throttled table: part of each request comes back unprocessed.
 */
function throttlingClient(table: string, items: Map<string, Record<string, unknown>>) {
  const requests: { command: string; size: number }[] = [];
  const client = {
    // No translateConfig: as createDocumentClient leaves unmarshalling.
    config: {},
    async send(command: BatchGetItemCommand | BatchWriteCommand | TransactWriteCommand) {
      if (command instanceof TransactWriteCommand) {
        const writes = command.input.TransactItems!;
        requests.push({ command: 'transact', size: writes.length });
        for (const w of writes) {
          if (w.Put) items.set(w.Put.Item!.pk as string, w.Put.Item!);
          else items.delete(w.Delete!.Key!.pk as string);
        }
        return {};
      }
      // batchGet sends the low-level command, in attribute values, as DynamoDB answers it.
      if (command instanceof BatchGetItemCommand) {
        const keys = command.input.RequestItems![table]!.Keys as Record<string, AttributeValue>[];
        requests.push({ command: 'get', size: keys.length });
        const [served, left] = [keys.slice(0, Math.ceil(keys.length / 2)), keys.slice(Math.ceil(keys.length / 2))];
        const pk = (key: Record<string, AttributeValue>) => unmarshall(key).pk as string;
        return {
          Responses: { [table]: served.flatMap((k) => (items.has(pk(k)) ? [marshall(items.get(pk(k))!)] : [])) },
          UnprocessedKeys: left.length ? { [table]: { Keys: left } } : {},
        };
      }
      const writes = command.input.RequestItems![table]!;
      requests.push({ command: 'write', size: writes.length });
      const [done, left] = [writes.slice(0, Math.ceil(writes.length / 2)), writes.slice(Math.ceil(writes.length / 2))];
      for (const w of done) {
        if (w.PutRequest) items.set(w.PutRequest.Item!.pk as string, w.PutRequest.Item!);
        else items.delete(w.DeleteRequest!.Key!.pk as string);
      }
      return { UnprocessedItems: left.length ? { [table]: left } : {} };
    },
  };
  return { client: client as unknown as DynamoDBDocumentClient, requests };
}

describe('batchGet', () => {
  it('asks for at most 100 keys at a time and retries unprocessed keys until all are read, in the order asked', async () => {
    const stored = new Map(Array.from({ length: 250 }, (_, i) => [`k${i}`, { pk: `k${i}`, sk: 'S', n: i }]));
    const { client, requests } = throttlingClient('t', stored);
    const wanted = [
      ...Array.from({ length: 250 }, (_, i) => ({ pk: `k${249 - i}`, sk: 'S' })),
      { pk: 'missing', sk: 'S' },
    ];
    const found = await batchGet(client, 't', wanted);
    expect(found.map((item) => item?.n)).toEqual([...Array.from({ length: 250 }, (_, i) => 249 - i), undefined]);
    expect(Math.max(...requests.map((r) => r.size))).toBe(100);
    expect(requests.length).toBeGreaterThan(3);
  });
});

describe('batchWrite', () => {
  it('writes at most 25 items at a time and retries unprocessed items until all are written', async () => {
    const stored = new Map<string, Record<string, unknown>>();
    const { client, requests } = throttlingClient('t', stored);
    await batchWrite(client, 't', [
      ...Array.from({ length: 30 }, (_, i) => put({ pk: `p${i}`, sk: 'S' })),
      del({ pk: 'gone', sk: 'S' }),
    ]);
    expect(stored.size).toBe(30);
    expect(Math.max(...requests.map((r) => r.size))).toBe(25);
  });
});

describe('writeItems', () => {
  it.each([
    ['batchWrite', 'write', 25],
    ['transactWrite', 'transact', 100],
  ] as const)('sends puts and deletes in full %s calls', async (api, command, perCall) => {
    const stored = new Map<string, Record<string, unknown>>([['gone', { pk: 'gone', sk: 'S' }]]);
    const { client, requests } = throttlingClient('t', stored);
    await writeItems(
      client,
      't',
      [...Array.from({ length: 229 }, (_, i) => put({ pk: `p${i}`, sk: 'S' })), del({ pk: 'gone', sk: 'S' })],
      api,
    );
    expect([...stored.keys()].sort()).toEqual(Array.from({ length: 229 }, (_, i) => `p${i}`).sort());
    const full = Array.from({ length: Math.ceil(230 / perCall) }, (_, i) => Math.min(perCall, 230 - i * perCall));
    expect(requests.slice(0, full.length)).toEqual(full.map((size) => ({ command, size })));
    expect(requests.every((r) => r.command === command)).toBe(true);
  });
});

describe('importItems', () => {
  // 70 records of 3 items each: 210 items.
  const records = Array.from({ length: 70 }, (_, i) => i);
  const itemsOf = (i: number) => [0, 1, 2].map((n) => ({ pk: `r${i}#${n}`, sk: 'S' }));

  it.each([
    ['batchWrite', 'write', 25],
    ['transactWrite', 'transact', 100],
  ] as const)(
    'packs the items of consecutive records into full %s calls and reports each record once written',
    async (api, command, perCall) => {
      const stored = new Map<string, Record<string, unknown>>();
      const { client, requests } = throttlingClient('t', stored);
      let reported = 0;
      await importItems(client, 't', records, itemsOf, { api, onWritten: (n) => (reported += n) });
      expect(stored.size).toBe(210);
      expect(reported).toBe(70);
      // The first calls carry full loads (BatchWriteItem then sends what came back unprocessed again).
      const full = Array.from({ length: Math.ceil(210 / perCall) }, (_, i) => Math.min(perCall, 210 - i * perCall));
      expect(requests.slice(0, full.length)).toEqual(full.map((size) => ({ command, size })));
      expect(requests.every((r) => r.command === command && r.size <= perCall)).toBe(true);
    },
  );

  it('writes a transactWrite import in key order, each partition together, and reports every record', async () => {
    const sent: string[] = [];
    const client = {
      async send(command: TransactWriteCommand) {
        for (const w of command.input.TransactItems!) sent.push(`${w.Put!.Item!.pk}|${w.Put!.Item!.sk}`);
        return {};
      },
    } as unknown as DynamoDBDocumentClient;
    // Each record has an item in each of three partitions, as a follow has.
    const spread = (i: number) => ['c', 'a', 'b'].map((pk) => ({ pk, sk: String(i).padStart(3, '0') }));
    let reported = 0;
    await importItems(client, 't', records, spread, { api: 'transactWrite', onWritten: (n) => (reported += n) });
    const expected = ['a', 'b', 'c'].flatMap((pk) => records.map((i) => `${pk}|${String(i).padStart(3, '0')}`));
    expect(sent).toEqual(expected);
    expect(reported).toBe(70);
  });
});
