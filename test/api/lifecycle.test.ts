import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startEmbeddedEngine } from '../../src/stores/dynamo/embedded-engine.js';

const logger = createLogger('silent');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function gql(url: string, query: string, variables?: unknown) {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as { data?: any; errors?: unknown[] };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of java processes whose command line names this data directory. */
async function javaPidsFor(dataDir: string): Promise<number[]> {
  const { readdirSync, readFileSync } = await import('node:fs');
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const isJava = cmdline.split('\0')[0]!.endsWith('java');
      if (isJava && cmdline.includes('DynamoDBLocal.jar') && cmdline.includes(dataDir)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

describe('embedded default', () => {
  it('keeps users across a restart and leaves no java process behind', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'social-data-'));
    dirs.push(dataDir);
    const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });

    const first = await startApp({ config, logger });
    const [enginePid] = await javaPidsFor(dataDir);
    expect(enginePid).toBeDefined();
    const created = await gql(first.url, 'mutation { signUp(input: { handle: "persisted_user" }) { user { id } } }');
    const id = created.data.signUp.user.id;
    await first.stop();
    expect(alive(enginePid!)).toBe(false);

    const second = await startApp({ config, logger });
    try {
      const found = await gql(second.url, '{ user(handle: "persisted_user") { id } }');
      expect(found.data.user).toEqual({ id });
    } finally {
      await second.stop();
    }
    expect(await javaPidsFor(dataDir)).toEqual([]);
  });
});

describe('/healthz', () => {
  it('answers 503 when DynamoDB stops answering', async () => {
    const engine = await startEmbeddedEngine({ logger });
    // A DATA_DIR of its own: the service keeps its generated JWT secret there.
    const dataDir = mkdtempSync(join(tmpdir(), 'social-health-'));
    dirs.push(dataDir);
    const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const app = await startApp({ config, logger, dynamodbEndpoint: engine.endpoint });
    try {
      expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
      await engine.stop();
      expect((await fetch(`${app.url}/healthz`)).status).toBe(503);

      // The failing store call is an internal error: logged, and masked for the client.
      const result = await gql(app.url, '{ user(id: "usr_00000000000000000000000000") { id } }');
      expect(result.errors).toEqual([
        { message: 'Internal server error', locations: [{ line: 1, column: 3 }], path: ['user'], extensions: { code: 'INTERNAL_SERVER_ERROR' } },
      ]);
    } finally {
      await app.stop();
      await engine.stop();
    }
  });
});

describe('npm start process', () => {
  const started: ChildProcess[] = [];
  // A failed assertion must not leave a service (and through it a java process) running.
  afterAll(() => {
    for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  async function startService(dataDir: string) {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    started.push(child);
    const url = await new Promise<string>((resolve, reject) => {
      let log = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        const match = /"graphql":"(http:\/\/[^"]+)\/graphql"/.exec(log);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`service exited (${code}): ${log}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, url, exited };
  }

  async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (await check()) return true;
      await new Promise((r) => setTimeout(r, 100));
    }
    return check();
  }

  it('drains and stops the engine on SIGTERM, exiting 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'social-sigterm-'));
    dirs.push(dataDir);
    const service = await startService(dataDir);
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    expect(await javaPidsFor(dataDir)).toHaveLength(1);
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    expect(await javaPidsFor(dataDir)).toEqual([]);
  });

  it('leaves no java process behind even when killed with SIGKILL', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'social-sigkill-'));
    dirs.push(dataDir);
    const service = await startService(dataDir);
    expect(await javaPidsFor(dataDir)).toHaveLength(1);
    service.child.kill('SIGKILL');
    await service.exited;
    expect(await waitFor(async () => (await javaPidsFor(dataDir)).length === 0, 10_000)).toBe(true);
  });
});
