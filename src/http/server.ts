import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { HeaderMap, type ApolloServer, type HTTPGraphQLRequest } from '@apollo/server';
import type { GraphQLContext } from '../graphql/context.js';
import { RETRY_AFTER_SECONDS } from '../domain/errors.js';
import { signalWithin, withDeadline, withTimeout } from '../lib/deadline.js';
import { type Cost, emptyCost, withCostMeter } from '../observability/cost.js';
import { observeHttpRequest } from '../observability/http-requests.js';
import { registry } from '../observability/metrics.js';
import type { Logger } from '../logger.js';
import { serveGraphiQL } from './graphiql.js';
import { landingPage } from './landing-page.js';
import { persistedQueryProblem } from './persisted-query.js';

export const MAX_BODY_BYTES = 100 * 1024;

/** /healthz answers within this, whatever the stores do: a load balancer's check must not hang on them. */
const HEALTH_TIMEOUT_MS = 950;

export interface HttpOptions {
  apollo: ApolloServer<GraphQLContext>;
  context: (request: IncomingMessage, cost: Cost) => Promise<GraphQLContext>;
  /** The service's state and each store's: `up` when it answers. */
  health: () => Promise<{ status: 'ok' | 'degraded' | 'unavailable'; stores: object }>;
  logger: Logger;
  /** Serve GraphiQL at /graphiql. */
  graphiql: boolean;
  /** schema.graphql as written (with its `@cost` and `@listSize`), served at /schema.graphql. */
  schemaSdl: string;
  /** Serve the process's Prometheus metrics at /metrics. */
  metrics: boolean;
  timeouts: HttpTimeouts;
  /** The store requests one operation may send (MAX_STORE_REQUESTS). */
  maxStoreRequests: number;
  /** OPERATION_TIMEOUT_MS: the longest an operation over HTTP may run before it is answered 503. */
  operationTimeoutMs: number;
  /** WebSocket upgrades (GraphQL subscriptions, see subscriptions.ts). */
  upgrade?: (request: IncomingMessage, socket: Duplex, head: Buffer) => void;
}

/** Settings HTTP_REQUEST_TIMEOUT_MS, HTTP_HEADERS_TIMEOUT_MS, HTTP_KEEP_ALIVE_TIMEOUT_MS. */
export interface HttpTimeouts {
  requestMs: number;
  headersMs: number;
  keepAliveMs: number;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Close the connection after answering, rather than read the rest of a request body. */
    readonly closeConnection = false,
  ) {
    super(message);
  }
}

const bodyTooLarge = () => new HttpError(413, `Request body larger than ${MAX_BODY_BYTES} bytes`, true);

