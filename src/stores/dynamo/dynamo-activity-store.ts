import { DeleteCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Activity, ActivityStore } from '../activity-store.js';
import { cancellationReasons, transactWrite } from './batch.js';
import type { TableOptions } from './client.js';
import { COUNTS_UPDATES, type TransactItem, counterIncrement, counterTarget } from './counter-items.js';
import { type Key, keys, partitions } from './keys.js';

type UndoableActivity = Exclude<Activity, { kind: 'repost' }>;

function toActivity(item: Record<string, unknown>): Activity {
  const base = { postId: item.postId as string, counterShards: Number(item.counterShards) };
  switch (item.kind) {
    case 'reaction':
      return { ...base, kind: 'reaction', reaction: item.reaction as string };
    case 'comment':
      return { ...base, kind: 'comment', commentId: item.commentId as string };
    case 'like':
      return { ...base, kind: 'like', ...(item.atMs === undefined ? {} : { atMs: Number(item.atMs) }) };
    default:
      return { ...base, kind: item.kind as 'view' | 'repost' };
  }
}

export class DynamoActivityStore implements ActivityStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(options: TableOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
  }

  async activities(userId: string, first: number): Promise<Activity[]> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': partitions.activity(userId) },
        ConsistentRead: true,
        Limit: first,
      }),
    );
    return (result.Items ?? []).map(toActivity);
  }

  async commentsOn(userId: string, postId: string, first: number): Promise<{ commentIds: string[]; more: boolean }> {
    // A comment's activity item is named after its entry in the post's comments, and goes when it goes or becomes a tombstone.
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :post)',
        ExpressionAttributeValues: { ':pk': partitions.activity(userId), ':post': `${partitions.comments(postId)}#` },
        ProjectionExpression: 'commentId',
        ConsistentRead: true,
        // One past: a Query that stops at its Limit says there may be more even when there is none.
        Limit: first + 1,
      }),
    );
    const items = result.Items ?? [];
    return {
      commentIds: items.slice(0, first).map((item) => item.commentId as string),
      more: items.length > first || result.LastEvaluatedKey !== undefined,
    };
  }

  async undo(userId: string, activity: UndoableActivity): Promise<void> {
    const records = this.recordKeys(userId, activity);
    const activityKey = keys.activity(userId, records[0]!);
    const deletes: TransactItem[] = [
      { Delete: { TableName: this.tableName, Key: records[0]!, ConditionExpression: 'attribute_exists(pk)' } },
      ...records.slice(1).map((Key) => ({ Delete: { TableName: this.tableName, Key } })),
      { Delete: { TableName: this.tableName, Key: activityKey } },
    ];
    try {
      await transactWrite(this.client, { TransactItems: [...deletes, this.countDown(activity)] });
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (!reasons) throw error;
      if (reasons[0] === 'ConditionalCheckFailed') {
        // The record is gone already (undone before, or removed with its post): only the activity item is left.
        await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: activityKey }));
      } else if (reasons.at(-1) === 'ConditionalCheckFailed') {
        // The post's counters are gone with the post: nothing to count down.
        await transactWrite(this.client, { TransactItems: deletes });
      } else {
        throw error;
      }
    }
  }

  /** The activity's records; the first is the one its activity item is named after. */
  private recordKeys(userId: string, activity: UndoableActivity): Key[] {
    switch (activity.kind) {
      case 'like':
        return [
          keys.like(activity.postId, userId),
          ...(activity.atMs === undefined ? [] : [keys.likeListEntry(activity.postId, activity.atMs, userId)]),
        ];
      case 'view':
        return [keys.view(activity.postId, userId)];
      case 'reaction':
        return [keys.reaction(activity.postId, activity.reaction, userId)];
      case 'comment':
        return [keys.commentEntry(activity.postId, activity.commentId), keys.comment(activity.commentId)];
    }
  }

  private countDown(activity: UndoableActivity): TransactItem {
    const { postId, counterShards } = activity;
    switch (activity.kind) {
      case 'like':
        return counterIncrement(this.tableName, postId, counterShards, 'likeCount', -1);
      case 'view':
        return counterIncrement(this.tableName, postId, counterShards, 'viewCount', -1);
      case 'comment':
        return counterIncrement(this.tableName, postId, counterShards, 'commentCount', -1);
      case 'reaction':
        return {
          Update: {
            TableName: this.tableName,
            Key: counterTarget(postId, counterShards),
            UpdateExpression: COUNTS_UPDATES.unreact,
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#kind': activity.reaction },
            ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
          },
        };
    }
  }
}
