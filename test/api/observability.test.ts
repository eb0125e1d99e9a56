import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { createLogger } from '../../src/logger.js';
import { MAX_OPERATION_NAMES } from '../../src/observability/metrics.js';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { keys, tableName } from '../../src/stores/dynamo/keys.js';
import type { TaskPayload } from '../../src/domain/tasks.js';
import { type TestApp, startTestApp } from '../helpers/app.js';
import { createPost, follow, homeIds } from '../helpers/posts.js';
import { waitForQueueToDrain, WORKER_WAIT } from '../helpers/queue.js';
import { killWorkerProcesses, startWorkerProcess } from '../helpers/worker-process.js';

/** Every JSON line the service writes on stderr while the test runs. */
const logLines: Record<string, any>[] = [];
const realWrite = process.stderr.write.bind(process.stderr);

let t: TestApp;
beforeAll(async () => {
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: any[]) => {
    for (const line of String(chunk).split('\n')) {
      if (line.startsWith('{')) logLines.push(JSON.parse(line));
    }
    return realWrite(chunk, ...rest);
  });
  // The real logger, at info: what an operator sees.
  t = await startTestApp(
    { QUEUE_MAX_ATTEMPTS: '1', QUEUE_POLL_MS: '50', LOG_LEVEL: 'info' },
    { logger: createLogger('info') },
  );
});
afterAll(async () => {
  killWorkerProcesses();
  vi.restoreAllMocks();
  await t.stop();
});

async function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** The samples of one metric in Prometheus text format, as label sets with values. */
function samples(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  const found: { labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[key!] = value!;
    found.push({ labels, value: Number(match[3]) });
  }
  return found;
}

/** The sum of a metric's samples whose labels include `labels`. */
function total(text: string, name: string, labels: Record<string, string> = {}): number {
  return samples(text, name)
    .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** A time as the 10 characters of a ULID (ids cannot be made in the past by newId: they only move forward). */
function crockford(ms: number): string {
  let out = '';
  for (let rest = ms, i = 0; i < 10; i++, rest = Math.floor(rest / 32))
    out = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'[rest % 32] + out;
  return out;
}

async function scrape(url = `${t.url}/metrics`): Promise<string> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

describe('HTTP caching', () => {
  it('marks every GraphQL answer no-store, with data or refused', async () => {
    const answered = await post({ query: '{ __typename }' });
    expect(answered.status).toBe(200);
    expect(answered.headers.get('cache-control')).toBe('no-store');
    const refused = await post({ query: '{ nope }' });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('cache-control')).toBe('no-store');
  });
});

