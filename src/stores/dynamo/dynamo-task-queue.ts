import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { Task, TaskPayload } from '../../domain/tasks.js';
import type { ClaimedTask, TaskQueue } from '../task-queue.js';
import { idTime } from '../../domain/ids.js';
import type { QueueStats } from '../../observability/metrics.js';
import type { TransactItem } from './counter-items.js';
import { settleAll } from '../../lib/collections.js';
import { cancellationReasons, transactWrite } from './batch.js';
import type { TableOptions } from './client.js';
import { keys, partitions } from './keys.js';
import { shardOf } from './shards.js';

type Item = Record<string, unknown>;

/** A task as enqueued: free (`leaseUntil` 0), in the shard its id hashes to. */
export function taskItem(task: Task, shards: number): Item {
  return {
    ...keys.task(shardOf(task.id, shards), task.id),
    id: task.id,
    payload: task.payload,
    leaseUntil: 0,
    attempts: 0,
    failures: 0,
  };
}

export interface DynamoTaskQueueOptions extends TableOptions {
  /** The partitions new tasks are spread over (QUEUE_SHARDS). */
  shards: number;
}

/** What a store needs to enqueue tasks in its own transactions (DynamoTaskQueue). */
export interface TaskItems {
  enqueueItem(task: Task): TransactItem;
}

/**
 * Tasks in QUEUE#<shard> partitions, oldest first. Claiming is conditioned on an expired lease, and
 * checkpoints and completion on the lease token, so a worker that lost its lease cannot overwrite its successor.
 */
export class DynamoTaskQueue implements TaskQueue, TaskItems {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly shards: number;

  constructor(options: DynamoTaskQueueOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.shards = options.shards;
  }

  /** Where a claimed task lives: the partition it was claimed from, not one recomputed from today's QUEUE_SHARDS. */
  private keyOf(task: ClaimedTask) {
    return keys.task(task.shard, task.id);
  }

