import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningApp, startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { storeRequests } from '../../src/observability/metrics.js';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { auditCounters } from '../../src/stores/dynamo/counter-audit.js';
import { type EmbeddedEngine, startEmbeddedEngine } from '../../src/stores/dynamo/embedded-engine.js';
import { tableName } from '../../src/stores/dynamo/keys.js';
import { TEST_PASSWORD, type TestApp, capturingLogger, startTestApp, uniqueHandle } from '../helpers/app.js';
import { type LiveClient, connectLive } from '../helpers/live.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';

/**
 * Faults of the dependencies under a running service and a few concurrent clients, with real
 * engines: a redis-server killed, frozen (SIGSTOP) and started again, and a DynamoDB Local whose
 * java process is frozen and resumed. Every request must answer, within its deadlines.
 */

/** Set RESILIENCE_TIMES=1 to print what each phase measured. */
const report = (phase: string, times: number[]) => {
  if (process.env.RESILIENCE_TIMES !== '1') return;
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  process.stdout.write(
    `${phase}: ${times.length} requests, median ${median.toFixed(0)} ms, max ${sorted[sorted.length - 1]!.toFixed(0)} ms\n`,
  );
};

/** What one request took and answered. */
interface Answer {
  ms: number;
  status: number;
  retryAfter: string | null;
  body: { data?: Record<string, any> | null; errors?: { message: string; extensions?: Record<string, any> }[] };
}

async function send(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  token?: string,
): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(60_000),
  });
  const body = (await response.json()) as Answer['body'];
  return {
    ms: performance.now() - started,
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body,
  };
}

async function health(url: string): Promise<{ ms: number; status: number; body: any }> {
  const started = performance.now();
  const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(10_000) });
  return { ms: performance.now() - started, status: response.status, body: await response.json() };
}

const codes = (answer: Answer) => (answer.body.errors ?? []).map((error) => error.extensions?.code);

const CREATE = 'mutation($text: String!) { createPost(input: { text: $text }) { post { id } } }';
const HOME = '{ viewer { timeline(first: 10) { edges { node { id text likeCount author { handle } } } } } }';
const PROFILE = 'query($id: ID!) { user(id: $id) { handle followerCount postCount } }';

interface Client {
  id: string;
  token: string;
}

/** Each client, at once: reads its home timeline, reads another's profile, posts; `rounds` times. */
async function traffic(url: string, clients: readonly Client[], rounds: number, label: string): Promise<Answer[]> {
  const answers = await Promise.all(
    clients.map(async (client, n) => {
      const mine: Answer[] = [];
      for (let round = 0; round < rounds; round++) {
        mine.push(await send(url, HOME, {}, client.token));
        mine.push(await send(url, PROFILE, { id: clients[(n + 1) % clients.length]!.id }, client.token));
        mine.push(await send(url, CREATE, { text: `${label} ${round}` }, client.token));
      }
      return mine;
    }),
  );
  return answers.flat();
}

const maxMs = (answers: readonly Answer[]) => Math.max(...answers.map((answer) => answer.ms));

