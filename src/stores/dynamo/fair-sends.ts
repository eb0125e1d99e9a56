import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { FairPool } from '../../lib/fair-pool.js';
import { type Cost, currentCostMeter } from '../../observability/cost.js';

/**
 * The DynamoDB requests of GraphQL operations, at most `atOnce` in flight for all the clients it is attached to,
 * each operation at most three quarters of them. A free slot goes to the operation with the fewest in flight, so that
 * a small operation's request does not wait behind a large one's backlog in the HTTP agent's first-come queue.
 * Work outside an operation (the worker, health checks, scripts) is not held. The budget bounds what one operation
 * can queue; the call's deadline takes a request out of the queue (see withDeadlines).
 */
export class FairSends {
  private readonly pool: FairPool;
  private readonly keys = new WeakMap<Cost, string>();
  private operations = 0;

  constructor(atOnce: number) {
    this.pool = new FairPool({
      concurrency: atOnce,
      maxRunningPerKey: Math.max(1, Math.floor((atOnce * 3) / 4)),
      maxQueuedPerKey: Number.MAX_SAFE_INTEGER,
      maxWaitMs: 2 ** 31 - 1,
    });
  }

  /** Holds `client`'s requests after its cost meter has counted them: a request's wave is the operation's, not the queue's. */
  attach(client: DynamoDBClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const meter = currentCostMeter();
        if (!meter) return next(args);
        const smithy = (context as { __smithy_context?: { abortSignal?: AbortSignal } }).__smithy_context;
        return this.pool.run(this.keyOf(meter), () => next(args), smithy?.abortSignal);
      },
      { step: 'initialize', priority: 'low', name: 'fairSends' },
    );
  }

  private keyOf(meter: Cost): string {
    let key = this.keys.get(meter);
    if (key === undefined) this.keys.set(meter, (key = String(++this.operations)));
    return key;
  }
}