/** The client closed the connection, or it timed out, before its request was read: there is no one to answer. */
class ClientGone extends Error {}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      reject(bodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      if (size > MAX_BODY_BYTES) return;
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        // Answer 413 first; the connection closes after the answer (closeConnection).
        reject(bodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    let ended = false;
    request.on('end', () => {
      ended = true;
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    // Node ends a request whose client hangs up or times out with an "aborted" error, then "close".
    request.on('error', (error) => reject(new ClientGone(error.message)));
    request.on('close', () => {
      if (!ended) reject(new ClientGone('connection closed'));
    });
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

const DEADLINE = Symbol('deadline');

function deadlinePassed(signal: AbortSignal): Promise<typeof DEADLINE> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(DEADLINE), { once: true }));
}

/** What an operation that did not finish within OPERATION_TIMEOUT_MS answers, with HTTP 503 and Retry-After. */
function deadlineBody(timeoutMs: number) {
  return {
    errors: [
      {
        message: `The operation did not finish within ${timeoutMs} ms: try again shortly`,
        extensions: { code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: RETRY_AFTER_SECONDS, timeoutMs },
      },
    ],
  };
}

function graphqlErrorBody(message: string, code: string) {
  return { errors: [{ message, extensions: { code } }] };
}

async function handleGraphQL(
  options: HttpOptions,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<void> {
  const headers = new HeaderMap();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  let body: unknown;
  if (request.method === 'POST') {
    const raw = await readBody(request);
    if ((headers.get('content-type') ?? '').includes('application/json')) {
      try {
        body = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        throw new HttpError(400, 'Request body is not valid JSON');
      }
    } else {
      body = raw;
    }
  }
  const malformed = persistedQueryProblem(body, url.searchParams);
  if (malformed) throw new HttpError(400, malformed);
  const httpGraphQLRequest: HTTPGraphQLRequest = {
    method: request.method ?? 'GET',
    headers,
    search: url.search,
    body,
  };
  // Every backend request made while serving this operation is counted into its meter.
  const cost = emptyCost(options.maxStoreRequests);
  const deadline = signalWithin(options.operationTimeoutMs, []);
  try {
    await answer(deadline.signal);
  } finally {
    deadline.release();
  }

  async function answer(signal: AbortSignal): Promise<void> {
    const executing = withDeadline(signal, () =>
      withCostMeter(cost, () =>
        options.apollo.executeHTTPGraphQLRequest({ httpGraphQLRequest, context: () => options.context(request, cost) }),
      ),
    );
    const result = await Promise.race([executing, deadlinePassed(signal)]);
    if (result === DEADLINE) {
      // Store calls still running see the same signal and are abandoned; what they would have answered goes nowhere.
      executing.catch(() => {});
      options.logger.debug('operation deadline passed', { timeoutMs: options.operationTimeoutMs });
      response.writeHead(503, {
        'content-type': 'application/json; charset=utf-8',
        'retry-after': String(RETRY_AFTER_SECONDS),
      });
      response.end(JSON.stringify(deadlineBody(options.operationTimeoutMs)));
      return;
    }
    // Answers are per viewer: never stored by a browser or a proxy.
    response.setHeader('cache-control', 'no-store');
    for (const [name, value] of result.headers) response.setHeader(name, value);
    response.statusCode = result.status ?? 200;
    if (result.body.kind === 'complete') {
      response.end(result.body.string);
      return;
    }
    for await (const chunk of result.body.asyncIterator) response.write(chunk);
    response.end();
  }
}

/** One log line when the service's health changes, not one per check. */
function healthLog(logger: Logger): (health: { status: string; stores: object }) => void {
  let last = 'ok';
  return (health) => {
    if (health.status === last) return;
    last = health.status;
    if (health.status === 'ok') logger.info('healthy again', { stores: health.stores });
    else logger.warn(`health ${health.status}`, { stores: health.stores });
  };
}

async function route(
  options: HttpOptions & { healthChanged: ReturnType<typeof healthLog> },
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (url.pathname === '/graphql') return handleGraphQL(options, request, response, url);
  if (request.method !== 'GET' && request.method !== 'HEAD') throw new HttpError(405, 'Method not allowed');
  if (options.graphiql && serveGraphiQL(url.pathname, response)) return;
  switch (url.pathname) {
    case '/schema.graphql':
      // Published in production too, where introspection is off: tools (codegen, GraphQL Inspector) read it here.
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-cache' });
      response.end(options.schemaSdl);
      return;
    case '/healthz': {
      const health = await withTimeout(
        options.health(),
        HEALTH_TIMEOUT_MS,
        () => new Error('health checks did not finish'),
      ).catch(() => ({
        status: 'unavailable' as const,
        stores: {},
      }));
      options.healthChanged(health);
      return sendJson(response, health.status === 'unavailable' ? 503 : 200, health);
    }
    case '/metrics':
      if (!options.metrics) throw new HttpError(404, 'Not found');
      return serveMetrics(response);
    case '/':
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(landingPage(options.graphiql));
      return;
    default:
      throw new HttpError(404, 'Not found');
  }
}

/** The process's metrics in Prometheus text format (see src/observability/metrics.ts). */
export async function serveMetrics(response: ServerResponse): Promise<void> {
  const text = await registry.metrics();
  response.writeHead(200, { 'content-type': registry.contentType });
  response.end(text);
}

export function createHttpServer(httpOptions: HttpOptions): Server {
  const options = { ...httpOptions, healthChanged: healthLog(httpOptions.logger) };
  const { requestMs, headersMs, keepAliveMs } = options.timeouts;
  const server = createServer(
    {
      requestTimeout: requestMs,
      headersTimeout: headersMs,
      keepAliveTimeout: keepAliveMs,
      // Node checks the request and headers timeouts on this interval; its default, 30 s, could double them.
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(headersMs / 10))),
    },
    (request, response) =>
      observeHttpRequest(request, response, options.logger, () => {
        route(options, request, response).catch((error: unknown) => {
          if (error instanceof ClientGone) {
            options.logger.debug('client went away before sending its whole request', { reason: error.message });
            return;
          }
          if (response.headersSent) {
            response.destroy();
            return;
          }
          if (error instanceof HttpError) {
            if (error.closeConnection) response.setHeader('connection', 'close');
            sendJson(response, error.status, graphqlErrorBody(error.message, 'BAD_REQUEST'));
            return;
          }
          options.logger.error('unhandled HTTP error', { error });
          sendJson(response, 500, graphqlErrorBody('Internal server error', 'INTERNAL_SERVER_ERROR'));
        });
      }),
  );
  if (options.upgrade) server.on('upgrade', options.upgrade);
  return server;
}