  /** The task as a transaction item, for writes that enqueue it together with their own changes. */
  enqueueItem(task: Task): TransactItem {
    return {
      Put: {
        TableName: this.tableName,
        Item: taskItem(task, this.shards),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  }

  async enqueue(task: Task): Promise<void> {
    try {
      await this.client.send(new PutCommand(this.enqueueItem(task).Put!));
    } catch (error) {
      // The same task id enqueued twice (a retried call) is one task.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  async claim(max: number, leaseMs: number): Promise<ClaimedTask[]> {
    const claimed: ClaimedTask[] = [];
    let reserved = 0;
    // Every shard at once: a new task waits for one Query, not for one per shard before it.
    await settleAll(
      Array.from({ length: this.shards }, async (_, shard) => {
        // Page on past tasks that are held or waiting for a retry, so that they never hide free ones behind them.
        let start: Item | undefined;
        do {
          if (reserved >= max) return;
          const result = await this.client.send(
            new QueryCommand({
              TableName: this.tableName,
              KeyConditionExpression: 'pk = :pk',
              FilterExpression: 'leaseUntil < :now',
              ExpressionAttributeValues: { ':pk': partitions.queue(shard), ':now': Date.now() },
              ExclusiveStartKey: start,
              Limit: 50,
            }),
          );
          for (const item of result.Items ?? []) {
            if (reserved >= max) return;
            reserved += 1;
            const task = await this.tryClaim(item, shard, leaseMs);
            if (task) claimed.push(task);
            else reserved -= 1;
          }
          start = result.LastEvaluatedKey;
        } while (start);
      }),
    );
    return claimed;
  }

  claimEnqueued(task: Task, leaseMs: number): Promise<ClaimedTask | null> {
    const shard = shardOf(task.id, this.shards);
    return this.tryClaim({ ...keys.task(shard, task.id) }, shard, leaseMs);
  }

  private async tryClaim(item: Item, shard: number, leaseMs: number): Promise<ClaimedTask | null> {
    const leaseToken = randomUUID();
    const now = Date.now();
    try {
      const result = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: item.pk, sk: item.sk },
          UpdateExpression: 'SET leaseUntil = :until, leaseToken = :token ADD attempts :one',
          ConditionExpression: 'attribute_exists(pk) AND leaseUntil < :now',
          ExpressionAttributeValues: { ':until': now + leaseMs, ':token': leaseToken, ':one': 1, ':now': now },
          ReturnValues: 'ALL_NEW',
        }),
      );
      const claimed = result.Attributes!;
      return {
        id: claimed.id as string,
        payload: claimed.payload as TaskPayload,
        checkpoint: (claimed.checkpoint as string | undefined) ?? null,
        attempts: Number(claimed.attempts),
        failures: Number(claimed.failures ?? 0),
        shard,
        leaseToken,
      };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return null;
      throw error;
    }
  }

  async saveCheckpoint(task: ClaimedTask, checkpoint: string, leaseMs: number): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.keyOf(task),
          UpdateExpression: 'SET checkpoint = :checkpoint, leaseUntil = :until',
          ConditionExpression: 'leaseToken = :token',
          ExpressionAttributeValues: {
            ':checkpoint': checkpoint,
            ':until': Date.now() + leaseMs,
            ':token': task.leaseToken,
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async complete(task: ClaimedTask): Promise<void> {
    await this.ifStillHeld(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: this.keyOf(task),
          ConditionExpression: 'leaseToken = :token',
          ExpressionAttributeValues: { ':token': task.leaseToken },
        }),
      ),
    );
  }

  async release(task: ClaimedTask, delayMs: number, failed: boolean): Promise<void> {
    await this.ifStillHeld(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.keyOf(task),
          UpdateExpression: `SET leaseUntil = :until REMOVE leaseToken${failed ? ' ADD failures :one' : ''}`,
          ConditionExpression: 'leaseToken = :token',
          ExpressionAttributeValues: {
            ':until': Date.now() + delayMs,
            ':token': task.leaseToken,
            ...(failed ? { ':one': 1 } : {}),
          },
        }),
      ),
    );
  }

  async bury(task: ClaimedTask, error: string): Promise<void> {
    await this.ifStillHeld(() =>
      transactWrite(this.client, {
        TransactItems: [
          {
            Delete: {
              TableName: this.tableName,
              Key: this.keyOf(task),
              ConditionExpression: 'leaseToken = :token',
              ExpressionAttributeValues: { ':token': task.leaseToken },
            },
          },
          {
            Put: {
              TableName: this.tableName,
              Item: {
                ...keys.deadTask(task.id),
                id: task.id,
                payload: task.payload,
                attempts: task.attempts,
                failures: task.failures + 1,
                checkpoint: task.checkpoint,
                error,
                buriedAt: new Date().toISOString(),
              },
            },
          },
        ],
      }),
    );
  }

  /**
   * What the queue holds, for the metrics. Counting reads every item counted, so at most `cap` tasks a shard
   * keeps a scrape of a huge backlog cheap.
   */
  async stats(cap = 10_000): Promise<QueueStats> {
    const count = async (pk: string): Promise<number> => {
      let counted = 0;
      let start: Item | undefined;
      do {
        const result = await this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': pk },
            Select: 'COUNT',
            Limit: cap - counted,
            ExclusiveStartKey: start,
          }),
        );
        counted += result.Count ?? 0;
        start = result.LastEvaluatedKey;
      } while (start && counted < cap);
      return counted;
    };
    const oldest = async (pk: string): Promise<number | null> => {
      const result = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ProjectionExpression: 'sk',
          Limit: 1,
        }),
      );
      const first = result.Items?.[0];
      return first ? idTime(first.sk as string) : null;
    };
    const shards = Array.from({ length: this.shards }, (_, shard) => partitions.queue(shard));
    const [perShard, deadLetters] = await Promise.all([
      Promise.all(shards.map(async (pk) => ({ depth: await count(pk), oldestEnqueuedMs: await oldest(pk) }))),
      count(partitions.deadLetter()),
    ]);
    return { shards: perShard, deadLetters };
  }

  /** A lost claim means another worker owns the task now: nothing to do. */
  private async ifStillHeld(send: () => Promise<unknown>): Promise<void> {
    try {
      await send();
    } catch (error) {
      const lostInTransaction = cancellationReasons(error)?.[0] === 'ConditionalCheckFailed';
      if (!(error instanceof ConditionalCheckFailedException) && !lostInTransaction) throw error;
    }
  }
}
