import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { SpanStatusCode, context } from '@opentelemetry/api';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
} from '@opentelemetry/semantic-conventions';
import type { Logger } from '../logger.js';
import { httpRequestDuration, httpRequests } from './metrics.js';
import { requestIdFrom, withRequestId } from './request-context.js';
import { startServerSpan } from './tracing.js';

/** The routes the server answers, as labels; everything else is `other`, so no client can add a series. */
function routeOf(url: string | undefined): string {
  const path = new URL(url ?? '/', 'http://localhost').pathname;
  if (path === '/graphql' || path === '/healthz' || path === '/metrics' || path === '/') return path;
  if (path === '/graphiql' || path.startsWith('/graphiql/')) return '/graphiql';
  return 'other';
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'OPTIONS']);

/**
 * Serves one HTTP request observed: a request id (the client's when well-formed) in the response and every log
 * line, its span as the parent of its work, and counted, timed and logged once answered.
 */
export function observeHttpRequest(
  request: IncomingMessage,
  response: ServerResponse,
  logger: Logger,
  handle: () => void,
): void {
  const requestId = requestIdFrom(request.headers['x-request-id']);
  response.setHeader('x-request-id', requestId);
  const route = routeOf(request.url);
  const method = METHODS.has(request.method ?? '') ? request.method! : 'other';
  const started = performance.now();
  const traced = startServerSpan(`${method} ${route}`, request.headers, {
    [ATTR_HTTP_REQUEST_METHOD]: method,
    [ATTR_HTTP_ROUTE]: route,
    'request.id': requestId,
  });
  response.once('close', () => {
    const seconds = (performance.now() - started) / 1000;
    // Closed before the answer was sent: the client went away or timed out.
    const status = response.writableFinished ? String(response.statusCode) : 'aborted';
    httpRequests.inc({ route, method, status });
    httpRequestDuration.observe({ route }, seconds);
    if (traced) {
      if (response.writableFinished) traced.span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, response.statusCode);
      if (!response.writableFinished || response.statusCode >= 500)
        traced.span.setStatus({ code: SpanStatusCode.ERROR });
      traced.span.end();
    }
    withRequestId(requestId, () =>
      logger.info('request', { method, route, status, durationMs: Math.round(seconds * 10_000) / 10 }),
    );
  });
  const run = () => withRequestId(requestId, handle);
  if (traced) context.with(traced.context, run);
  else run();
}
