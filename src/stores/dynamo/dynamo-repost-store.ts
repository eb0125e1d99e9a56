import { DeleteCommand, GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { notFound } from '../../domain/errors.js';
import type { PostRecord } from '../../domain/models.js';
import type { UserPost } from '../counter-store.js';
import type { IdPage, NewerPageArgs, PageArgs } from '../graph/graph-store.js';
import type { RemovedRepost, RepostDelivery, RepostStore } from '../repost-store.js';
import type { Task } from '../../domain/tasks.js';
import { activityItem } from './activity-items.js';
import { cancellationReasons, transactWrite } from './batch.js';
import { BatchReader } from './batch-reader.js';
import { type ActivityRanges, oneUserOf } from './activity-ranges.js';
import type { TableOptions } from './client.js';
import { type TransactItem, counterIncrement } from './counter-items.js';
import { outboxAuthorItem } from './dynamo-post-store.js';
import type { DynamoTaskQueue } from './dynamo-task-queue.js';
import { timelineEntryFields } from './dynamo-timeline-store.js';
import { type Key, keys, listPrefixes } from './keys.js';
import { newestUserList } from './user-lists.js';

type Item = Record<string, unknown>;

/**
 * The items a repost writes besides its counter, activity and delivery: its record, its entry in
 * the post's reposters list, the reposter's own entry and, for a reposter who is not fanned out
 * (`outbox`), its outbox entry.
 */
export function repostItems(
  post: PostRecord,
  userId: string,
  atMs: number,
  delivery: RepostDelivery['kind'],
  outbox: boolean,
  position: string,
): { record: Item; reposterEntry: Item; ownEntry: Item; outboxEntry: Item } {
  const entry = {
    ...timelineEntryFields({ postId: post.id, authorId: post.authorId, counterShards: post.counterShards }),
    repostedBy: userId,
  };
  return {
    record: {
      ...keys.repost(post.id, userId),
      atMs,
      delivery,
      outboxEntry: outbox,
      counterShards: post.counterShards,
      position,
    },
    reposterEntry: { ...keys.repostListEntry(post.id, atMs, userId), userId },
    ownEntry: { ...keys.userRepost(userId, position), ...entry },
    outboxEntry: { ...keys.outboxEntry(userId, position), ...entry },
  };
}

/**
 * A repost is written in one transaction: its record, repostCount, reposters entry, the reposter's own entry
 * and activity item (for account deletion), and its fan-out task or outbox entry.
 */
export interface DynamoRepostStoreOptions extends TableOptions {
  tasks: DynamoTaskQueue;
  /** Coalesces a tick's lookups; a reader of its own unless given. */
  reader?: BatchReader;
  /** Answers a page's has-the-viewer questions with one range read; record by record unless given. */
  activityRanges?: ActivityRanges;
}

export class DynamoRepostStore implements RepostStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly tasks: DynamoTaskQueue;
  private readonly reader: BatchReader;
  private readonly activityRanges: ActivityRanges | null;

  constructor(options: DynamoRepostStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.tasks = options.tasks;
    this.reader = options.reader ?? new BatchReader(options.client, options.tableName, false);
    this.activityRanges = options.activityRanges ?? null;
  }

  private put(Item: Item, ConditionExpression?: string): TransactItem {
    return { Put: { TableName: this.tableName, Item, ConditionExpression } };
  }

  private deleteItem(Key: Key, ConditionExpression?: string, values?: Item): TransactItem {
    return { Delete: { TableName: this.tableName, Key, ConditionExpression, ExpressionAttributeValues: values } };
  }

  async add(
    post: PostRecord,
    userId: string,
    delivery: RepostDelivery,
    position: string,
    tasks: readonly Task[] = [],
  ): Promise<boolean> {
    const atMs = Date.now();
    const record = keys.repost(post.id, userId);
    // A reposter's own post is in their outbox already, as an original.
    const outbox = delivery.kind === 'outbox' && post.authorId !== userId;
    const written = repostItems(post, userId, atMs, delivery.kind, outbox, position);
    const items: TransactItem[] = [
      this.put(written.record, 'attribute_not_exists(pk)'),
      counterIncrement(this.tableName, post.id, post.counterShards, 'repostCount', 1),
      this.put(activityItem(userId, record, { kind: 'repost', postId: post.id, counterShards: post.counterShards })),
      this.put(written.reposterEntry),
      this.put(written.ownEntry),
      ...(delivery.kind === 'fanOut' ? [this.tasks.enqueueItem(delivery.task)] : []),
      ...(outbox ? [this.put(written.outboxEntry), this.put(outboxAuthorItem(userId))] : []),
      ...tasks.map((task) => this.tasks.enqueueItem(task)),
    ];
    try {
      await transactWrite(this.client, { TransactItems: items });
      return true;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (reasons?.[1] === 'ConditionalCheckFailed') throw notFound('Post', post.id);
      if (reasons?.[0] === 'ConditionalCheckFailed') return false;
      throw error;
    }
  }

  async remove(postId: string, userId: string, undo: Task, tasks: readonly Task[] = []): Promise<RemovedRepost | null> {
    const record = keys.repost(postId, userId);
    const activityKey = keys.activity(userId, record);
    const found = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: record, ConsistentRead: true }),
    );
    if (!found.Item) {
      // Removed already (a retry, or the post's deletion got there first): only an activity item may be left.
      await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: activityKey }));
      return null;
    }
    const atMs = Number(found.Item.atMs);
    const delivery = found.Item.delivery === 'outbox' ? 'outbox' : 'fanOut';
    const counterShards = Number(found.Item.counterShards ?? 1);
    // A repost made before positions has its entries at the post id.
    const position = (found.Item.position as string | undefined) ?? postId;
    const items: TransactItem[] = [
      // Conditioned on the time read, so that a repost made again meanwhile is not taken for this one.
      this.deleteItem(record, 'atMs = :atMs', { ':atMs': atMs }),
      this.deleteItem(activityKey),
      this.deleteItem(keys.repostListEntry(postId, atMs, userId)),
      this.deleteItem(keys.userRepost(userId, position)),
      ...(delivery === 'fanOut' ? [this.tasks.enqueueItem(undo)] : []),
      // Only the repost's own outbox entry: a reposter's own post has its original there.
      ...(found.Item.outboxEntry === true ? [this.deleteItem(keys.outboxEntry(userId, position))] : []),
      ...tasks.map((task) => this.tasks.enqueueItem(task)),
    ];
    const countDown = counterIncrement(this.tableName, postId, counterShards, 'repostCount', -1);
    try {
      await transactWrite(this.client, { TransactItems: [...items, countDown] });
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (reasons?.[0] === 'ConditionalCheckFailed') return null;
      if (reasons?.at(-1) !== 'ConditionalCheckFailed') throw error;
      // The post's counters are gone with the post: nothing to count down.
      try {
        await transactWrite(this.client, { TransactItems: items });
      } catch (retryError) {
        if (cancellationReasons(retryError)?.[0] === 'ConditionalCheckFailed') return null;
        throw retryError;
      }
    }
    return { delivery };
  }

  async positionOf(postId: string, userId: string, options: { consistent?: boolean } = {}): Promise<string | null> {
    const [record] = await this.reader.get([keys.repost(postId, userId)], {
      attributes: ['position'],
      consistent: options.consistent,
    });
    if (!record) return null;
    return (record.position as string | undefined) ?? postId;
  }

  async hasReposted(pairs: readonly UserPost[], options: { consistent?: boolean } = {}): Promise<boolean[]> {
    const userId = oneUserOf(pairs);
    if (this.activityRanges && userId)
      return this.activityRanges.has(
        'REPOST',
        userId,
        pairs.map((p) => p.postId),
        options,
      );
    const records = await this.reader.get(
      pairs.map((p) => keys.repost(p.postId, p.userId)),
      { attributes: [], consistent: options.consistent },
    );
    return records.map((record) => record !== undefined);
  }

  reposters(postId: string, page: PageArgs | NewerPageArgs, options: { consistent?: boolean } = {}): Promise<IdPage> {
    return newestUserList(this.client, this.tableName, postId, listPrefixes.reposters, page, options.consistent);
  }
}
