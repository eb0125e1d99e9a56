/**
 * `npx tsx bench/engine-writes.ts [--items 30000] [--rounds 5] [--one-core] [--shapes]` (alone; not part of
 * `npm run bench`): what one written item costs the embedded DynamoDB Local, the bound on the seed's speed (docs/running.md, Speed).
 * It starts the engine on a new data directory, as the service creates one, and writes home timeline entries through
 * the seed's `importItems` (16 calls in flight a table written), in three ways that alternate in rounds:
 * - TransactWriteItems of 100 into one table, in key order (the seed's way on DynamoDB Local);
 * - BatchWriteItem of 25 into one table;
 * - TransactWriteItems of 100, half of the items into each of two tables at once.
 * A round of each way warms the engine first. It prints, medians of the rounds, the wall time and the engine's CPU
 * per item, and how busy the engine's one SQLite thread was. `--one-core` runs the engine as the seed does (`oneCore`).
 * `--shapes` compares items instead, all written the seed's way: whole home entries (6 attributes), their keys only,
 * and their keys with a 300-byte string.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type WriteApi, loadConfig } from '../src/config.js';
import { idFrom } from '../src/domain/ids.js';
import { createLogger } from '../src/logger.js';
import { Random } from '../src/seed/random.js';
import { importItems } from '../src/stores/dynamo/batch.js';
import { createDocumentClient, dynamoTimeoutsOf } from '../src/stores/dynamo/client.js';
import { homeEntryItem } from '../src/stores/dynamo/dynamo-home-entries.js';
import { startEmbeddedEngine } from '../src/stores/dynamo/embedded-engine.js';
import { ensureTable } from '../src/stores/dynamo/tables.js';
import { dynamoDbLocalPid, processCpuMs, threadCpuMs } from './cpu.js';
import { median } from './loops.js';
import { BULK_TIMEOUTS } from './service.js';

const { values: flags } = parseArgs({
  options: {
    items: { type: 'string', default: '30000' },
    rounds: { type: 'string', default: '5' },
    'one-core': { type: 'boolean', default: false },
    shapes: { type: 'boolean', default: false },
  },
});
const ITEMS = Number(flags.items);
const ROUNDS = Number(flags.rounds);
if (!(Number.isInteger(ITEMS) && ITEMS >= 2 && Number.isInteger(ROUNDS) && ROUNDS >= 1))
  throw new Error('--items takes a whole number of at least 2, --rounds one of at least 1');
const READERS = 2_000;
const TABLES = ['engine-writes-a', 'engine-writes-b'];

const dataDir = mkdtempSync(join(tmpdir(), 'engine-writes-'));
const engine = await startEmbeddedEngine({
  dataDir,
  logger: createLogger('warn'),
  oneCore: flags['one-core'],
}).catch((error: unknown) => {
  rmSync(dataDir, { recursive: true, force: true });
  throw error;
});
const timeouts = dynamoTimeoutsOf(loadConfig(BULK_TIMEOUTS));
const clients = TABLES.map((tableName) => createDocumentClient({ endpoint: engine.endpoint, tableName, timeouts }));

const random = new Random(42);
const readers = Array.from({ length: READERS }, () => idFrom('usr', Date.now(), () => random.next()));
const startMs = Date.now() - 30 * 86_400_000;
/** `count` home entries of random readers, as the seed writes them. */
function entries(count: number) {
  return Array.from({ length: count }, () => {
    const atMs = startMs + random.below(30 * 86_400_000);
    return homeEntryItem({
      userId: random.pick(readers),
      postId: idFrom('pst', atMs, () => random.next()),
      authorId: random.pick(readers),
      counterShards: null,
      expiresAt: Math.floor(atMs / 1000) + 30 * 86_400,
    });
  });
}

const write = (table: number, api: WriteApi, items: object[]) =>
  importItems(clients[table]!, TABLES[table]!, items, (item) => [item as Record<string, unknown>], { api });

const keysOf = (item: object) => {
  const { pk, sk } = item as { pk: string; sk: string };
  return { pk, sk };
};
const shapes = [
  { name: 'whole home entries', run: (items: object[]) => write(0, 'transactWrite', items) },
  { name: 'their keys only', run: (items: object[]) => write(0, 'transactWrite', items.map(keysOf)) },
  {
    name: 'their keys and a 300-byte string',
    run: (items: object[]) =>
      write(
        0,
        'transactWrite',
        items.map((i) => ({ ...keysOf(i), text: 'x'.repeat(300) })),
      ),
  },
];
const apis = [
  { name: 'TransactWriteItems of 100, one table', run: (items: object[]) => write(0, 'transactWrite', items) },
  { name: 'BatchWriteItem of 25, one table', run: (items: object[]) => write(0, 'batchWrite', items) },
  {
    name: 'TransactWriteItems of 100, two tables at once',
    run: (items: object[]) =>
      Promise.all([
        write(0, 'transactWrite', items.slice(0, items.length / 2)),
        write(1, 'transactWrite', items.slice(items.length / 2)),
      ]),
  },
];
const ways = flags.shapes ? shapes : apis;

interface Round {
  wallUs: number;
  engineUs: number;
  sqliteUs: number;
}

/** The rounds of each way, after a round of each that warms the engine's JIT and is not counted. */
async function measure(pid: number): Promise<Round[][]> {
  const sqliteCpuMs = () => threadCpuMs(pid, 'SQLiteQueue') ?? Number.NaN;
  for (const way of ways) await way.run(entries(ITEMS));
  const rounds = ways.map(() => [] as Round[]);
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < ways.length; k++) {
      const i = (k + r) % ways.length;
      const items = entries(ITEMS);
      const [engineBefore, sqliteBefore, started] = [processCpuMs(pid)!, sqliteCpuMs(), performance.now()];
      await ways[i]!.run(items);
      const wallMs = performance.now() - started;
      const perItem = (ms: number) => (ms * 1000) / ITEMS;
      rounds[i]!.push({
        wallUs: perItem(wallMs),
        engineUs: perItem(processCpuMs(pid)! - engineBefore),
        sqliteUs: perItem(sqliteCpuMs() - sqliteBefore),
      });
    }
  }
  return rounds;
}

let rounds: Round[][];
try {
  const pid = dynamoDbLocalPid(engine.endpoint);
  if (pid === null) throw new Error('no DynamoDB Local process found: this benchmark reads its CPU from /proc');
  for (const [i, tableName] of TABLES.entries()) await ensureTable(clients[i]!, tableName);
  rounds = await measure(pid);
} finally {
  for (const client of clients) client.destroy();
  await engine.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

const base = median(rounds[0]!.map((r) => r.wallUs));
console.log(`${ITEMS} home entries a round, ${ROUNDS} rounds, medians (µs an item):`);
console.log(
  '| way | wall | engine CPU | SQLite thread CPU | SQLite thread busy | engine cores | wall against the first |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const [i, way] of ways.entries()) {
  const [wall, cpu, sqlite] = (['wallUs', 'engineUs', 'sqliteUs'] as const).map((k) =>
    median(rounds[i]!.map((r) => r[k])),
  );
  const share = (x: number) => `${Math.round((x / wall!) * 100)}%`;
  console.log(
    `| ${way.name} | ${wall!.toFixed(0)} | ${cpu!.toFixed(0)} | ${sqlite!.toFixed(0)} | ${share(sqlite!)} | ${(cpu! / wall!).toFixed(2)} | ${(wall! / base).toFixed(2)}× |`,
  );
}
