import { GetCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { emptyCost, withCostMeter } from '../../src/observability/cost.js';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { FairSends } from '../../src/stores/dynamo/fair-sends.js';
import { stallingProxy } from '../helpers/stalling-proxy.js';

/** Requests to a table that need not exist: the engine's answer (an error) is not what these tests look at. */
const TABLE = 'fair_sends_none';
const cleanups: (() => void)[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** No retries and no timeout while a test holds the engine's answers, unless it asks for one. */
const PATIENT = { connectMs: 10_000, attemptMs: 60_000, maxAttempts: 1, totalMs: 60_000 };
const POLL = { timeout: 10_000, interval: 20 };

async function stalledClient(atOnce: number) {
  const proxy = await stallingProxy(inject('dynamodbEndpoint'));
  const fairSends = new FairSends(atOnce);
  const clientWith = (totalMs = PATIENT.totalMs) => {
    const client = createDocumentClient({
      endpoint: proxy.endpoint,
      tableName: TABLE,
      timeouts: { ...PATIENT, totalMs },
      fairSends,
    });
    cleanups.push(() => client.destroy());
    return client;
  };
  cleanups.push(() => {
    proxy.resume();
    proxy.close();
  });
  proxy.stall();
  return { proxy, client: clientWith(), clientWith };
}

const get = (id: number) => new GetCommand({ TableName: TABLE, Key: { pk: `P#${id}`, sk: 'S' } });
const query = () =>
  new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'P' } });
/** `answered` when the engine answered (it has no such table), else the error's code or name. */
const settled = (sent: Promise<unknown>) =>
  sent.then(
    () => 'answered',
    (error: { name?: string; code?: string }) =>
      error.name === 'ResourceNotFoundException' ? 'answered' : (error.code ?? error.name),
  );