describe('request ids', () => {
  it('keeps a well-formed x-request-id and returns it; replaces a malformed or missing one with a new id', async () => {
    const kept = await post({ query: '{ __typename }' }, { 'x-request-id': 'lb-7f3a.42:req/1' });
    expect(kept.headers.get('x-request-id')).toBe('lb-7f3a.42:req/1');

    const generated = await Promise.all([
      post({ query: '{ __typename }' }),
      post({ query: '{ __typename }' }, { 'x-request-id': 'has spaces and "quotes"' }),
      post({ query: '{ __typename }' }, { 'x-request-id': 'x'.repeat(129) }),
    ]);
    const ids = generated.map((response) => response.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(3);

    const other = await fetch(`${t.url}/nowhere`, { headers: { 'x-request-id': 'probe-1' } });
    expect(other.status).toBe(404);
    expect(other.headers.get('x-request-id')).toBe('probe-1');
  });

  it('is on every log line written while serving the request, deep in a use case too', async () => {
    const user = await t.signUp();
    const refresh = 'mutation($r: String!) { refreshSession(refreshToken: $r) { token } }';
    expect((await post({ query: refresh, variables: { r: user.refreshToken } })).status).toBe(200);
    // The same refresh token again: the session use case logs a warning, deep below the HTTP layer.
    const replay = await post({ query: refresh, variables: { r: user.refreshToken } }, { 'x-request-id': 'replay-42' });
    expect(replay.headers.get('x-request-id')).toBe('replay-42');

    await vi.waitFor(() =>
      expect(logLines.filter((line) => line.msg === 'request' && line.requestId === 'replay-42')).toHaveLength(1),
    );
    const ofRequest = logLines.filter((line) => line.requestId === 'replay-42');
    expect(ofRequest.map((line) => line.msg)).toEqual([
      'a used refresh token was presented again: its session is ended',
      'request',
    ]);
    expect(ofRequest[1]).toMatchObject({
      level: 'info',
      method: 'POST',
      route: '/graphql',
      status: '200',
      durationMs: expect.any(Number),
    });
    // Every request's access line carries an id; lines outside requests (start-up, the worker) carry none.
    const accessLines = logLines.filter((line) => line.msg === 'request');
    expect(accessLines.length).toBeGreaterThan(5);
    for (const line of accessLines) expect(line.requestId).toEqual(expect.any(String));
  });
});

describe('GET /metrics', () => {
  it('counts and times operations by name, errors by code, requests by route and store requests with their capacity', async () => {
    const before = await scrape();
    const user = await t.signUp();
    expect(
      (await post({ query: 'query ObsViewer { viewer { id handle } }' }, { authorization: `Bearer ${user.token}` }))
        .status,
    ).toBe(200);
    const bad = await post({
      query: 'query ObsBadUser($first: Int!) { publicTimeline(first: $first) { edges { cursor } } }',
      variables: { first: -1 },
    });
    expect(((await bad.json()) as any).errors[0].extensions.code).toBe('BAD_USER_INPUT');
    await post({ query: '{ nosuchfield }' });

    const after = await scrape();
    const grew = (name: string, labels: Record<string, string>) =>
      total(after, name, labels) - total(before, name, labels);
    expect(grew('graphql_operation_duration_seconds_count', { operation: 'ObsViewer', type: 'query' })).toBe(1);
    expect(
      grew('graphql_operation_duration_seconds_bucket', { operation: 'ObsViewer', type: 'query', le: '+Inf' }),
    ).toBe(1);
    expect(grew('graphql_errors_total', { operation: 'ObsBadUser', code: 'BAD_USER_INPUT' })).toBe(1);
    // A document that does not validate names no operation: its errors count under `invalid`.
    expect(grew('graphql_errors_total', { operation: 'invalid', code: 'GRAPHQL_VALIDATION_FAILED' })).toBe(1);
    expect(grew('http_requests_total', { route: '/graphql', method: 'POST', status: '200' })).toBeGreaterThanOrEqual(3);
    expect(grew('http_request_duration_seconds_count', { route: '/graphql' })).toBeGreaterThanOrEqual(4);
    expect(grew('http_requests_total', { route: '/metrics', method: 'GET', status: '200' })).toBe(1);
    // Sign-up wrote and the viewer query read, for the requests that made them.
    expect(
      grew('store_requests_total', {
        store: 'dynamodb',
        command: 'TransactWriteItems',
        outcome: 'ok',
        origin: 'request',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      grew('dynamodb_consumed_capacity_units_total', { store: 'dynamodb', capacity: 'write', origin: 'request' }),
    ).toBeGreaterThan(0);
    expect(
      grew('dynamodb_consumed_capacity_units_total', { store: 'dynamodb', capacity: 'read', origin: 'request' }),
    ).toBeGreaterThan(0);
    expect(grew('store_request_duration_seconds_count', { store: 'dynamodb' })).toBeGreaterThan(0);
    expect(total(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('labels at most MAX_OPERATION_NAMES distinct operation names, however many clients send', async () => {
    for (let i = 0; i < MAX_OPERATION_NAMES + 20; i++) await post({ query: `query Flood${i} { __typename }` });
    // Names of documents that never validate are never labels.
    await post({ query: 'query Unvalidated { nosuchfield }' });
    const text = await scrape();
    const names = new Set(
      samples(text, 'graphql_operation_duration_seconds_count').map((sample) => sample.labels.operation),
    );
    expect(names.size).toBeLessThanOrEqual(MAX_OPERATION_NAMES + 3);
    expect(names).toContain('other');
    expect(names).not.toContain('Unvalidated');
    expect(names).not.toContain(`Flood${MAX_OPERATION_NAMES + 19}`);
  });

  it("shows the in-process worker's tasks, fan-out lag, queue depth and dead letters", async () => {
    const poison = { id: newId('tsk'), payload: { kind: 'fromTheFuture' } as unknown as TaskPayload };
    await t.app.stores.tasks.enqueue(poison);
    const [reader, author] = await Promise.all([t.signUp(), t.signUp()]);
    await follow(t, reader.token, author.id);
    const postId = await createPost(t, author.token, 'measured');
    await expect.poll(() => homeIds(t, reader), WORKER_WAIT).toEqual([postId]);
    await waitForQueueToDrain(t);

    await vi.waitFor(async () => {
      const text = await scrape();
      expect(total(text, 'worker_tasks_total', { kind: 'fanOut', outcome: 'done' })).toBeGreaterThanOrEqual(1);
      expect(total(text, 'worker_tasks_total', { kind: 'backfill', outcome: 'done' })).toBeGreaterThanOrEqual(1);
      expect(total(text, 'worker_tasks_total', { kind: 'fromTheFuture', outcome: 'dead_lettered' })).toBe(1);
      expect(total(text, 'fanout_lag_seconds_count')).toBeGreaterThanOrEqual(1);
      expect(total(text, 'worker_task_wait_seconds_count', { kind: 'fanOut' })).toBeGreaterThanOrEqual(1);
      expect(total(text, 'worker_task_run_duration_seconds_count', { kind: 'fanOut' })).toBeGreaterThanOrEqual(1);
      expect(total(text, 'store_requests_total', { store: 'dynamodb', origin: 'background' })).toBeGreaterThan(0);
      // The queue is read at the scrape: drained, every shard is empty; the poisoned task waits in DEADLETTER.
      expect(
        samples(text, 'task_queue_depth')
          .map((sample) => sample.labels.shard)
          .sort(),
      ).toEqual(['0', '1', '2', '3']);
      expect(total(text, 'task_queue_depth')).toBe(0);
      expect(total(text, 'task_queue_oldest_task_age_seconds')).toBe(0);
      expect(total(text, 'task_dead_letters')).toBe(1);
      expect(total(text, 'worker_tasks_running')).toBe(0);
    }, WORKER_WAIT);
  });

  describe('stored items: a task enqueued a minute ago', () => {
    it('shows a waiting task in the queue depth and the age of the oldest task', async () => {
      // A task enqueued a minute ago and held by a worker elsewhere (its lease runs for an hour).
      const id = `tsk_${crockford(Date.now() - 60_000)}${newId('tsk').slice(-16)}`;
      const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
      const item = {
        ...keys.task(2, id),
        id,
        payload: { kind: 'backfill', followerId: 'usr_x', followeeId: 'usr_y' },
        leaseUntil: Date.now() + 3_600_000,
        attempts: 1,
        failures: 0,
      };
      await client.send(new PutCommand({ TableName: tableName(t.tablePrefix), Item: item }));
      try {
        const text = await scrape();
        expect(samples(text, 'task_queue_depth').find((sample) => sample.labels.shard === '2')?.value).toBe(1);
        expect(total(text, 'task_queue_depth')).toBe(1);
        const age = samples(text, 'task_queue_oldest_task_age_seconds').find(
          (sample) => sample.labels.shard === '2',
        )!.value;
        expect(age).toBeGreaterThanOrEqual(59);
        expect(age).toBeLessThan(120);
      } finally {
        await client.send(new DeleteCommand({ TableName: tableName(t.tablePrefix), Key: keys.task(2, id) }));
        client.destroy();
      }
    });
  });

  it('shows that /healthz reads one key of the table, never its description (which counts every item on DynamoDB Local)', async () => {
    const dynamodb = (text: string, command: string) =>
      total(text, 'store_requests_total', { store: 'dynamodb', command });
    const before = await scrape();
    for (let i = 0; i < 3; i++) expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    const after = await scrape();
    expect(dynamodb(after, 'DescribeTable') - dynamodb(before, 'DescribeTable')).toBe(0);
    expect(dynamodb(after, 'GetItem') - dynamodb(before, 'GetItem')).toBeGreaterThanOrEqual(3);
  });

  it('shows /healthz 503 with DynamoDB down once the table is gone', async () => {
    const broken = await startTestApp({ WORKER_ENABLED: 'false' });
    const client = createDocumentClient({ endpoint: broken.endpoint, tableName: tableName(broken.tablePrefix) });
    try {
      expect((await fetch(`${broken.url}/healthz`)).status).toBe(200);
      await client.send(new DeleteTableCommand({ TableName: tableName(broken.tablePrefix) }));
      const response = await fetch(`${broken.url}/healthz`);
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ status: 'unavailable', stores: { dynamodb: 'down' } });
    } finally {
      client.destroy();
      await broken.app.stop();
    }
  });

  it('is not served with METRICS=false', async () => {
    const off = await startTestApp({ METRICS: 'false', WORKER_ENABLED: 'false' });
    try {
      expect((await fetch(`${off.url}/metrics`)).status).toBe(404);
    } finally {
      await off.stop();
    }
  });
});

describe('a standalone worker', () => {
  it('serves its own metrics on WORKER_METRICS_PORT', async () => {
    const api = await startTestApp({ WORKER_ENABLED: 'false' });
    try {
      const worker = startWorkerProcess(api, { QUEUE_POLL_MS: '50' });
      const started = await worker.logLine((entry) => entry.msg === 'worker started');
      expect(started.metrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const [reader, author] = await Promise.all([api.signUp(), api.signUp()]);
      await follow(api, reader.token, author.id);
      const postId = await createPost(api, author.token, 'from the worker process');
      await expect.poll(() => homeIds(api, reader), WORKER_WAIT).toEqual([postId]);
      await vi.waitFor(async () => {
        const text = await scrape(started.metrics);
        expect(total(text, 'worker_tasks_total', { kind: 'fanOut', outcome: 'done' })).toBe(1);
        expect(total(text, 'fanout_lag_seconds_count')).toBe(1);
        expect(samples(text, 'task_queue_depth')).toHaveLength(4);
      }, WORKER_WAIT);
      expect((await fetch(started.metrics.replace('/metrics', '/graphql'))).status).toBe(404);
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    } finally {
      await api.stop();
    }
  });
});
