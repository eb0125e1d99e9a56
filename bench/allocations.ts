/**
 * `npx tsx bench/allocations.ts [--data-dir …] [--pages N]` (alone; not part of `npm run bench`): the memory a home
 * page allocates in the service and in Apollo's floor with the page's store requests (bench/apollo-floor-server.ts),
 * on a data set the benchmark seeded (the quick one by default). Each runs as the benchmark measures it, with an
 * inspector port; after warm-up, V8's sampling heap profiler records N pages, counting objects garbage collection
 * has already freed, and the total a page is printed by package. Sampling slows a page about tenfold.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Tokens } from '../src/auth/tokens.js';
import { createLogger } from '../src/logger.js';
import { startEmbeddedEngine } from '../src/stores/dynamo/embedded-engine.js';
import { startApolloFloor } from './apollo-floor.js';
import { capturePage } from './cpu-per-page.js';
import { pageRequest } from './home-vs-floor.js';
import { round } from './loops.js';
import {
  BENCH_SECRET,
  MEASURED_AS_IN_PRODUCTION,
  ROOT,
  type Service,
  log,
  sleep,
  startService,
  stopService,
} from './service.js';

const { values: flags } = parseArgs({
  options: {
    'data-dir': { type: 'string', default: '.data/bench-u1100-f10000-p1000-l1000-s42-d30' },
    pages: { type: 'string', default: '400' },
  },
});
const PAGES = Number(flags.pages);
const WARMUP_MS = 10_000;
const SAMPLING_BYTES = 8192;
const PORTS = { service: 9341, floor: 9342 };

interface ProfileNode {
  callFrame: { url: string };
  selfSize: number;
  children?: ProfileNode[];
}

/** One DevTools protocol session over the inspector's WebSocket. */
async function inspectorOf(port: number) {
  let targets: { webSocketDebuggerUrl: string }[] | null = null;
  for (let attempt = 0; !targets && attempt < 50; attempt++)
    targets = await fetch(`http://127.0.0.1:${port}/json/list`).then(
      (response) => response.json() as Promise<{ webSocketDebuggerUrl: string }[]>,
      () => sleep(200).then(() => null),
    );
  if (!targets?.[0]) throw new Error(`no inspector on port ${port}`);
  const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((opened) => socket.addEventListener('open', opened, { once: true }));
  const waiting = new Map<number, (result: unknown) => void>();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result ?? message.error);
  });
  let lastId = 0;
  return {
    call: <T>(method: string, params: object = {}) =>
      new Promise<T>((answered) => {
        const id = ++lastId;
        waiting.set(id, answered as (result: unknown) => void);
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}

/** Where an allocation's function lives: its npm package, `node:` for Node's own, `service`, or `native`. */
function ownerOf(url: string): string {
  if (!url) return 'native';
  const installed = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (installed) return installed[1]!;
  return url.startsWith('node:') ? 'node:' : 'service';
}

async function allocatedByPage(service: Service, port: number, token: string): Promise<Map<string, number>> {
  const page = pageRequest(service.url, token);
  for (const started = Date.now(); Date.now() - started < WARMUP_MS;) await page();
  const inspector = await inspectorOf(port);
  try {
    await inspector.call('HeapProfiler.enable');
    await inspector.call('HeapProfiler.startSampling', {
      samplingInterval: SAMPLING_BYTES,
      includeObjectsCollectedByMinorGC: true,
      includeObjectsCollectedByMajorGC: true,
    });
    for (let i = 0; i < PAGES; i++) await page();
    const { profile } = await inspector.call<{ profile: { head: ProfileNode } }>('HeapProfiler.stopSampling');
    const bytes = new Map<string, number>();
    const walk = (node: ProfileNode) => {
      const owner = ownerOf(node.callFrame.url);
      bytes.set(owner, (bytes.get(owner) ?? 0) + node.selfSize);
      for (const child of node.children ?? []) walk(child);
    };
    walk(profile.head);
    return bytes;
  } finally {
    inspector.close();
  }
}

const dataDir = join(ROOT, flags['data-dir']);
const manifest = JSON.parse(readFileSync(join(dataDir, 'bench-manifest.json'), 'utf8')) as { viewerId: string };
const engine = await startEmbeddedEngine({ dataDir, logger: createLogger('warn') });
try {
  const token = await new Tokens(BENCH_SECRET, 3600).issue(manifest.viewerId);
  const captured = await capturePage(engine.endpoint, token, {});
  const sides: [string, Map<string, number>][] = [];
  const service = await startService(engine.endpoint, {
    ...MEASURED_AS_IN_PRODUCTION,
    NODE_OPTIONS: `--inspect=127.0.0.1:${PORTS.service}`,
  });
  try {
    sides.push(['the service', await allocatedByPage(service, PORTS.service, token)]);
  } finally {
    await stopService(service);
  }
  process.env.NODE_OPTIONS = `--inspect=127.0.0.1:${PORTS.floor}`;
  const floor = await startApolloFloor({
    answer: captured.answer as never,
    calls: { endpoint: engine.endpoint, requests: captured.requests },
  }).finally(() => delete process.env.NODE_OPTIONS);
  try {
    sides.push(["Apollo's floor with the page's requests", await allocatedByPage(floor, PORTS.floor, token)]);
  } finally {
    await stopService(floor);
  }
  log(`${PAGES} pages each, sampled every ${SAMPLING_BYTES} bytes`);
  const kb = (bytes: number) => round(bytes / PAGES / 1024, 0);
  const owners = [...new Set(sides.flatMap(([, bytes]) => [...bytes.keys()]))]
    .map((owner) => ({ owner, most: Math.max(...sides.map(([, bytes]) => bytes.get(owner) ?? 0)) }))
    .filter(({ most }) => kb(most) >= 5)
    .sort((a, b) => b.most - a.most);
  console.log(`| KB a page | ${sides.map(([name]) => name).join(' | ')} |\n|---|${sides.map(() => '---:|').join('')}`);
  const total = (bytes: Map<string, number>) => [...bytes.values()].reduce((sum, value) => sum + value, 0);
  console.log(`| all | ${sides.map(([, bytes]) => kb(total(bytes))).join(' | ')} |`);
  for (const { owner } of owners)
    console.log(`| ${owner} | ${sides.map(([, bytes]) => kb(bytes.get(owner) ?? 0)).join(' | ')} |`);
} finally {
  await engine.stop();
}
