import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { Logger } from '../../logger.js';

/**
 * Runs DynamoDB Local (from `amplify-dynamodb-simulator`) on a free loopback port, on disk or in memory. A
 * persistent engine is restarted with backoff until `restarts` attempts fail (see docs/running.md); in memory, never.
 */
export interface EmbeddedEngine {
  endpoint: string;
  state(): EngineState;
  stop(): Promise<void>;
}

/** `restarting` from java's death until it answers again; `failed` once the restarts are used up. */
export type EngineState = 'running' | 'restarting' | 'failed' | 'stopped';

export interface EngineOptions {
  dataDir?: string;
  logger: Logger;
  /** Restarts in a row before giving up (setting DYNAMODB_LOCAL_RESTARTS); 0 gives up at once. */
  restarts?: number;
  /** Called once, when the engine is down for good. */
  onFailed?: (error: Error) => void;
  /**
   * Runs java on one CPU core (Linux, with `taskset`), for bulk writes: each write queues for the engine's one
   * database thread, and on one core its threads hand calls to each other without waking another core.
   */
  oneCore?: boolean;
}

export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
export const LOCAL_REGION = 'local';

const MIN_JAVA = 11;
const STARTUP_TIMEOUT_MS = 60_000;
const DEFAULT_RESTARTS = 5;
const FIRST_RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 30_000;
/** An engine that stayed up this long had recovered: its next death starts the count of restarts afresh. */
const STABLE_AFTER_MS = 60_000;

function emulatorDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('amplify-dynamodb-simulator/package.json')), 'emulator');
}

/** Throws a one-line explanation when Java is missing or too old. */
export function checkJava(): void {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `The embedded DynamoDB needs Java ${MIN_JAVA} or newer, and no "java" was found on PATH (install a JRE, or set DYNAMODB_ENDPOINT).`,
    );
  }
  const match = /version "(\d+)(?:\.(\d+))?/.exec(probe.stderr);
  const major = match ? (match[1] === '1' ? Number(match[2]) : Number(match[1])) : 0;
  if (major < MIN_JAVA) {
    throw new Error(
      `The embedded DynamoDB needs Java ${MIN_JAVA} or newer; "java -version" says ${major || 'unknown'}.`,
    );
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function waitUntilReady(endpoint: string, child: ChildProcess, output: () => string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null)
        throw new Error(`DynamoDB Local exited during start-up (code ${child.exitCode}): ${output()}`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw new Error(`DynamoDB Local did not answer within ${STARTUP_TIMEOUT_MS / 1000}s: ${output()}`);
  } finally {
    client.destroy();
  }
}

/** One java process behind its watchdog shell, answering on `endpoint`. */
interface Launched {
  child: ChildProcess;
  exited: Promise<void>;
  output: () => string;
}

// A shell holds our pipe (fd 3) and stops java when it closes, even after SIGKILL, so no java outlives the
// service; it also waits for java, so java dying on its own shows as the shell's exit.
const WATCHDOG = [
  'exec 3<&0',
  '"$@" 3<&- </dev/null & engine=$!',
  '{ read -r _ <&3; kill $engine 2>/dev/null; } & watcher=$!',
  "trap 'kill $engine 2>/dev/null' TERM INT",
  'wait $engine; status=$?',
  // A trapped signal interrupts `wait`: wait for java itself.
  'while kill -0 $engine 2>/dev/null; do wait $engine; status=$?; done',
  'kill $watcher 2>/dev/null',
  'exit $status',
].join('\n');

/** The file DynamoDB Local keeps every table in, with -sharedDb. */
const DATABASE_FILE = 'shared-local-instance.db';

// node:sqlite in a child process, so that its experimental warning stays out of the service's output.
const CREATE_DATABASE = [
  "const { DatabaseSync } = require('node:sqlite');",
  'const db = new DatabaseSync(process.argv[1]);',
  "db.exec('PRAGMA page_size = 4096; PRAGMA journal_mode = WAL');",
  'db.close();',
].join('\n');

/**
 * Creates a new data directory's database in SQLite's write-ahead log mode, which the file keeps, before DynamoDB
 * Local first opens it: with its default rollback journal on 1 KiB pages, its one database thread spends much of
 * each commit copying pages and waiting for syncs (see docs/running.md, Speed). Without node:sqlite, the engine's default.
 */
function createDatabase(dataDir: string): void {
  const file = join(dataDir, DATABASE_FILE);
  if (existsSync(file)) return;
  spawnSync(process.execPath, ['--no-warnings', '-e', CREATE_DATABASE, file], { stdio: 'ignore', timeout: 10_000 });
}

/** `taskset` and the last core this process may run on, where it can set that; otherwise nothing. */
function lastCorePrefix(): string[] {
  if (process.platform !== 'linux') return [];
  const found = spawnSync('taskset', ['-cp', String(process.pid)], { encoding: 'utf8' });
  // "pid 12's current affinity list: 0-3,6"
  const last = found.status === 0 ? /(\d+)\s*$/.exec(found.stdout)?.[1] : undefined;
  if (last === undefined) return [];
  return spawnSync('taskset', ['-c', last, 'true']).status === 0 ? ['taskset', '-c', last] : [];
}

