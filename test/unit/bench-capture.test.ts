import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { type CapturedRequest, byWave, captureProxy, describeWaves, replayProcess } from '../../bench/cpu-per-page.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/stores/dynamo/embedded-engine.js';

// Long enough that the test's own 50 ms pause never ends a wave, even on a busy machine.
const proxy = await captureProxy(inject('dynamodbEndpoint'), 1_000);
const client = new DynamoDBClient({
  endpoint: proxy.endpoint,
  region: LOCAL_REGION,
  credentials: LOCAL_CREDENTIALS,
  maxAttempts: 1,
});
const list = (limit: number) => client.send(new ListTablesCommand({ Limit: limit }));
const limits = (requests: CapturedRequest[]) => requests.map((request) => [request.input.Limit, request.wave]);

afterAll(async () => {
  client.destroy();
  await proxy.close();
});

describe("the benchmark's capture of a page's waves", () => {
  it('puts a request sent after an answer came back from the engine in the same wave, unless it awaited it', async () => {
    const requests = await proxy.record(async () => {
      const first = list(1);
      // The engine answers the first meanwhile; the proxy holds that answer, so the second cannot have needed it.
      await new Promise((paused) => setTimeout(paused, 50));
      await Promise.all([first, list(2)]);
      await list(3);
    });
    expect(limits(requests)).toEqual([
      [1, 1],
      [2, 1],
      [3, 2],
    ]);
    expect(describeWaves(requests)).toBe('ListTables, ListTables → ListTables');
  });

  it('passes requests straight through when it does not record', async () => {
    await expect(list(1)).resolves.toHaveProperty('TableNames');
    expect(await proxy.record(async () => {})).toEqual([]);
  });

  it('groups requests by wave, first wave first, whatever their order', () => {
    const request = (limit: number, wave: number) => ({ operation: 'ListTables', input: { Limit: limit }, wave });
    expect(byWave([request(3, 2), request(1, 1), request(2, 2)]).map((wave) => wave.map((r) => r.input.Limit))).toEqual(
      [[1], [3, 2]],
    );
  });

  it(
    'replays captured requests in a process of its own, wave by wave, its CPU read from /proc',
    // The replay process is compiled first (tsc, about 20 s on an idle two-core machine).
    { timeout: 180_000 },
    async () => {
      const requests: CapturedRequest[] = [
        { operation: 'ListTables', input: { Limit: 1 }, wave: 1 },
        { operation: 'ListTables', input: { Limit: 2 }, wave: 1 },
        { operation: 'ListTables', input: { Limit: 3 }, wave: 2 },
      ];
      const replay = await replayProcess(proxy.endpoint, requests);
      try {
        // Recorded, each wave's answers are held for a second: the window ends within the first replay.
        const seen = await proxy.record(async () => {
          await replay.window(0.5);
        });
        expect(limits(seen).sort()).toEqual([
          [1, 1],
          [2, 1],
          [3, 2],
        ]);
        const window = await replay.window(0.5);
        expect(window.failures).toBe(0);
        expect(window.latencies.length).toBeGreaterThan(1);
        expect(window.cpuMs.get('client')).toBeGreaterThan(0);
      } finally {
        replay.close();
      }
    },
  );
});
