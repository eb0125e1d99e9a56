import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FanOutProgress, FanOutProgressStore, FanOutState } from '../fanout-progress-store.js';
import type { BatchReader } from './batch-reader.js';
import type { TableOptions } from './client.js';
import { keys } from './keys.js';

type Item = Record<string, unknown>;

/** Positions of a record that are no checkpoint of the task: follower cursors never contain `#`. */
const START = '#start';
const END = '#done';

/**
 * The record createPost writes beside a post: PENDING with its author's follower count, or, for
 * an author who is not fanned out (followers read the outbox), DONE with nothing to deliver.
 */
export function fanOutProgressItem(
  postId: string,
  delivery: { fanOut: true; followers: number } | { fanOut: false },
): Item {
  return delivery.fanOut
    ? { ...keys.fanOutProgress(postId), state: 'PENDING', delivered: 0, total: delivery.followers, position: START }
    : { ...keys.fanOutProgress(postId), state: 'DONE', delivered: 0, total: 0, position: END };
}

/** Records live in the post's partition, so deleting the post removes them with it. */
export interface DynamoFanOutProgressStoreOptions extends TableOptions {
  reader: BatchReader;
}

export class DynamoFanOutProgressStore implements FanOutProgressStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly reader: BatchReader;

  constructor(options: DynamoFanOutProgressStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.reader = options.reader;
  }

  async getMany(postIds: readonly string[]): Promise<(FanOutProgress | null)[]> {
    const items = await this.reader.get(
      postIds.map((postId) => keys.fanOutProgress(postId)),
      { attributes: ['state', 'delivered', 'total'] },
    );
    return items.map((item) =>
      item ? { state: item.state as FanOutState, delivered: Number(item.delivered), total: Number(item.total) } : null,
    );
  }

  async advance(postId: string, from: string | null, to: string | null, delivered: number): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.fanOutProgress(postId),
          // Once done, total becomes what was reached: followers may have come and gone meanwhile.
          UpdateExpression: `SET delivered = delivered + :n, #state = :state, #position = :to${to === null ? ', #total = delivered + :n' : ''}`,
          ConditionExpression: 'attribute_exists(pk) AND #position = :from',
          ExpressionAttributeNames: {
            '#state': 'state',
            '#position': 'position',
            ...(to === null ? { '#total': 'total' } : {}),
          },
          ExpressionAttributeValues: {
            ':n': delivered,
            ':state': to === null ? 'DONE' : 'RUNNING',
            ':to': to ?? END,
            ':from': from ?? START,
          },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}
