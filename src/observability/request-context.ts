import { randomUUID } from 'node:crypto';
import { ScopedValue } from '../lib/scoped-value.js';

/**
 * The request a piece of work runs for, found through AsyncLocalStorage: every log line
 * written while serving a request carries its id (see createLogger), however deep the call.
 */
const scope = new ScopedValue<string>('requestId');

/**
 * What a client's `x-request-id` may be to be kept (a proxy's or a caller's id, so that its logs
 * and ours join up): 1-128 characters that need no escaping in a log or a header. Anything else
 * is replaced by a fresh id, so a client can neither bloat log lines nor forge their structure.
 */
const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The request's id: the client's `x-request-id` when well-formed, a new UUID otherwise. */
export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
}

export function withRequestId<T>(requestId: string, fn: () => T): T {
  return scope.run(requestId, fn);
}

/** The id of the request being served, if any (none in the worker's own tasks). */
export function currentRequestId(): string | undefined {
  return scope.get();
}