describe('DynamoDB requests of GraphQL operations', () => {
  it("send a small operation's request while a large one's backlog waits, the large one holding three quarters of the slots", async () => {
    const { proxy, client } = await stalledClient(8);
    const large = withCostMeter(emptyCost(), () => Array.from({ length: 20 }, (_, i) => settled(client.send(get(i)))));
    await expect.poll(() => proxy.targets.length, POLL).toBe(6);
    const small = withCostMeter(emptyCost(), () => settled(client.send(query())));
    await expect.poll(() => proxy.targets.includes('Query'), POLL).toBe(true);
    // Unshared, all 20 of the large operation would have gone out before it, and its request would wait behind them.
    expect(proxy.targets.filter((target) => target === 'GetItem')).toHaveLength(6);
    proxy.resume();
    expect(await small).toBe('answered');
    expect(await Promise.all(large)).toEqual(Array(20).fill('answered'));
    expect(proxy.targets).toHaveLength(21);
  });

  it("share three quarters of the slots among one client's operations, and serve its newer operation before its backlog", async () => {
    const { proxy, client } = await stalledClient(8);
    // The order the slots let requests go, which the proxy may see otherwise: two sent in one tick may swap on the way.
    const released: string[] = [];
    client.middlewareStack.add(
      (next, context) => (args) => {
        released.push(context.commandName!);
        return next(args);
      },
      { step: 'deserialize', name: 'released' },
    );
    const ofClient = (name: string) => ({ ...emptyCost(), client: name });
    const backlog = withCostMeter(ofClient('user:ada'), () =>
      Array.from({ length: 20 }, (_, i) => settled(client.send(get(i)))),
    );
    await expect.poll(() => proxy.targets.length, POLL).toBe(6);
    const newer = withCostMeter(ofClient('user:ada'), () => settled(client.send(query())));
    const other = withCostMeter(ofClient('addr:192.0.2.1'), () =>
      settled(client.send(new ScanCommand({ TableName: TABLE }))),
    );
    await expect.poll(() => proxy.targets.includes('Scan'), POLL).toBe(true);
    // Sent before the other client's Scan, ada's second operation waits: ada has its six.
    expect(proxy.targets.includes('Query')).toBe(false);
    proxy.resume();
    expect(await Promise.all([newer, other, ...backlog])).toEqual(Array(22).fill('answered'));
    // ada's first slot to come free went to its newer operation, not to the rest of its backlog (14 GetItems).
    expect(released.indexOf('QueryCommand')).toBe(7);
  });

  it('take a waiting request out of the queue when its call is abandoned, as SERVICE_UNAVAILABLE', async () => {
    const { proxy, client } = await stalledClient(1);
    const abandon = new AbortController();
    const [first, waiting] = withCostMeter(emptyCost(), () => [
      settled(client.send(get(1))),
      settled(client.send(get(2), { abortSignal: abandon.signal })),
    ]);
    await expect.poll(() => proxy.targets.length, POLL).toBe(1);
    abandon.abort();
    expect(await waiting).toBe('SERVICE_UNAVAILABLE');
    proxy.resume();
    expect(await first).toBe('answered');
    expect(proxy.targets).toEqual(['GetItem']);
  });

  it('do not take a wait for a slot past the deadline for DynamoDB not answering', async () => {
    const { proxy, client, clientWith } = await stalledClient(1);
    const hurried = clientWith(300);
    const holding = withCostMeter(emptyCost(), () => settled(client.send(get(0))));
    await expect.poll(() => proxy.targets.length, POLL).toBe(1);
    // Five in a row that DynamoDB let pass their deadline would open the client's circuit (it would fail fast).
    const waited = withCostMeter(emptyCost(), () =>
      Array.from({ length: 5 }, (_, i) => settled(hurried.send(get(i + 1)))),
    );
    expect(await Promise.all(waited)).toEqual(Array(5).fill('SERVICE_UNAVAILABLE'));
    proxy.resume();
    expect(await holding).toBe('answered');
    expect(await withCostMeter(emptyCost(), () => settled(hurried.send(get(9))))).toBe('answered');
    expect(proxy.targets).toEqual(['GetItem', 'GetItem']);
  });

  it('leave the circuit able to probe again after a probe that waited for a slot past its deadline', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { proxy, client, clientWith } = await stalledClient(1);
    const hurried = clientWith(200);
    // Five calls that DynamoDB lets pass their deadline open the client's circuit: the next fails at once, unsent.
    const silent = Array.from({ length: 5 }, (_, i) => settled(hurried.send(get(i))));
    expect(await Promise.all(silent)).toEqual(Array(5).fill('SERVICE_UNAVAILABLE'));
    expect(await settled(hurried.send(get(5)))).toBe('SERVICE_UNAVAILABLE');
    expect(proxy.targets).toHaveLength(5);
    vi.setSystemTime(Date.now() + 1_500);
    // The probe waits for the slot another operation holds until its deadline: that says nothing of DynamoDB.
    const holding = withCostMeter(emptyCost(), () => settled(client.send(get(6))));
    await expect.poll(() => proxy.targets.length, POLL).toBe(6);
    expect(await withCostMeter(emptyCost(), () => settled(hurried.send(get(7))))).toBe('SERVICE_UNAVAILABLE');
    proxy.resume();
    expect(await holding).toBe('answered');
    // The circuit lets the next call probe: it is sent, not refused unsent. (Whether it answers within 200 ms while the
    // engine works off the held requests depends on the machine's load.)
    await settled(hurried.send(get(8)));
    expect(proxy.targets).toHaveLength(7);
  });

  it('are not held outside an operation (the worker, health checks, scripts)', async () => {
    const { proxy, client } = await stalledClient(1);
    const sent = Array.from({ length: 5 }, (_, i) => settled(client.send(get(i))));
    await expect.poll(() => proxy.targets.length, POLL).toBe(5);
    proxy.resume();
    expect(await Promise.all(sent)).toEqual(Array(5).fill('answered'));
  });
});
