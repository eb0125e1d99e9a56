import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What one GraphQL operation cost the backends, counted where requests are sent: the
 * DynamoDB client middleware and each graph backend record into the meter of the
 * operation they run for (found through AsyncLocalStorage), and into the process totals.
 */
export interface Cost {
  dynamodb: { requests: number; readCapacityUnits: number; writeCapacityUnits: number };
  graph: { requests: number };
}

export function emptyCost(): Cost {
  return { dynamodb: { requests: 0, readCapacityUnits: 0, writeCapacityUnits: 0 }, graph: { requests: 0 } };
}

const scope = new AsyncLocalStorage<Cost>();

/** Process-wide totals since start: what the tests and benchmarks read. */
export const totals: Cost = emptyCost();

/** Runs `fn` with a fresh meter; everything it sends, however deep, is counted into it. */
export function withCostMeter<T>(meter: Cost, fn: () => T): T {
  return scope.run(meter, fn);
}

export function recordDynamoRequest(readUnits: number, writeUnits: number): void {
  for (const cost of [scope.getStore(), totals]) {
    if (!cost) continue;
    cost.dynamodb.requests += 1;
    cost.dynamodb.readCapacityUnits += readUnits;
    cost.dynamodb.writeCapacityUnits += writeUnits;
  }
}

export function recordGraphRequest(): void {
  const current = scope.getStore();
  if (current) current.graph.requests += 1;
  totals.graph.requests += 1;
}