describe('Redis killed, frozen and back, under a running service', () => {
  const COMMAND_TIMEOUT_MS = 300;
  const OPERATION_TIMEOUT_MS = 4_000;
  /** What a loaded machine may add to a request's usual time. */
  const MARGIN_MS = 1_500;
  const captured = capturingLogger();
  let redis: RedisServer;
  let t: TestApp;
  let clients: Client[];
  const live: LiveClient[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    t = await startTestApp(
      {
        REDIS_URL: redis.url,
        REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
        REDIS_RETRY_INTERVAL_MS: '500',
        OPERATION_TIMEOUT_MS: String(OPERATION_TIMEOUT_MS),
      },
      { logger: captured },
    );
    clients = await Promise.all([t.signUp(), t.signUp(), t.signUp(), t.signUp()]);
    for (const [n, client] of clients.entries()) {
      await t.gql(
        'mutation($id: ID!) { follow(userId: $id) { user { id } } }',
        { id: clients[(n + 1) % clients.length]!.id },
        client.token,
      );
    }
  });
  afterAll(async () => {
    await Promise.all(live.map((client) => client.dispose()));
    await t?.stop();
    await redis?.stop();
  });

  it('keeps answering reads and writes when Redis is killed, says degraded, and resumes cache and live events when it is back', async () => {
    const [ada, bob] = clients as [Client, Client, ...Client[]];
    const usual = await traffic(t.url, clients, 2, 'before');
    expect(usual.flatMap(codes)).toEqual([]);
    report(
      'redis up',
      usual.map((answer) => answer.ms),
    );
    // Bob listens to his home timeline; Ada is followed by the last client, Bob follows Ada (client 1 follows client 2, ...).
    await t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: ada.id }, bob.token);
    const listener = connectLive(t.url, bob.token);
    live.push(listener);
    const heard = listener.subscribe('subscription { timelinePostAdded { node { id } } }');
    // graphql-ws does not say when a subscription listens: post until one is heard.
    await vi.waitFor(
      async () => {
        const id = (await send(t.url, CREATE, { text: 'warm-up' }, ada.token)).body.data!.createPost.post.id as string;
        await vi.waitFor(() => expect(heard.data.map((data) => data.timelinePostAdded.node.id)).toContain(id), {
          timeout: 2_000,
        });
      },
      { timeout: 20_000 },
    );

    const written = vi.spyOn(process.stderr, 'write');
    await redis.stop();
    const down = await traffic(t.url, clients, 2, 'redis down');
    written.mockRestore();
    report(
      'redis killed',
      down.map((answer) => answer.ms),
    );
    expect(down.flatMap(codes)).toEqual([]);
    expect(down.every((answer) => answer.status === 200)).toBe(true);
    expect(maxMs(down)).toBeLessThan(maxMs(usual) + COMMAND_TIMEOUT_MS + MARGIN_MS);
    const degraded = await health(t.url);
    expect(degraded).toMatchObject({
      status: 200,
      body: { status: 'degraded', stores: { dynamodb: 'up', graph: 'up', redis: 'down' } },
    });
    expect(degraded.ms).toBeLessThan(1_000);
    // One line per connection that went down, however many requests fell back; nothing printed by a library.
    expect(
      captured.entries
        .filter((entry) => entry.msg === 'dependency unavailable')
        .map((entry) => entry.fields.dependency),
    ).toEqual(expect.arrayContaining(['redis']));
    expect(captured.entries.filter((entry) => entry.msg === 'dependency unavailable').length).toBeLessThanOrEqual(2);
    expect(captured.entries.filter((entry) => entry.level === 'error')).toEqual([]);
    expect(written.mock.calls.filter(([chunk]) => /ioredis|smithy/.test(String(chunk)))).toEqual([]);
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/^dependency_up\{dependency="redis"\} 0$/m);
    expect(metrics).toMatch(/^redis_circuit_state\{dependency="redis"\} [12]$/m);

    // A listener who subscribes during the outage is heard too once Redis is back.
    const carol = clients[2]!;
    await t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: ada.id }, carol.token);
    const lateListener = connectLive(t.url, carol.token);
    live.push(lateListener);
    const lateHeard = lateListener.subscribe('subscription { timelinePostAdded { node { id } } }');
    await vi.waitFor(() => expect(lateListener.acknowledged).toBe(1));

    redis = await startRedis(redis.port);
    await expect
      .poll(async () => (await health(t.url)).body, { timeout: 10_000, interval: 100 })
      .toEqual({
        status: 'ok',
        stores: { dynamodb: 'up', graph: 'up', redis: 'up' },
      });
    // The subscriber's connection comes back on its own retry, maybe after the commands' one: a post published before
    // it is lost, as live events during an outage are. Post until both listeners hear one.
    await vi.waitFor(
      async () => {
        const after = await send(t.url, CREATE, { text: 'after the outage' }, ada.token);
        const id = after.body.data!.createPost.post.id as string;
        await vi.waitFor(
          () => {
            expect(heard.data.map((data) => data.timelinePostAdded.node.id)).toContain(id);
            expect(lateHeard.data.map((data) => data.timelinePostAdded.node.id)).toContain(id);
          },
          { timeout: 2_000 },
        );
      },
      { timeout: 20_000 },
    );
    // The cache fills and answers again: the second read of a profile is a hit.
    await send(t.url, PROFILE, { id: ada.id }, bob.token);
    const cached = await send(t.url, PROFILE, { id: ada.id }, bob.token);
    expect(
      (cached.body as { extensions?: { cost: { cache: { hits: number } } } }).extensions?.cost.cache.hits,
    ).toBeGreaterThan(0);
    expect(
      captured.entries
        .filter((entry) => entry.msg === 'dependency answers again')
        .map((entry) => entry.fields.dependency),
    ).toEqual(expect.arrayContaining(['redis', 'redis_subscriber']));
  });

  it('answers every request within the operation deadline while Redis is frozen, and recovers when it thaws', async () => {
    const usual = await traffic(t.url, clients, 1, 'before freeze');
    redis.pause();
    let frozen: Answer[];
    try {
      frozen = await traffic(t.url, clients, 2, 'redis frozen');
      const degraded = await health(t.url);
      expect(degraded).toMatchObject({ status: 200, body: { status: 'degraded', stores: { redis: 'down' } } });
      expect(degraded.ms).toBeLessThan(1_000);
    } finally {
      redis.resume();
    }
    report(
      'redis frozen',
      frozen.map((answer) => answer.ms),
    );
    expect(frozen.flatMap(codes)).toEqual([]);
    expect(maxMs(frozen)).toBeLessThan(OPERATION_TIMEOUT_MS + MARGIN_MS);
    expect(maxMs(frozen)).toBeLessThan(maxMs(usual) + COMMAND_TIMEOUT_MS + MARGIN_MS);
    await expect.poll(async () => (await health(t.url)).body.status, { timeout: 10_000, interval: 100 }).toBe('ok');
  });
});

