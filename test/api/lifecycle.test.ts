import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { storeRequests } from '../../src/observability/metrics.js';
import { startEmbeddedEngine } from '../../src/stores/dynamo/embedded-engine.js';
import { TEST_PASSWORD, capturingLogger, startTestApp } from '../helpers/app.js';
import { createPost, follow, homeIds } from '../helpers/posts.js';
import { stallingProxy } from '../helpers/stalling-proxy.js';
import { killWorkerProcesses, startWorkerProcess } from '../helpers/worker-process.js';

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

async function health(url: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}/healthz`);
  return { status: response.status, body: await response.json() };
}

const HEALTHY = { status: 200, body: { status: 'ok', stores: { dynamodb: 'up', graph: 'up' } } };
const RESTARTING = {
  status: 503,
  body: { status: 'unavailable', stores: { dynamodb: 'restarting', graph: 'restarting' } },
};

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

/** The CPUs a process may run on, as Linux lists them ("0-3,6"). */
const cpusAllowed = (pid: number | 'self') =>
  /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!;

describe('embedded default', () => {
  // Starts java twice, which takes long on a loaded machine.
  it('keeps users across a restart and leaves no java process behind', { timeout: 180_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'social-data-'));
    dirs.push(dataDir);
    const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });

    const first = await startApp({ config, logger });
    const [enginePid] = await javaPidsFor(dataDir);
    expect(enginePid).toBeDefined();
    expect(cpusAllowed(enginePid!)).toBe(cpusAllowed('self'));
    const created = await gql(
      first.url,
      'mutation($password: String!) { signUp(input: { handle: "persisted_user", password: $password }) { user { id } } }',
      {
        password: TEST_PASSWORD,
      },
    );
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

  const allowed = cpusAllowed('self');
  it.skipIf(/^\d+$/.test(allowed))(
    'runs java on the last core this process may use when started for bulk writes, also once restarted',
    { timeout: 120_000 },
    async () => {
      const lastCore = /(\d+)$/.exec(allowed)![1];
      const dataDir = mkdtempSync(join(tmpdir(), 'social-one-core-'));
      dirs.push(dataDir);
      const engine = await startEmbeddedEngine({ dataDir, logger: createLogger('silent'), oneCore: true });
      try {
        const [first] = await javaPidsFor(dataDir);
        expect(first).toBeDefined();
        expect(cpusAllowed(first!)).toBe(lastCore);
        process.kill(first!, 'SIGKILL');
        const [second] = await vi.waitFor(
          async () => {
            const pids = await javaPidsFor(dataDir);
            expect(pids.filter((pid) => pid !== first)).toHaveLength(1);
            return pids;
          },
          { timeout: 60_000, interval: 200 },
        );
        expect(cpusAllowed(second!)).toBe(lastCore);
      } finally {
        await engine.stop();
      }
      expect(await javaPidsFor(dataDir)).toEqual([]);
    },
  );
});

describe('/healthz', () => {
  it(
    'answers 503 naming the store when DynamoDB stops answering, while the worker backs off',
    { timeout: 120_000 },
    async () => {
      const engine = await startEmbeddedEngine({ logger });
      const POLL_MS = 50;
      // A DATA_DIR of its own: the service keeps its generated JWT secret there.
      const dataDir = mkdtempSync(join(tmpdir(), 'social-health-'));
      dirs.push(dataDir);
      const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, QUEUE_POLL_MS: String(POLL_MS) });
      const captured = capturingLogger();
      const app = await startApp({ config, logger: captured, dynamodbEndpoint: engine.endpoint });
      try {
        // A fresh engine's first reads can take past the check's 800 ms on a busy machine: wait until it answers.
        await expect.poll(() => health(app.url), { timeout: 30_000, interval: 200 }).toEqual(HEALTHY);
        await engine.stop();
        expect(await health(app.url)).toEqual({
          status: 503,
          body: { status: 'unavailable', stores: { dynamodb: 'down', graph: 'down' } },
        });

        // The worker does not retry every QUEUE_POLL_MS: each wait is at least as long as the one before,
        // doubling (less up to half at random) from the poll interval.
        const claimFailures = () => captured.entries.filter((entry) => entry.msg === 'could not claim tasks');
        await vi.waitFor(() => expect(claimFailures().length).toBeGreaterThanOrEqual(6), {
          timeout: 30_000,
          interval: 50,
        });
        const [first, ...rest] = claimFailures().slice(0, 6);
        let previous = first!;
        for (const failure of rest) {
          expect(failure.fields.retryInMs).toBeGreaterThanOrEqual(previous.fields.retryInMs as number);
          expect(failure.at - previous.at).toBeGreaterThanOrEqual((previous.fields.retryInMs as number) - 5);
          previous = failure;
        }
        expect(previous.fields).toMatchObject({ failures: 6 });
        expect(previous.fields.retryInMs).toBeGreaterThanOrEqual(16 * POLL_MS);

        // A store that cannot be reached fails the field with a code a client can retry on, logged once, not per request.
        const result = await gql(app.url, '{ user(id: "usr_00000000000000000000000000") { id } }');
        expect(result.errors).toEqual([
          {
            message: 'A store did not answer in time: try again shortly',
            locations: [{ line: 1, column: 3 }],
            path: ['user'],
            extensions: { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 1 },
          },
        ]);
        expect(captured.entries.filter((entry) => entry.msg === 'dependency unavailable')).toHaveLength(1);
        expect(captured.entries.filter((entry) => entry.msg === 'internal error')).toEqual([]);
      } finally {
        await app.stop();
        await engine.stop();
      }
    },
  );

  it('shares one check of the stores among the requests that come while it runs', { timeout: 120_000 }, async () => {
    const engine = await startEmbeddedEngine({ logger });
    const proxy = await stallingProxy(engine.endpoint);
    const dataDir = mkdtempSync(join(tmpdir(), 'social-health-'));
    dirs.push(dataDir);
    const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, WORKER_ENABLED: 'false' });
    const app = await startApp({ config, logger, dynamodbEndpoint: proxy.endpoint });
    const getItems = async () =>
      (await storeRequests.get()).values
        .filter((value) => value.labels.store === 'dynamodb' && value.labels.command === 'GetItem')
        .reduce((sum, value) => sum + value.value, 0);
    try {
      await expect.poll(() => health(app.url), { timeout: 30_000, interval: 200 }).toEqual(HEALTHY);
      const before = await getItems();
      proxy.stall();
      let answers: { status: number; body: unknown }[];
      try {
        // The first check's read is held for its 800 ms: the other requests come meanwhile.
        answers = await Promise.all(Array.from({ length: 10 }, () => health(app.url)));
      } finally {
        proxy.resume();
      }
      for (const answer of answers)
        expect(answer).toMatchObject({ status: 503, body: { stores: { dynamodb: 'down' } } });
      await expect.poll(getItems, { timeout: 5_000, interval: 50 }).toBeGreaterThan(before);
      // One check for all ten; a straggler after the first check ended would start a second. Unshared, ten.
      expect((await getItems()) - before).toBeLessThanOrEqual(2);
      await expect.poll(async () => (await health(app.url)).status, { timeout: 30_000, interval: 200 }).toBe(200);
    } finally {
      await app.stop();
      proxy.close();
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

  let built: Promise<void> | null = null;
  /** `npm run build`, as a deployment runs it, once for the compiled service and worker. */
  function buildOnce(): Promise<void> {
    built ??= (async () => {
      const { execFileSync } = await import('node:child_process');
      // --silent quiets npm's own lines only: tsc's errors (on stdout) still say why a build failed.
      execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
    })();
    return built;
  }

  async function startService(
    dataDir: string,
    env: Record<string, string> = {},
    entry: string[] = ['--import', 'tsx', 'src/main.ts'],
  ) {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, entry, {
      env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    started.push(child);
    let log = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        const match = /"graphql":"(http:\/\/[^"]+)\/graphql"/.exec(log);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`service exited (${code}): ${log}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, url, exited, log: () => log };
  }

  it('drains and stops the engine on SIGTERM, exiting 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'social-sigterm-'));
    dirs.push(dataDir);
    const service = await startService(dataDir);
    // A cold engine on a busy machine may miss the health check's deadline on its first read.
    await expect.poll(async () => (await fetch(`${service.url}/healthz`)).status, { timeout: 10_000 }).toBe(200);
    expect(await javaPidsFor(dataDir)).toHaveLength(1);
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    expect(await javaPidsFor(dataDir)).toEqual([]);
  });

  it(
    'runs as `npm run build` compiles it, serving requests and draining on SIGTERM',
    { timeout: 180_000 },
    async () => {
      await buildOnce();
      const dataDir = mkdtempSync(join(tmpdir(), 'social-built-'));
      dirs.push(dataDir);
      const service = await startService(dataDir, {}, ['dist/main.js']);
      await expect.poll(async () => (await fetch(`${service.url}/healthz`)).status, { timeout: 10_000 }).toBe(200);
      const created = await gql(
        service.url,
        'mutation($password: String!) { signUp(input: { handle: "compiled_user", password: $password }) { user { handle } } }',
        { password: TEST_PASSWORD },
      );
      expect(created.errors).toBeUndefined();
      expect(created.data).toEqual({ signUp: { user: { handle: 'compiled_user' } } });
      expect(await (await fetch(`${service.url}/schema.graphql`)).text()).toContain('type Query');
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
      expect(await javaPidsFor(dataDir)).toEqual([]);
    },
  );

  it('runs the worker as `npm run worker:built` runs it, fanning a post out', { timeout: 180_000 }, async () => {
    await buildOnce();
    const app = await startTestApp({ WORKER_ENABLED: 'false' });
    try {
      const [author, reader] = await Promise.all([app.signUp(), app.signUp()]);
      await follow(app, reader.token, author.id);
      const postId = await createPost(app, author.token, 'fanned out by the compiled worker');
      expect(await homeIds(app, reader)).toEqual([]);
      // No follow backfill: the post must reach the reader through its fan-out task.
      const worker = startWorkerProcess(
        app,
        { QUEUE_POLL_MS: '50', FOLLOW_BACKFILL_POSTS: '0' },
        'dist/worker-main.js',
      );
      const fanOut = async () =>
        (
          await app.gql<{ post: { fanOut: { state: string } } }>(
            'query($id: ID!) { post(id: $id) { fanOut { state } } }',
            { id: postId },
            author.token,
          )
        ).data?.post.fanOut.state;
      await expect.poll(fanOut, { timeout: 60_000 }).toBe('DONE');
      expect(await homeIds(app, reader)).toEqual([postId]);
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    } finally {
      killWorkerProcesses();
      await app.stop();
    }
  });

  it('leaves no java process behind even when killed with SIGKILL', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'social-sigkill-'));
    dirs.push(dataDir);
    const service = await startService(dataDir);
    expect(await javaPidsFor(dataDir)).toHaveLength(1);
    service.child.kill('SIGKILL');
    await service.exited;
    await expect.poll(() => javaPidsFor(dataDir), { timeout: 10_000, interval: 100 }).toEqual([]);
  });

  it(
    'starts a dead DynamoDB Local again on the same port and data, saying "restarting" on /healthz meanwhile',
    { timeout: 240_000 },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'social-restart-'));
      dirs.push(dataDir);
      const service = await startService(dataDir, { DYNAMODB_LOCAL_RESTARTS: '3' });
      const created = await gql(
        service.url,
        'mutation($password: String!) { signUp(input: { handle: "survivor", password: $password }) { user { id } } }',
        {
          password: TEST_PASSWORD,
        },
      );
      const [engine] = await javaPidsFor(dataDir);
      process.kill(engine!, 'SIGKILL');

      await expect.poll(() => health(service.url), { timeout: 20_000, interval: 20 }).toEqual(RESTARTING);
      await expect.poll(() => health(service.url), { timeout: 180_000, interval: 250 }).toEqual(HEALTHY);
      const restarted = await javaPidsFor(dataDir);
      expect(restarted).toHaveLength(1);
      expect(restarted[0]).not.toBe(engine);
      const found = await gql(service.url, '{ user(handle: "survivor") { id } }');
      expect(found.data.user).toEqual(created.data.signUp.user);
      expect(service.log()).toContain('"msg":"embedded DynamoDB Local restarted"');

      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
      expect(await javaPidsFor(dataDir)).toEqual([]);
    },
  );

  it(
    'exits 1 when DynamoDB Local will not start again, after DYNAMODB_LOCAL_RESTARTS tries',
    { timeout: 240_000 },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'social-giveup-'));
      dirs.push(dataDir);
      const service = await startService(dataDir, { DYNAMODB_LOCAL_RESTARTS: '2' });
      const [engine] = await javaPidsFor(dataDir);
      // The data directory becomes a file: no engine can start on it any more.
      process.kill(engine!, 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
      writeFileSync(dataDir, 'not a directory');

      await expect.poll(() => health(service.url), { timeout: 20_000, interval: 20 }).toEqual(RESTARTING);
      expect(await service.exited).toBe(1);
      const attempts = service.log().match(/"msg":"embedded DynamoDB Local did not start again"/g);
      expect(attempts).toHaveLength(2);
      expect(service.log()).toContain('"msg":"stopping after a fatal error"');
      expect(await javaPidsFor(dataDir)).toEqual([]);
    },
  );
});