async function launch(port: number, dataDir: string | undefined, pin: readonly string[]): Promise<Launched> {
  const dir = emulatorDir();
  const storage = dataDir ? ['-dbPath', resolve(dataDir)] : ['-inMemory'];
  if (dataDir) {
    mkdirSync(resolve(dataDir), { recursive: true });
    createDatabase(resolve(dataDir));
  }
  const args = [
    ...pin,
    'java',
    '-Xms64m',
    `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(dir, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    '-sharedDb',
    '-disableTelemetry',
    ...storage,
  ];
  const child = spawn('sh', ['-c', WATCHDOG, 'dynamodb-local', ...args], {
    cwd: dir,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const capture = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', capture);
  child.stderr?.on('data', capture);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  try {
    await waitUntilReady(`http://127.0.0.1:${port}`, child, () => output);
  } catch (error) {
    child.stdin?.end();
    await exited;
    throw error;
  }
  return { child, exited, output: () => output };
}

/** Asks the watchdog to stop java, and kills both if java ignores the polite stop. */
async function shutDown(launched: Launched): Promise<void> {
  const { child, exited } = launched;
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.stdin?.end();
  // The shell and java share a process group (detached).
  const killTimer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 5_000);
  await exited;
  clearTimeout(killTimer);
}

export async function startEmbeddedEngine(options: EngineOptions): Promise<EmbeddedEngine> {
  checkJava();
  const { dataDir, logger } = options;
  const maxRestarts = options.restarts ?? DEFAULT_RESTARTS;
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const pin = options.oneCore ? lastCorePrefix() : [];
  if (options.oneCore && pin.length === 0)
    logger.warn('embedded DynamoDB Local runs on every core: taskset could not pin it');
  let current: Launched | null = await launch(port, dataDir, pin);
  logger.info('embedded DynamoDB Local started', { endpoint, storage: dataDir ?? 'memory', pid: current.child.pid });

  let state: EngineState = 'running';
  let startedAt = Date.now();
  let attempts = 0;
  let stopping = false;
  let wakeFromBackoff: (() => void) | null = null;
  let supervision: Promise<void> = Promise.resolve();

  const giveUp = (error: Error) => {
    state = 'failed';
    logger.error('embedded DynamoDB Local is down for good', { error, restarts: attempts });
    options.onFailed?.(error);
  };

  /** After java died: start it again, with backoff, until it answers or the restarts are used up. */
  const recover = async (died: Launched): Promise<void> => {
    logger.error('embedded DynamoDB Local exited', {
      pid: died.child.pid,
      code: died.child.exitCode,
      signal: died.child.signalCode,
      output: died.output(),
    });
    if (!dataDir) return giveUp(new Error('the in-memory DynamoDB Local exited, and its data with it'));
    if (Date.now() - startedAt >= STABLE_AFTER_MS) attempts = 0;
    state = 'restarting';
    let lastError: unknown = new Error(
      `DynamoDB Local exited (code ${died.child.exitCode}, signal ${died.child.signalCode})`,
    );
    while (attempts < maxRestarts) {
      if (stopping) return;
      attempts += 1;
      const delay = Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** (attempts - 1));
      logger.warn('restarting embedded DynamoDB Local', { attempt: attempts, of: maxRestarts, inMs: delay });
      await new Promise<void>((done) => {
        const timer = setTimeout(done, delay);
        wakeFromBackoff = () => {
          clearTimeout(timer);
          done();
        };
      });
      wakeFromBackoff = null;
      if (stopping) return;
      try {
        current = await launch(port, dataDir, pin);
      } catch (error) {
        lastError = error;
        logger.warn('embedded DynamoDB Local did not start again', { attempt: attempts, error });
        continue;
      }
      if (stopping) return shutDown(current);
      state = 'running';
      startedAt = Date.now();
      logger.info('embedded DynamoDB Local restarted', { endpoint, pid: current.child.pid, attempt: attempts });
      watch(current);
      return;
    }
    giveUp(lastError instanceof Error ? lastError : new Error(String(lastError)));
  };

  const watch = (launched: Launched) => {
    void launched.exited.then(() => {
      if (stopping) return;
      current = null;
      supervision = recover(launched);
    });
  };
  watch(current);

  let stopped: Promise<void> | undefined;
  return {
    endpoint,
    state: () => state,
    stop() {
      stopped ??= (async () => {
        stopping = true;
        wakeFromBackoff?.();
        await supervision;
        if (current) {
          const pid = current.child.pid;
          await shutDown(current);
          logger.info('embedded DynamoDB Local stopped', { pid });
        }
        state = 'stopped';
      })();
      return stopped;
    },
  };
}
