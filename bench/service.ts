/** The service processes a benchmark drives, on loopback, and the one GraphQL call they all use. */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { freePort } from '../src/stores/dynamo/embedded-engine.js';

export const ROOT = resolve(import.meta.dirname, '..');
/** Signs the benchmark's tokens and the services' checks alike. */
export const BENCH_SECRET = 'benchmark-only-secret-benchmark-only-secret';

export const log = (message: string) => process.stderr.write(`bench: ${message}\n`);
/** A bulk write (a seed, a write floor) may queue behind others on one engine: a request's deadline is a minute. */
export const BULK_TIMEOUTS = { DYNAMODB_ATTEMPT_TIMEOUT_MS: '60000', DYNAMODB_TIMEOUT_MS: '180000' };

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Service {
  url: string;
  child: ChildProcess;
}

/**
 * Where the benchmark compiles the service, as `npm run build` compiles it into dist/: a build or a test run meanwhile
 * must not change the code a run measures. Beside dist/, so that the paths the service reads from its own folder
 * (`../../schema.graphql`) hold.
 */
const SERVICE_DIR = join(ROOT, 'dist-bench-service');

const built = new Set<string>();

/** Compiles the TypeScript project `project` of the tree at `root`, into `outDir` (emptied first) when given. */
export function compile(root: string, project: string, outDir?: string): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  if (outDir) rmSync(outDir, { recursive: true, force: true });
  execFileSync(process.execPath, [tsc, '-p', join(root, project), ...(outDir ? ['--outDir', outDir] : [])], {
    cwd: root,
    stdio: 'inherit',
  });
}

/** Compiles a project of this tree once per benchmark process. */
function buildOnce(project: string, what: string, outDir?: string): void {
  if (built.has(project)) return;
  log(`compiling ${what} (tsc -p ${project})`);
  compile(ROOT, project, outDir);
  built.add(project);
}

const buildService = () => buildOnce('tsconfig.build.json', 'the service', SERVICE_DIR);
const buildBenchProcesses = () => buildOnce('tsconfig.bench-build.json', "the benchmark's measured processes");

/** Compiles every measured process now, before a run measures anything, from the tree its result file names. */
export function buildMeasuredProcesses(): void {
  buildService();
  buildBenchProcesses();
}

/**
 * A benchmark process of `bench/<name>.ts` (the replay, Apollo's floor), compiled into `dist-bench/` first, so that
 * it runs as the service does: without tsx.
 */
export function builtBenchProcess(name: string): string {
  buildBenchProcesses();
  return join(ROOT, 'dist-bench/bench', `${name}.js`);
}

/** The settings of a service whose CPU a page is measured on: as in production, its API alone, no cache. */
export const MEASURED_AS_IN_PRODUCTION = {
  NODE_ENV: 'production',
  COST_EXTENSIONS: 'false',
  BATCHING: 'true',
  WORKER_ENABLED: 'false',
  CACHE: 'off',
};

/**
 * Starts the compiled service (SERVICE_DIR, or `build`: another tree's compiled `main.js` and that tree) in its own
 * process over the engine at `endpoint`, and waits until it is healthy.
 */
export async function startService(
  endpoint: string,
  env: Record<string, string>,
  build?: { main: string; root: string },
): Promise<Service> {
  // Compiled as `npm run build` compiles it: it runs as deployed, without tsx.
  if (!build) buildService();
  const port = await freePort();
  const child = spawn(process.execPath, [build?.main ?? join(SERVICE_DIR, 'main.js')], {
    cwd: build?.root ?? ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DYNAMODB_ENDPOINT: endpoint,
      NEO4J_URI: '',
      JWT_SECRET: BENCH_SECRET,
      LOG_LEVEL: 'warn',
      COST_EXTENSIONS: 'true',
      NODE_ENV: 'development',
      // Throughput is measured as one client: its bucket must not be what limits it (bench/under-attack.ts sets its own).
      RATE_LIMIT_POINTS: '1000000000',
      RATE_LIMIT_POINTS_PER_SECOND: '1000000000',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited during start-up (code ${child.exitCode})`);
    const healthy = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (healthy) return { url, child };
    await sleep(200);
  }
  child.kill('SIGKILL');
  throw new Error('the service did not become healthy within 60s');
}

export async function stopService(service: Service): Promise<void> {
  if (service.child.exitCode !== null || service.child.signalCode !== null) return;
  const exited = new Promise((done) => service.child.once('exit', done));
  service.child.kill('SIGTERM');
  const timer = setTimeout(() => service.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

export interface Answer {
  data?: Record<string, any>;
  errors?: { message: string; extensions?: { code?: string } }[];
  extensions?: { cost?: Cost };
}

/** `extensions.cost` of one request, as the service reports it (COST_EXTENSIONS=true). */
export interface Cost {
  estimated?: number;
  dynamodb: { requests: number; readCapacityUnits: number };
  graph: { requests: number };
  /** Sequential store round trips on the request's critical path. */
  waves?: number;
}

export async function gql(
  url: string,
  query: string,
  variables: Record<string, unknown>,
  token?: string,
): Promise<Answer> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as Answer;
}

/** A request's cost in one line of a table. */
export function describeCost(cost: Cost | undefined): string {
  if (!cost) return '—';
  const waves = cost.waves === undefined ? '' : `, ${cost.waves} sequential waves`;
  return `${cost.dynamodb.requests} DynamoDB (${cost.dynamodb.readCapacityUnits} RCU) + ${cost.graph.requests} graph request${cost.graph.requests === 1 ? '' : 's'}${waves}`;
}
