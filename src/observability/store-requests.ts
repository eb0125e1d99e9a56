import { performance } from 'node:perf_hooks';
import { type Span, SpanKind } from '@opentelemetry/api';
import { ATTR_DB_OPERATION_NAME, ATTR_DB_SYSTEM_NAME } from '@opentelemetry/semantic-conventions';
import { dynamodbCapacity, requestOrigin, storeRequestDuration, storeRequests } from './metrics.js';
import { inSpan } from './tracing.js';

/** Which figure a request counts towards: DynamoDB, or the graph (Neo4j, or the embedded graph backend's DynamoDB client). */
export type StoreName = 'dynamodb' | 'graph';

/**
 * Sends one store request observed: a client span (when tracing is on), its count by outcome
 * and origin, and its duration. `command` is a store command or a Cypher statement's name,
 * both from the code, so the labels stay bounded.
 */
export async function observeStoreRequest<T>(
  store: StoreName,
  system: 'aws.dynamodb' | 'neo4j',
  command: string,
  send: (span: Span | null) => Promise<T>,
): Promise<T> {
  const origin = requestOrigin();
  const started = performance.now();
  let outcome = 'error';
  try {
    const result = await inSpan(
      `${system === 'neo4j' ? 'Neo4j' : 'DynamoDB'} ${command}`,
      { kind: SpanKind.CLIENT, attributes: { [ATTR_DB_SYSTEM_NAME]: system, [ATTR_DB_OPERATION_NAME]: command } },
      send,
    );
    outcome = 'ok';
    return result;
  } finally {
    storeRequests.inc({ store, command, outcome, origin });
    storeRequestDuration.observe({ store, command }, (performance.now() - started) / 1000);
  }
}

/** Adds the capacity units DynamoDB reported for one request to the metrics and to its span. */
export function recordConsumedCapacity(
  store: StoreName,
  command: string,
  span: Span | null,
  read: number,
  write: number,
): void {
  const origin = requestOrigin();
  if (read > 0) dynamodbCapacity.inc({ store, capacity: 'read', command, origin }, read);
  if (write > 0) dynamodbCapacity.inc({ store, capacity: 'write', command, origin }, write);
  span?.setAttributes({ 'aws.dynamodb.consumed_read_capacity': read, 'aws.dynamodb.consumed_write_capacity': write });
}
