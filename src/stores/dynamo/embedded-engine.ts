import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { Logger } from '../../logger.js';

/**
 * Runs the official DynamoDB Local (the jar shipped in the npm package
 * `amplify-dynamodb-simulator`) as a child process on a free loopback port.
 * With a data directory it persists to disk; without one it runs in memory (tests).
 */
export interface EmbeddedEngine {
  endpoint: string;
  stop(): Promise<void>;
}

export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
export const LOCAL_REGION = 'local';

const MIN_JAVA = 11;
const STARTUP_TIMEOUT_MS = 60_000;

function emulatorDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('amplify-dynamodb-simulator/package.json')), 'emulator');
}

/** Throws a one-line explanation when Java is missing or too old. */
export function checkJava(): void {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(`The embedded DynamoDB needs Java ${MIN_JAVA} or newer, and no "java" was found on PATH (install a JRE, or set DYNAMODB_ENDPOINT).`);
  }
  const match = /version "(\d+)(?:\.(\d+))?/.exec(probe.stderr);
  const major = match ? (match[1] === '1' ? Number(match[2]) : Number(match[1])) : 0;
  if (major < MIN_JAVA) {
    throw new Error(`The embedded DynamoDB needs Java ${MIN_JAVA} or newer; "java -version" says ${major || 'unknown'}.`);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitUntilReady(endpoint: string, child: ChildProcess, output: () => string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited during start-up (code ${child.exitCode}): ${output()}`);
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

export async function startEmbeddedEngine(options: { dataDir?: string; logger: Logger }): Promise<EmbeddedEngine> {
  checkJava();
  const dir = emulatorDir();
  const port = await freePort();
  const storage = options.dataDir ? ['-dbPath', resolve(options.dataDir)] : ['-inMemory'];
  if (options.dataDir) mkdirSync(resolve(options.dataDir), { recursive: true });
  const args = [
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
  // A small shell stands between us and java, holding our pipe open on its stdin: when this
  // process goes away for any reason — even SIGKILL — the pipe closes, `read` returns, and
  // the shell stops java. So no java process ever outlives the service.
  const watchdog = 'java "$@" & engine=$!; trap \'kill $engine 2>/dev/null\' TERM INT; read -r _; kill $engine 2>/dev/null; wait $engine';
  const child = spawn('sh', ['-c', watchdog, 'dynamodb-local', ...args], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let output = '';
  const capture = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', capture);
  child.stderr?.on('data', capture);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));

  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(endpoint, child, () => output);
  } catch (error) {
    child.stdin?.end();
    await exited;
    throw error;
  }
  options.logger.info('embedded DynamoDB Local started', { endpoint, storage: options.dataDir ?? 'memory', pid: child.pid });

  return {
    endpoint,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stdin?.end();
      // The shell and java share a process group (detached): if java ignores the polite stop, kill both.
      const killTimer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 5_000);
      await exited;
      clearTimeout(killTimer);
      options.logger.info('embedded DynamoDB Local stopped', { pid: child.pid });
    },
  };
}
