/**
 * `npx tsx bench/cpu-breakdown.ts [--data-dir .data/bench-…]` (alone; not part of `npm run bench`): where the
 * service's CPU per page goes beside its store calls, on a data set the benchmark seeded (the quick one by default).
 * In rotating windows at one connection, the CPU of:
 * - the page's captured store requests sent by a bare low-level client in the page's waves (the benchmark's replay)
 *   and all at once, and by the service's own document client (`createDocumentClient`) in the page's waves and one
 *   after another: what the calls themselves cost, and what their order adds;
 * - `{ __typename }`, whose one store request is the account check, from the service and that request from the bare
 *   client: what a request costs the service before any field;
 * - the page from the service.
 * The service runs as the benchmark measures it: compiled and as in production (`NODE_ENV=production`), without the
 * worker.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandInput,
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { Tokens } from '../src/auth/tokens.js';
import { createLogger } from '../src/logger.js';
import { createDocumentClient } from '../src/stores/dynamo/client.js';
import { startEmbeddedEngine } from '../src/stores/dynamo/embedded-engine.js';
import { type CapturedRequest, byWave, capturePage, describeWaves, replayRequest } from './cpu-per-page.js';
import { CpuMeter } from './cpu.js';
import { pageRequest } from './home-vs-floor.js';
import { type Window, round, runLoops, summarize } from './loops.js';
import { BENCH_SECRET, MEASURED_AS_IN_PRODUCTION, ROOT, gql, log, startService, stopService } from './service.js';

const { values: flags } = parseArgs({
  options: { 'data-dir': { type: 'string', default: '.data/bench-u1100-f10000-p1000-l1000-s42-d30' } },
});
const ROUNDS = 6;
const WINDOW_S = 2.5;
const TYPENAME = '{ __typename }';

const unmarshalled = (value: unknown) => (value ? unmarshall(value as Record<string, AttributeValue>) : undefined);

/** Sends the same request through a document client, as the service's stores send it. */
function sendAsDocument(client: DynamoDBDocumentClient, { operation, input }: CapturedRequest): Promise<unknown> {
  if (operation === 'Query')
    return client.send(
      new QueryCommand({
        ...(input as unknown as QueryCommandInput),
        ExpressionAttributeValues: unmarshalled(input.ExpressionAttributeValues),
        ExclusiveStartKey: unmarshalled(input.ExclusiveStartKey),
      }),
    );
  if (operation === 'BatchGetItem') {
    const reads = Object.entries(input.RequestItems as Record<string, { Keys: Record<string, AttributeValue>[] }>);
    const RequestItems = Object.fromEntries(
      reads.map(([table, read]) => [table, { ...read, Keys: read.Keys.map((key) => unmarshall(key)) }]),
    );
    return client.send(new BatchGetCommand({ ...(input as unknown as BatchGetCommandInput), RequestItems }));
  }
  throw new Error(`no document command for ${operation}`);
}

const dataDir = join(ROOT, flags['data-dir']);
const manifest = JSON.parse(readFileSync(join(dataDir, 'bench-manifest.json'), 'utf8')) as { viewerId: string };
const engine = await startEmbeddedEngine({ dataDir, logger: createLogger('warn') });
const token = await new Tokens(BENCH_SECRET, 3600).issue(manifest.viewerId);
const typename = async (url: string) => {
  const answer = await gql(url, TYPENAME, {}, token);
  if (answer.errors) throw new Error(JSON.stringify(answer.errors));
};
const captured = await capturePage(engine.endpoint, token, { typename });
const pageRequests = captured.requests;
const typenameRequests = captured.others.typename;
const service = await startService(engine.endpoint, MEASURED_AS_IN_PRODUCTION);
const document = createDocumentClient({ endpoint: engine.endpoint, tableName: 'unused' });
const bare = replayRequest(engine.endpoint, pageRequests);
const bareAtOnce = replayRequest(
  engine.endpoint,
  pageRequests.map((request) => ({ ...request, wave: 1 })),
);
const bareTypename = replayRequest(engine.endpoint, typenameRequests);
try {
  const serviceCpu = new CpuMeter({ service: service.child.pid });
  const own = new CpuMeter({});
  const sides = [
    { name: "page requests, bare client, in the page's waves", run: bare.replay, cpu: own, key: 'client' },
    { name: 'page requests, bare client, all at once', run: bareAtOnce.replay, cpu: own, key: 'client' },
    {
      name: "page requests, the service's document client, in the page's waves",
      run: async () => {
        for (const wave of byWave(pageRequests))
          await Promise.all(wave.map((request) => sendAsDocument(document, request)));
      },
      cpu: own,
      key: 'client',
    },
    {
      name: "page requests, the service's document client, one after another",
      run: async () => {
        for (const request of pageRequests) await sendAsDocument(document, request);
      },
      cpu: own,
      key: 'client',
    },
    { name: '{ __typename }, the service', run: () => typename(service.url), cpu: serviceCpu, key: 'service' },
    { name: "{ __typename }'s request, bare client", run: bareTypename.replay, cpu: own, key: 'client' },
    { name: 'the page, the service', run: pageRequest(service.url, token), cpu: serviceCpu, key: 'service' },
  ].map((side) => ({ ...side, windows: [] as Window[] }));
  log(`page requests, by wave: ${describeWaves(pageRequests)}`);
  for (const side of sides) await runLoops(1, WINDOW_S, side.run, side.cpu);
  for (let r = 0; r < ROUNDS; r++)
    for (let i = 0; i < sides.length; i++) {
      const side = sides[(r + i) % sides.length]!;
      side.windows.push(await runLoops(1, WINDOW_S, side.run, side.cpu));
    }
  console.log('| what | per s | CPU ms each |\n|---|---:|---:|');
  for (const side of sides) {
    const summary = summarize(1, side.windows);
    console.log(`| ${side.name} | ${round(summary.perSecond, 1)} | ${summary.cpuMsPerOperation[side.key] ?? '—'} |`);
  }
} finally {
  bare.close();
  bareAtOnce.close();
  bareTypename.close();
  document.destroy();
  await stopService(service);
  await engine.stop();
}
