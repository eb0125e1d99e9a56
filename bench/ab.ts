/**
 * `npx tsx bench/ab.ts --base <revision> [--processes 2] [--rounds 12] [--window 3] [--data-dir .data/bench-…]` (alone;
 * not part of `npm run bench`): the service's CPU per home page at `<revision>` against the working tree's, the
 * question every change to the read path asks. Both are compiled as `npm run build` compiles them (the base in a git
 * worktree of its own, with this tree's node_modules) and run as the benchmark measures the page
 * (`MEASURED_AS_IN_PRODUCTION`), `--processes` of each over one engine on a data set the benchmark seeded (the quick
 * one by default: run `npm run bench -- --quick` once first). Each process serves the page at one connection in
 * `--rounds` windows of `--window` seconds, the order turning every round; a side's windows are pooled, since
 * identical processes differ by up to a fifth. It prints each side's CPU per page, pooled and by median window, and
 * the working tree's against the base's.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Tokens } from '../src/auth/tokens.js';
import { createLogger } from '../src/logger.js';
import { startEmbeddedEngine } from '../src/stores/dynamo/embedded-engine.js';
import { CpuMeter } from './cpu.js';
import { pageRequest } from './home-vs-floor.js';
import { type Window, median, round, runLoops, summarize } from './loops.js';
import {
  BENCH_SECRET,
  MEASURED_AS_IN_PRODUCTION,
  ROOT,
  type Service,
  compile,
  log,
  startService,
  stopService,
} from './service.js';

const { values: flags } = parseArgs({
  options: {
    base: { type: 'string' },
    processes: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '12' },
    window: { type: 'string', default: '3' },
    'data-dir': { type: 'string', default: '.data/bench-u1100-f10000-p1000-l1000-s42-d30' },
  },
});
const [processes, rounds, windowS] = [flags.processes, flags.rounds, flags.window].map(Number) as [
  number,
  number,
  number,
];
if (
  !flags.base ||
  flags.base.startsWith('-') ||
  ![processes, rounds, windowS].every((n) => Number.isInteger(n) && n >= 1)
)
  throw new Error('usage: bench/ab.ts --base <revision> [--processes n] [--rounds n] [--window seconds]');
const dataDir = resolve(ROOT, flags['data-dir']);
if (!existsSync(join(dataDir, 'bench-manifest.json')))
  throw new Error(`no benchmark data set in ${dataDir}: run \`npm run bench -- --quick\` once first`);
const manifest = JSON.parse(readFileSync(join(dataDir, 'bench-manifest.json'), 'utf8')) as { viewerId: string };

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
const commit = git('rev-parse', '--verify', `${flags.base}^{commit}`);
const baseLock = spawnSync('git', ['show', `${commit}:package-lock.json`], { cwd: ROOT, encoding: 'utf8' }).stdout;
if (baseLock.trim() !== readFileSync(join(ROOT, 'package-lock.json'), 'utf8').trim())
  log(`warning: ${commit.slice(0, 7)} locks other packages; the base runs on this tree's node_modules`);

/** The base revision, checked out in `worktree` and compiled into its dist/, so that it reads its own schema.graphql. */
function buildBase(worktree: string): { main: string; root: string } {
  log(`compiling the base ${commit.slice(0, 7)} in ${worktree}`);
  git('worktree', 'add', '--detach', '--force', worktree, commit);
  symlinkSync(join(ROOT, 'node_modules'), join(worktree, 'node_modules'), 'dir');
  compile(worktree, 'tsconfig.build.json');
  return { main: join(worktree, 'dist/main.js'), root: worktree };
}

const services: Service[] = [];
const worktree = mkdtempSync(join(tmpdir(), 'ab-base-'));
const engine = await startEmbeddedEngine({ dataDir, logger: createLogger('warn') }).catch((error: unknown) => {
  rmSync(worktree, { recursive: true, force: true });
  throw error;
});
let stopping: Promise<void> | undefined;
/** Stops the services and the engine and removes the worktree, once (on Ctrl-C and at the end). */
function stopAll(): Promise<void> {
  stopping ??= (async () => {
    await Promise.all(services.map(stopService));
    await engine.stop();
    spawnSync('git', ['worktree', 'remove', '--force', worktree], { cwd: ROOT, stdio: 'ignore' });
    rmSync(worktree, { recursive: true, force: true });
  })();
  return stopping;
}
process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));
try {
  const base = buildBase(worktree);
  const token = await new Tokens(BENCH_SECRET, 3600).issue(manifest.viewerId);
  const sides: { name: 'base' | 'working tree'; page: () => Promise<void>; cpu: CpuMeter; windows: Window[] }[] = [];
  for (let i = 0; i < processes; i++)
    for (const name of ['base', 'working tree'] as const) {
      const service = await startService(
        engine.endpoint,
        MEASURED_AS_IN_PRODUCTION,
        name === 'base' ? base : undefined,
      );
      services.push(service);
      sides.push({
        name,
        page: pageRequest(service.url, token),
        cpu: new CpuMeter({ service: service.child.pid }),
        windows: [],
      });
    }
  for (const side of sides) await runLoops(1, 10, side.page, side.cpu);
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < sides.length; i++) {
      const side = sides[(r + i) % sides.length]!;
      side.windows.push(await runLoops(1, windowS, side.page, side.cpu));
    }
  const perPage = (w: Window) => (w.cpuMs.get('service') ?? Number.NaN) / w.latencies.length;
  const result = (['base', 'working tree'] as const).map((name) => {
    const windows = sides.filter((side) => side.name === name).flatMap((side) => side.windows);
    const summary = summarize(1, windows);
    // A page that failed spent CPU that no page is counted for: the figure would be too high.
    if (summary.failures > 0) throw new Error(`the ${name} failed ${summary.failures} pages`);
    return {
      name,
      pooled: summary.cpuMsPerOperation.service ?? Number.NaN,
      byWindow: median(windows.map(perPage)),
      summary,
    };
  });
  console.log(
    `base ${commit.slice(0, 7)} against the working tree, ${processes} processes each, ${rounds} rounds of ${windowS} s:`,
  );
  console.log('| side | pages/s | p50 ms | CPU ms a page, pooled | median window |\n|---|---:|---:|---:|---:|');
  for (const side of result)
    console.log(
      `| ${side.name} | ${side.summary.perSecond} | ${side.summary.p50Ms} | ${side.pooled} | ${round(side.byWindow, 2)} |`,
    );
  const [before, after] = result as [(typeof result)[0], (typeof result)[0]];
  console.log(
    `working tree ÷ base: ${round(after.pooled / before.pooled, 3)}× pooled, ${round(after.byWindow / before.byWindow, 3)}× by median window`,
  );
} finally {
  await stopAll();
}