/** Pids of the java processes serving this data directory. */
function javaPidsFor(dataDir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (
        cmdline.split('\0')[0]!.endsWith('java') &&
        cmdline.includes('DynamoDBLocal.jar') &&
        cmdline.includes(dataDir)
      )
        pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

describe('DynamoDB Local frozen under a running service', () => {
  const OPERATION_TIMEOUT_MS = 4_000;
  const MARGIN_MS = 1_500;
  const dataDir = mkdtempSync(join(tmpdir(), 'social-frozen-'));
  const captured = capturingLogger();
  let engine: EmbeddedEngine;
  let app: RunningApp;
  let java: number;
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    JWT_SECRET: randomBytes(32).toString('hex'),
    PASSWORD_SCRYPT_LOG2_N: '10',
    TABLE_PREFIX: 'frozen_',
  };

  beforeAll(async () => {
    engine = await startEmbeddedEngine({ dataDir, logger: createLogger('silent') });
    [java] = javaPidsFor(dataDir) as [number];
    app = await startApp({
      config: loadConfig({
        ...env,
        DYNAMODB_ATTEMPT_TIMEOUT_MS: '1000',
        DYNAMODB_TIMEOUT_MS: '2000',
        OPERATION_TIMEOUT_MS: String(OPERATION_TIMEOUT_MS),
      }),
      logger: captured,
      dynamodbEndpoint: engine.endpoint,
    });
  }, 120_000);
  afterAll(async () => {
    if (java) process.kill(java, 'SIGCONT');
    await app?.stop();
    await engine?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * Tries again with a new handle while the store does not answer: on a busy machine, a just-started engine's first
   * writes can outlast these deadlines.
   */
  async function signUp(): Promise<Client> {
    const answer = await vi.waitUntil(
      async () => {
        const sent = await send(
          app.url,
          'mutation($input: SignUpInput!) { signUp(input: $input) { token user { id } } }',
          {
            input: { handle: uniqueHandle(), password: TEST_PASSWORD },
          },
        );
        if (sent.body.errors && codes(sent).every((code) => code === 'SERVICE_UNAVAILABLE')) return null;
        return sent;
      },
      { timeout: 60_000, interval: 500 },
    );
    expect(answer.body.errors).toBeUndefined();
    return { id: answer.body.data!.signUp.user.id, token: answer.body.data!.signUp.token };
  }

  it(
    'ends requests with SERVICE_UNAVAILABLE within the deadline, answers /healthz 503 within a second, and loses nothing acknowledged',
    { timeout: 120_000 },
    async () => {
      const clients = await Promise.all([signUp(), signUp(), signUp(), signUp()]);
      const acknowledged = new Map<string, string[]>(clients.map((client) => [client.id, []]));
      const acknowledge = (client: Client, answers: Answer[]) => {
        for (const answer of answers) {
          const post = answer.body.data?.createPost?.post as { id: string } | undefined;
          if (post) acknowledged.get(client.id)!.push(post.id);
        }
      };
      for (const client of clients)
        acknowledge(client, [await send(app.url, CREATE, { text: 'before' }, client.token)]);
      await expect.poll(async () => (await health(app.url)).status, { timeout: 30_000, interval: 200 }).toBe(200);
      // The outages counted below are the frozen engine's alone.
      const beforeFreeze = captured.entries.length;

      process.kill(java, 'SIGSTOP');
      let frozen: Answer[][];
      try {
        frozen = await Promise.all(
          clients.map(async (client, n) => {
            const mine = [await send(app.url, CREATE, { text: 'during' }, client.token)];
            mine.push(await send(app.url, HOME, {}, client.token));
            mine.push(await send(app.url, PROFILE, { id: clients[(n + 1) % clients.length]!.id }));
            return mine;
          }),
        );
        const down = await health(app.url);
        expect(down).toMatchObject({
          status: 503,
          body: { status: 'unavailable', stores: { dynamodb: 'down', graph: 'down' } },
        });
        expect(down.ms).toBeLessThan(1_000);
        // The store has failed calls in a row: the next requests fail fast, but for the one call that tries it again.
        const fast = await Promise.all(clients.map((client) => send(app.url, HOME, {}, client.token)));
        report(
          'dynamodb frozen, failing fast',
          fast.map((answer) => answer.ms),
        );
        expect(fast.flatMap(codes).every((code) => code === 'SERVICE_UNAVAILABLE')).toBe(true);
        expect(fast.filter((answer) => answer.ms < 1_000).length).toBeGreaterThanOrEqual(clients.length - 1);
        frozen.push(fast);
      } finally {
        process.kill(java, 'SIGCONT');
      }
      clients.forEach((client, n) => acknowledge(client, frozen[n]!));
      const answers = frozen.flat();
      report(
        'dynamodb frozen',
        answers.map((answer) => answer.ms),
      );
      expect(maxMs(answers)).toBeLessThan(OPERATION_TIMEOUT_MS + MARGIN_MS);
      for (const answer of answers) {
        // The whole request (its account could not be checked), or the fields that needed the store.
        expect(answer.status === 503 ? answer.retryAfter : '1').toBe('1');
        expect(codes(answer).length).toBeGreaterThan(0);
        expect(new Set(codes(answer))).toEqual(new Set(['SERVICE_UNAVAILABLE']));
      }
      expect(captured.entries.filter((entry) => entry.msg === 'internal error')).toEqual([]);
      expect(
        captured.entries
          .slice(beforeFreeze)
          .filter((entry) => entry.msg === 'dependency unavailable' && entry.fields.dependency === 'dynamodb'),
      ).toHaveLength(1);

      await expect.poll(async () => (await health(app.url)).status, { timeout: 30_000, interval: 200 }).toBe(200);
      for (const client of clients) {
        const posts = await send(
          app.url,
          'query($id: ID!) { user(id: $id) { posts(first: 100) { edges { node { id } } } } }',
          { id: client.id },
        );
        const ids = (posts.body.data!.user.posts.edges as { node: { id: string } }[]).map((edge) => edge.node.id);
        expect(ids).toEqual(expect.arrayContaining(acknowledged.get(client.id)!));
      }
      await app.stop();
      const client = createDocumentClient({ endpoint: engine.endpoint, tableName: tableName(env.TABLE_PREFIX) });
      try {
        expect(await auditCounters(client, tableName(env.TABLE_PREFIX), { includeGraph: true })).toMatchObject({
          drift: [],
          mismatches: [],
        });
      } finally {
        client.destroy();
      }
    },
  );

  it(
    'answers 503 with Retry-After at OPERATION_TIMEOUT_MS and abandons the store calls still running',
    { timeout: 60_000 },
    async () => {
      const SHORT_MS = 1_500;
      const patient = await startApp({
        config: loadConfig({
          ...env,
          DYNAMODB_ATTEMPT_TIMEOUT_MS: '30000',
          DYNAMODB_TIMEOUT_MS: '30000',
          OPERATION_TIMEOUT_MS: String(SHORT_MS),
        }),
        logger: createLogger('silent'),
        dynamodbEndpoint: engine.endpoint,
      });
      // DynamoDB calls that have ended without an answer, whoever ended them.
      const unavailable = async () =>
        (await storeRequests.get()).values
          .filter((value) => value.labels.store === 'dynamodb' && value.labels.outcome === 'error')
          .reduce((sum, value) => sum + value.value, 0);
      try {
        const before = await unavailable();
        process.kill(java, 'SIGSTOP');
        let answer: Answer;
        try {
          answer = await send(patient.url, PROFILE, { id: 'usr_00000000000000000000000000' });
          // The call was aborted with the operation, long before its own 30 s.
          await expect.poll(unavailable, { timeout: 2_000, interval: 50 }).toBeGreaterThan(before);
        } finally {
          process.kill(java, 'SIGCONT');
        }
        report('operation deadline', [answer.ms]);
        expect(answer.status).toBe(503);
        expect(answer.retryAfter).toBe('1');
        expect(answer.body).toEqual({
          errors: [
            {
              message: `The operation did not finish within ${SHORT_MS} ms: try again shortly`,
              extensions: { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 1, timeoutMs: SHORT_MS },
            },
          ],
        });
        expect(answer.ms).toBeGreaterThanOrEqual(SHORT_MS - 50);
        expect(answer.ms).toBeLessThan(SHORT_MS + MARGIN_MS);
      } finally {
        await patient.stop();
      }
    },
  );
});
