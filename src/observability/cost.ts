import { AppError } from '../domain/errors.js';
import { ScopedValue } from '../lib/scoped-value.js';

/**
 * What one GraphQL operation cost the backends, recorded where requests are sent, into the operation's meter
 * (found through AsyncLocalStorage) and the process totals.
 */
export interface Cost {
  dynamodb: { requests: number; readCapacityUnits: number; writeCapacityUnits: number };
  graph: { requests: number };
  /** Sequential store round trips on the operation's critical path (see docs/design/limits.md). */
  waves: number;
  /** Lookups of cached items (profiles, posts, counter shards) answered by the cache, and those that went to DynamoDB. */
  cache: { hits: number; misses: number };
  /** Store requests sent so far, answered or not: what the budget counts. */
  sent: number;
  /** The most store requests (DynamoDB and graph) the operation may send (MAX_STORE_REQUESTS); null: unlimited. */
  maxRequests: number | null;
  /** Who sent the operation, as its rate limit names them: DynamoDB request slots are shared among them. Null: unknown yet. */
  client: string | null;
}

export function emptyCost(maxRequests: number | null = null): Cost {
  return {
    dynamodb: { requests: 0, readCapacityUnits: 0, writeCapacityUnits: 0 },
    graph: { requests: 0 },
    waves: 0,
    cache: { hits: 0, misses: 0 },
    sent: 0,
    maxRequests,
    client: null,
  };
}

const scope = new ScopedValue<Cost>('cost');
/** Work that must not stop half-way (a mutation's own writes and the reads between them) is counted but never refused. */
const unbudgeted = new ScopedValue<true>('unbudgeted');

/** Per meter, the deepest wave of a request that has come back. */
const answeredWave = new WeakMap<Cost, number>();

/** Process-wide totals since start: what the tests and benchmarks read. */
export const totals: Cost = emptyCost();

/** Runs `fn` with a fresh meter; everything it sends, however deep, is counted into it. */
export function withCostMeter<T>(meter: Cost, fn: () => T): T {
  return scope.run(meter, fn);
}

/** The meter of the operation running now, if any: requests of one operation may be combined, never those of two. */
export function currentCostMeter(): Cost | undefined {
  return scope.get();
}

/** Runs `fn` outside the operation's budget: its requests are counted, never refused. */
export function withoutBudget<T>(fn: () => T): T {
  return unbudgeted.run(true, fn);
}

/**
 * Marks a store request as sent, returning what to call when its answer arrives: the request
 * belongs to the wave after the deepest one already answered. Throws BUDGET_EXCEEDED instead,
 * sending nothing, when the operation has sent all it may.
 */
export function startStoreRequest(): () => void {
  const meter = scope.get();
  if (!meter) return () => {};
  if (meter.maxRequests !== null && meter.sent >= meter.maxRequests && !unbudgeted.get()) {
    throw new AppError(
      'BUDGET_EXCEEDED',
      `This operation has sent the ${meter.maxRequests} store requests it may send (MAX_STORE_REQUESTS); ask for less`,
      {
        maxRequests: meter.maxRequests,
      },
    );
  }
  meter.sent += 1;
  const wave = (answeredWave.get(meter) ?? 0) + 1;
  meter.waves = Math.max(meter.waves, wave);
  return () => answeredWave.set(meter, Math.max(answeredWave.get(meter) ?? 0, wave));
}

export function recordDynamoRequest(readUnits: number, writeUnits: number): void {
  for (const cost of [scope.get(), totals]) {
    if (!cost) continue;
    cost.dynamodb.requests += 1;
    cost.dynamodb.readCapacityUnits += readUnits;
    cost.dynamodb.writeCapacityUnits += writeUnits;
  }
}

export function recordGraphRequest(): void {
  const current = scope.get();
  if (current) current.graph.requests += 1;
  totals.graph.requests += 1;
}

export function recordCacheLookups(hits: number, misses: number): void {
  for (const cost of [scope.get(), totals]) {
    if (!cost) continue;
    cost.cache.hits += hits;
    cost.cache.misses += misses;
  }
}
