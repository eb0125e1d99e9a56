import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeTracer } from '../../src/observability/tracing.js';
import { startTestApp } from '../helpers/app.js';
import { createPost, follow, homeIds } from '../helpers/posts.js';
import { WORKER_WAIT } from '../helpers/queue.js';

interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

/** A loopback OTLP/HTTP collector: keeps every span posted to /v1/traces (the exporter sends JSON). */
let collector: Server;
let collectorUrl: string;
const received: ReceivedSpan[] = [];
const paths: string[] = [];

function attributeValue(value: Record<string, unknown>): unknown {
  return value.stringValue ?? value.intValue ?? value.doubleValue ?? value.boolValue;
}

beforeAll(async () => {
  collector = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      paths.push(request.url ?? '');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const resourceSpans of body.resourceSpans ?? []) {
        const resource = Object.fromEntries(
          (resourceSpans.resource?.attributes ?? []).map((a: any) => [a.key, attributeValue(a.value)]),
        );
        for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
          for (const span of scopeSpans.spans ?? []) {
            received.push({
              service: String(resource['service.name']),
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              name: span.name,
              kind: span.kind,
              attributes: Object.fromEntries((span.attributes ?? []).map((a: any) => [a.key, attributeValue(a.value)])),
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => collector.close(resolve));
});

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';
const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

describe('traces', () => {
  it('are exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set: a request, its resolvers and its store calls, and the worker tasks', async () => {
    const t = await startTestApp({
      OTEL_EXPORTER_OTLP_ENDPOINT: `${collectorUrl}/`,
      OTEL_SERVICE_NAME: 'traced-api',
      QUEUE_POLL_MS: '50',
    });
    let postId: string;
    try {
      const [reader, author] = await Promise.all([t.signUp(), t.signUp()]);
      await follow(t, reader.token, author.id);
      postId = await createPost(t, author.token, 'traced');
      await expect.poll(() => homeIds(t, reader), WORKER_WAIT).toEqual([postId]);
      const response = await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${reader.token}`,
          'x-request-id': 'traced-1',
          // The caller's trace: the request's span joins it.
          traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01`,
        },
        body: JSON.stringify({
          query:
            'query TracedHome { viewer { handle timeline(first: 5) { edges { node { id text author { handle } } } } } }',
        }),
      });
      expect(response.status).toBe(200);
    } finally {
      // Stopping flushes the spans still buffered.
      await t.stop();
    }
    expect(activeTracer()).toBeNull();
    expect(new Set(paths)).toEqual(new Set(['/v1/traces']));

    const ofRequest = received.filter((span) => span.traceId === TRACE_ID);
    const requestSpan = ofRequest.find((span) => span.kind === SERVER)!;
    expect(requestSpan).toMatchObject({
      service: 'traced-api',
      name: 'POST /graphql',
      parentSpanId: CALLER_SPAN_ID,
      attributes: expect.objectContaining({
        'request.id': 'traced-1',
        'http.route': '/graphql',
        'http.response.status_code': 200,
        'graphql.operation.name': 'TracedHome',
        'graphql.operation.type': 'query',
      }),
    });
    const byName = (name: string) => ofRequest.filter((span) => span.name === name);
    // Resolver spans: one per path without list indices, each under its nearest traced ancestor.
    const viewer = byName('resolve Query.viewer');
    expect(viewer).toHaveLength(1);
    expect(viewer[0]!.parentSpanId).toBe(requestSpan.spanId);
    const timeline = byName('resolve User.timeline');
    expect(timeline).toHaveLength(1);
    expect(timeline[0]!.parentSpanId).toBe(viewer[0]!.spanId);
    expect(timeline[0]!.attributes['graphql.field.path']).toBe('viewer.timeline');
    const authors = byName('resolve Post.author');
    expect(authors).toHaveLength(1);
    expect(authors[0]!.attributes['graphql.field.path']).toBe('viewer.timeline.edges.node.author');
    // Store calls: client spans in the request's trace, with the capacity they consumed.
    const storeSpans = ofRequest.filter((span) => span.kind === CLIENT);
    expect(storeSpans.length).toBeGreaterThanOrEqual(2);
    for (const span of storeSpans) {
      expect(span.name).toMatch(/^DynamoDB [A-Za-z]+$/);
      expect(span.attributes['db.system.name']).toBe('aws.dynamodb');
      expect(span.attributes['aws.dynamodb.consumed_read_capacity']).toEqual(expect.any(Number));
    }
    expect(storeSpans.map((span) => span.name)).toContain('DynamoDB Query');

    // The fan-out ran in a trace of its own, with its store calls inside.
    const fanOut = received.find((span) => span.name === 'task fanOut')!;
    expect(fanOut).toMatchObject({
      kind: CONSUMER,
      parentSpanId: '',
      attributes: expect.objectContaining({ 'task.kind': 'fanOut' }),
    });
    const fanOutStoreCalls = received.filter((span) => span.traceId === fanOut.traceId && span.kind === CLIENT);
    expect(fanOutStoreCalls.map((span) => span.name)).toEqual(expect.arrayContaining(['DynamoDB TransactWriteItems']));
    for (const span of fanOutStoreCalls) expect(span.parentSpanId).toBe(fanOut.spanId);
  });

  it('are off without OTEL_EXPORTER_OTLP_ENDPOINT: nothing is set up or sent', async () => {
    const before = received.length;
    const t = await startTestApp();
    try {
      expect(activeTracer()).toBeNull();
      const user = await t.signUp();
      expect((await t.gql('{ viewer { handle } }', {}, user.token)).data).toEqual({ viewer: { handle: user.handle } });
    } finally {
      await t.stop();
    }
    expect(received.length).toBe(before);
  });
});
