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
 * each client (the operation's `Cost.client`, else the operation) at most three quarters of them. A free slot goes to
 * the client with the fewest in flight, and among its operations to the one with the fewest, so that a small
 * operation's request does not wait behind a large one's backlog in the HTTP agent's first-come queue, and a client
 * running many operations at once shares as one. Work outside an operation (the worker, health checks, scripts) is
 * not held. An operation queues no more than it may send; the call's deadline takes a request out of the queue (see
 * withDeadlines).
 */
export class FairSends {
  private readonly pool: FairPool;
  private readonly operations = new WeakMap<Cost, string>();
  private operationCount = 0;

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
          const operation = this.operationOf(meter);
          return await this.pool.run(meter.client ?? operation, send, smithy?.abortSignal, operation);
        } catch (error) {
          // Marked on the signal: the retry step puts an abort error of its own in place of this one.
          if (!sent && smithy?.abortSignal) abandonedWaiting.add(smithy.abortSignal);
          throw error;
        }
      },
      { step: 'finalizeRequest', priority: 'low', name: 'fairSends' },
    );
  }

  private operationOf(meter: Cost): string {
    let key = this.operations.get(meter);
    if (key === undefined) this.operations.set(meter, (key = `operation:${++this.operationCount}`));
    return key;
  }
}
