import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { FairPool } from '../../lib/fair-pool.js';
import { type Cost, currentCostMeter } from '../../observability/cost.js';

/** The signals of calls abandoned (their deadline passed) while a request of theirs waited for a slot. */
const abandonedWaiting = new WeakSet<AbortSignal>();

/** Whether the call with this signal ended while waiting for a slot: its time was the queue's, not DynamoDB's. */
export function endedWaitingForSlot(signal: AbortSignal): boolean {
  return abandonedWaiting.has(signal);
}

/**
 * The DynamoDB requests of GraphQL operations, at most `atOnce` in flight for all the clients it is attached to,
 * each operation at most three quarters of them. A free slot goes to the operation with the fewest in flight, so that
 * a small operation's request does not wait behind a large one's backlog in the HTTP agent's first-come queue.
 * Work outside an operation (the worker, health checks, scripts) is not held. An operation queues no more than it may
 * send; the call's deadline takes a request out of the queue (see withDeadlines).
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

  /**
   * Holds each attempt of `client`'s requests (a retry's backoff holds no slot) after the cost meter has counted the
   * request when the operation sent it: its wave is the operation's, not the queue's.
   */
  attach(client: DynamoDBClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const meter = currentCostMeter();
        if (!meter) return next(args);
        const smithy = (context as { __smithy_context?: { abortSignal?: AbortSignal } }).__smithy_context;
        let sent = false;
        const send = () => {
          sent = true;
          return next(args);
        };
        try {
          return await this.pool.run(this.keyOf(meter), send, smithy?.abortSignal);
        } catch (error) {
          // Marked on the signal: the retry step puts an abort error of its own in place of this one.
          if (!sent && smithy?.abortSignal) abandonedWaiting.add(smithy.abortSignal);
          throw error;
        }
      },
      { step: 'finalizeRequest', priority: 'low', name: 'fairSends' },
    );
  }

  private keyOf(meter: Cost): string {
    let key = this.keys.get(meter);
    if (key === undefined) this.keys.set(meter, (key = String(++this.operations)));
    return key;
  }
}
