import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { expect, vi } from 'vitest';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { partitions, tableName } from '../../src/stores/dynamo/keys.js';
import { newId } from '../../src/domain/ids.js';
import type { TaskPayload } from '../../src/domain/tasks.js';
import type { RunOutcome, SaveCheckpoint } from '../../src/usecases/tasks/task-handler.js';
import { createUseCases } from '../../src/usecases/use-cases.js';
import { type TestApp, capturingLogger } from './app.js';

/** How long a test waits for the worker's background work (fan-out, backfills, clean-ups) on a loaded two-core machine. */
export const WORKER_WAIT = { timeout: 45_000, interval: 100 } as const;

/**
 * Resolves once the durable queue holds no task (a task stays in the queue until its handler is done), so no fan-out,
 * backfill or clean-up is still on its way: what is absent now stays absent.
 */
export async function waitForQueueToDrain(t: TestApp): Promise<void> {
  const table = tableName(t.tablePrefix);
  const client = createDocumentClient({ endpoint: t.endpoint, tableName: table });
  const queued = async (shard: number) =>
    (
      await client.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': partitions.queue(shard) },
          Limit: 1,
        }),
      )
    ).Items ?? [];
  try {
    await vi.waitFor(async () => {
      for (let shard = 0; shard < t.app.config.queueShards; shard++)
        expect(await queued(shard), `tasks queued in shard ${shard}`).toEqual([]);
    }, WORKER_WAIT);
  } finally {
    client.destroy();
  }
}

/**
 * `payload` run at once by the service's own handler for its kind, outside the queue: a task delivered late (a retry,
 * a backlog), or, with a `save` that waits, one held at a checkpoint. Resolves to its outcome.
 */
export function runTaskNow(
  t: TestApp,
  payload: TaskPayload,
  save: SaveCheckpoint = async () => true,
): Promise<RunOutcome> {
  const { tasks } = createUseCases(t.app.stores, t.app.config, capturingLogger());
  const task = { id: newId('tsk'), payload, checkpoint: null, attempts: 1, failures: 0, shard: 0, leaseToken: 'test' };
  return tasks.run(task, save, () => false);
}
