import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { WriteApi } from '../../config.js';
import type { CommentRecord, PostRecord } from '../../domain/models.js';
import type { IdempotencyClaim } from '../../domain/validation.js';
import type {
  Claimed,
  CommentDeletion,
  CommentPage,
  CommentRefused,
  CommentSlice,
  Delivery,
  ImportedPost,
  PostStore,
} from '../post-store.js';
import {
  commentAttributes,
  commentSlice,
  countReplyItems,
  deletionItems,
  firstReplies,
  slicePrefix,
  toCommentRecord,
} from './comment-items.js';
import type { Task } from '../../domain/tasks.js';
import { cancellationReasons, importItems, transactWrite } from './batch.js';
import { BatchReader, type ItemReader } from './batch-reader.js';
import type { TableOptions } from './client.js';
import { fanOutProgressItem } from './dynamo-fanout-progress-store.js';
import {
  type CounterField,
  type TransactItem,
  counterIncrement,
  counterShardDeletes,
  counterShardItems,
  counterShardPuts,
  postCounterFields,
} from './counter-items.js';
import { activityItem } from './activity-items.js';
import { homeEntryItem, timelineEntryFields } from './dynamo-timeline-store.js';
import type { DynamoTaskQueue } from './dynamo-task-queue.js';
import { type Key, PROFILE_EXISTS, PROFILE_OPEN, keys, partitions } from './keys.js';
import { shardOf } from './shards.js';
import { importedTagCounts, tagCountItems } from './tag-count-items.js';

type Item = Record<string, unknown>;

/** How long a create's idempotency key is remembered (the claim's DynamoDB TTL). */
const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

export function toPostRecord(item: Item): PostRecord {
  return {
    id: item.id as string,
    authorId: item.authorId as string,
    text: item.text as string,
    tags: (item.tags as string[] | undefined) ?? [],
    createdAt: item.createdAt as string,
    counterShards: Number(item.counterShards ?? 1),
    mentionIds: (item.mentionIds as string[] | undefined) ?? [],
  };
}

/** What a post record is read from: every field, so that a field added to PostRecord fails to compile until it is read. */
const POST_ATTRIBUTES = Object.keys({
  id: true,
  authorId: true,
  text: true,
  tags: true,
  createdAt: true,
  counterShards: true,
  mentionIds: true,
} satisfies Record<keyof PostRecord, true>);

/**
 * The items a post is stored as, besides its separate counter shards, its author's own home entry and its
 * delivery: the post (first, with its `counts`), its author entry, its public and tag entries, and its outbox
 * entry when its author is not fanned out. Shared by create and importPosts, so the two
 * cannot diverge.
 */
export function postItems(
  post: PostRecord,
  timelineShards: number,
  outbox: boolean,
  counts: Partial<Record<CounterField, number>> = {},
): Item[] {
  const shard = shardOf(post.id, timelineShards);
  const entry = timelineEntryFields({ postId: post.id, authorId: post.authorId, counterShards: post.counterShards });
  return [
    { ...keys.post(post.id), ...post, ...postCounterFields(counts) },
    { ...keys.authorPost(post.authorId, post.id), ...entry },
    { ...keys.publicEntry(shard, post.id), ...entry },
    ...post.tags.map((tag) => ({ ...keys.tagEntry(tag, shard, post.id), ...entry })),
    ...(outbox ? [{ ...keys.outboxEntry(post.authorId, post.id), ...entry }] : []),
  ];
}

/** An author whose posts are merged into home timelines at read time (hybrid fan-out). */
export function outboxAuthorItem(authorId: string): Item {
  return { ...keys.outboxAuthor(authorId), authorId };
}

export interface DynamoPostStoreOptions extends TableOptions {
  tasks: DynamoTaskQueue;
  /** Partitions of each tag timeline and of the public timeline (TIMELINE_SHARDS). */
  timelineShards: number;
  /** Shards of the tag counts (TRENDS_SHARDS). */
  trendShards: number;
  /** BULK_WRITE_API, for imports; `batchWrite` unless given. */
  importApi?: WriteApi;
  /** Coalesces a tick's lookups, through the cache when there is one; a reader of its own unless given. */
  reader?: ItemReader;
}

export class DynamoPostStore implements PostStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly tasks: DynamoTaskQueue;
  private readonly timelineShards: number;
  private readonly trendShards: number;
  private readonly importApi: WriteApi;
  private readonly reader: ItemReader;

  constructor(options: DynamoPostStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.tasks = options.tasks;
    this.timelineShards = options.timelineShards;
    this.trendShards = options.trendShards;
    this.importApi = options.importApi ?? 'batchWrite';
    this.reader = options.reader ?? new BatchReader(options.client, options.tableName, false);
  }

  private put(Item: Item, ConditionExpression?: string): TransactItem {
    return { Put: { TableName: this.tableName, Item, ConditionExpression } };
  }

  private deleteItem(key: Key): TransactItem {
    return { Delete: { TableName: this.tableName, Key: key } };
  }

  private addPostCount(authorId: string, delta: number): TransactItem {
    return {
      Update: {
        TableName: this.tableName,
        Key: keys.user(authorId),
        UpdateExpression: 'ADD postCount :delta',
        // A closed account posts no more; its deletion still takes its posts away.
        ConditionExpression: delta > 0 ? PROFILE_OPEN : PROFILE_EXISTS,
        ExpressionAttributeValues: { ':delta': delta },
      },
    };
  }

  async create(
    post: PostRecord,
    delivery: Delivery,
    claim: IdempotencyClaim | null,
    ownEntryExpiresAt: number,
    tasks: readonly Task[] = [],
  ): Promise<Claimed | 'authorClosed'> {
    const [record, ...entries] = postItems(post, this.timelineShards, delivery.kind === 'outbox');
    const postCount = this.addPostCount(post.authorId, 1);
    const items: TransactItem[] = [
      this.put(record!, 'attribute_not_exists(pk)'),
      ...entries.map((item) => this.put(item)),
      // The author sees their own post at once; followers get it from the fan-out task (which also counts it there).
      this.put(
        homeEntryItem({
          userId: post.authorId,
          postId: post.id,
          authorId: post.authorId,
          counterShards: post.counterShards,
          expiresAt: ownEntryExpiresAt,
        }),
      ),
      ...(delivery.kind === 'fanOut'
        ? [this.tasks.enqueueItem(delivery.task)]
        : [this.put(outboxAuthorItem(post.authorId))]),
      this.put(
        fanOutProgressItem(
          post.id,
          delivery.kind === 'fanOut' ? { fanOut: true, followers: delivery.followers } : { fanOut: false },
        ),
      ),
      postCount,
      ...counterShardPuts(this.tableName, post.id, post.counterShards),
      ...tagCountItems(this.tableName, post, this.trendShards, 1),
      ...tasks.map((task) => this.tasks.enqueueItem(task)),
    ];
    try {
      return await this.writeOnce(
        items,
        claim && { key: keys.idempotencyClaim(post.authorId, 'createPost', claim.key), fingerprint: claim.fingerprint },
        post.id,
      );
    } catch (error) {
      if (cancellationReasons(error)?.[items.indexOf(postCount)] === 'ConditionalCheckFailed') return 'authorClosed';
      throw error;
    }
  }

  async importPosts(posts: readonly ImportedPost[], onWritten?: (posts: number) => void): Promise<void> {
    const registered = new Set<string>();
    const itemsOf = ({ post, outbox, likeCount }: ImportedPost) => {
      const items = [
        ...postItems(post, this.timelineShards, outbox, { likeCount }),
        ...counterShardItems(post.id, post.counterShards),
      ];
      // The registry entry once per author: one call may not write an item twice.
      if (outbox && !registered.has(post.authorId)) {
        registered.add(post.authorId);
        items.push(outboxAuthorItem(post.authorId));
      }
      return items;
    };
    await importItems(this.client, this.tableName, posts, itemsOf, { api: this.importApi, onWritten });
  }

  async importTagCounts(posts: readonly PostRecord[], nowMs: number): Promise<void> {
    const tagCounts = importedTagCounts(posts, this.trendShards, nowMs);
    await importItems(this.client, this.tableName, tagCounts, (item) => [item], { api: this.importApi });
  }

  /**
   * Runs the transaction, with the idempotency claim (when there is one) as its last item:
   * the claim and the write it names commit together. A claim that already exists cancels
   * the transaction, and what it recorded is the answer.
   */
  private async writeOnce(
    items: TransactItem[],
    claim: { key: Key; fingerprint: string } | null,
    createdId: string,
  ): Promise<Claimed> {
    if (!claim) {
      await transactWrite(this.client, { TransactItems: items });
      return { createdId, fingerprint: null };
    }
    const expiresAt = Math.floor(Date.now() / 1000) + IDEMPOTENCY_TTL_SECONDS;
    try {
      await transactWrite(this.client, {
        TransactItems: [
          ...items,
          this.put({ ...claim.key, createdId, fingerprint: claim.fingerprint, expiresAt }, 'attribute_not_exists(pk)'),
        ],
      });
      return { createdId, fingerprint: claim.fingerprint };
    } catch (error) {
      if (cancellationReasons(error)?.at(-1) !== 'ConditionalCheckFailed') throw error;
      const existing = await this.client.send(
        new GetCommand({ TableName: this.tableName, Key: claim.key, ConsistentRead: true }),
      );
      return {
        createdId: existing.Item!.createdId as string,
        fingerprint: typeof existing.Item!.fingerprint === 'string' ? existing.Item!.fingerprint : null,
      };
    }
  }

  /**
   * Deletes the post with every counter shard it has: conditioned on its `counterShards`, so that
   * shards a raise adds meanwhile are never left behind; after a raise it tries again with the new number.
   */
  async delete(post: PostRecord, cleanup: Task): Promise<boolean> {
    for (let shards = post.counterShards; ;) {
      if ((await this.deleteWithShards(post, shards, cleanup)) === 'deleted') return true;
      const found = await this.client.send(
        new GetCommand({
          TableName: this.tableName,
          Key: keys.post(post.id),
          ConsistentRead: true,
          ProjectionExpression: 'counterShards',
        }),
      );
      if (!found.Item) return false;
      const raised = Number(found.Item.counterShards ?? 1);
      // Shards only grow: anything else is a fault to report, not to retry forever.
      if (raised <= shards)
        throw new Error(`deleting post ${post.id} failed its condition, but its counterShards is still ${raised}`);
      shards = raised;
    }
  }

  private async deleteWithShards(post: PostRecord, shards: number, cleanup: Task): Promise<'deleted' | 'changed'> {
    // Posts written before counterShards was stored have one shard and no attribute.
    const unraised =
      shards === 1 ? '(attribute_not_exists(counterShards) OR counterShards = :shards)' : 'counterShards = :shards';
    try {
      await transactWrite(this.client, {
        TransactItems: [
          {
            Delete: {
              TableName: this.tableName,
              Key: keys.post(post.id),
              ConditionExpression: `attribute_exists(pk) AND ${unraised}`,
              ExpressionAttributeValues: { ':shards': shards },
            },
          },
          this.deleteItem(keys.authorPost(post.authorId, post.id)),
          this.deleteItem(keys.outboxEntry(post.authorId, post.id)),
          this.deleteItem(keys.homeEntry(post.authorId, post.id)),
          this.addPostCount(post.authorId, -1),
          ...counterShardDeletes(this.tableName, post.id, shards),
          ...tagCountItems(this.tableName, post, this.trendShards, -1),
          this.tasks.enqueueItem(cleanup),
        ],
      });
      return 'deleted';
    } catch (error) {
      // Gone, or its shards raised: the caller reads which.
      if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') return 'changed';
      throw error;
    }
  }

  async getMany(ids: readonly string[], options: { consistent?: boolean } = {}): Promise<(PostRecord | null)[]> {
    const items = await this.reader.get(ids.map(keys.post), {
      consistent: options.consistent,
      attributes: POST_ATTRIBUTES,
    });
    return items.map((item) => (item ? toPostRecord(item) : null));
  }

  async addComment(
    post: PostRecord,
    comment: CommentRecord,
    claim: IdempotencyClaim | null,
    tasks: readonly Task[] = [],
    parent: CommentRecord | null = null,
  ): Promise<Claimed | CommentRefused> {
    const attributes = commentAttributes(comment);
    const items: TransactItem[] = [
      // Counted in the same transaction, so commentCount is exact; its condition finds a post that is gone.
      counterIncrement(this.tableName, post.id, post.counterShards, 'commentCount', 1),
      ...(parent
        ? countReplyItems(this.tableName, parent, 1, 'attribute_exists(pk) AND attribute_not_exists(deleted)')
        : []),
      this.put({ ...keys.threadEntry(comment), ...attributes }),
      this.put({ ...keys.comment(comment.id), ...attributes }),
      this.put(
        activityItem(comment.authorId!, keys.commentEntry(post.id, comment.id), {
          kind: 'comment',
          postId: post.id,
          counterShards: post.counterShards,
          commentId: comment.id,
        }),
      ),
      ...tasks.map((task) => this.tasks.enqueueItem(task)),
    ];
    try {
      return await this.writeOnce(
        items,
        claim && {
          key: keys.idempotencyClaim(comment.authorId!, 'addComment', claim.key),
          fingerprint: claim.fingerprint,
        },
        comment.id,
      );
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (reasons?.[0] === 'ConditionalCheckFailed') return 'postGone';
      if (parent && (reasons?.[1] === 'ConditionalCheckFailed' || reasons?.[2] === 'ConditionalCheckFailed'))
        return 'parentGone';
      throw error;
    }
  }

  async comments(postId: string, first: number, after: string | null): Promise<CommentPage & { end: string | null }> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: after ? 'pk = :pk AND sk > :after' : 'pk = :pk',
        ExpressionAttributeValues: { ':pk': partitions.comments(postId), ...(after ? { ':after': after } : {}) },
        Limit: first + 1,
      }),
    );
    const found = (result.Items ?? []).slice(0, first);
    return {
      items: found.map(toCommentRecord),
      hasNextPage: (result.Items ?? []).length > first,
      hasPreviousPage: false,
      end: (found.at(-1)?.sk as string | undefined) ?? null,
    };
  }

  commentSlice(postId: string, parent: CommentRecord | null, slice: CommentSlice): Promise<CommentPage> {
    return commentSlice(this.client, this.tableName, postId, slicePrefix(parent), slice);
  }

  firstReplies(parents: readonly CommentRecord[], first: number): Promise<CommentPage[]> {
    return firstReplies(this.client, this.tableName, parents, first);
  }

  async deleteComment(deletion: CommentDeletion): Promise<boolean> {
    try {
      await transactWrite(this.client, {
        TransactItems: [
          ...deletionItems(this.tableName, deletion),
          ...deletion.tasks.map((task) => this.tasks.enqueueItem(task)),
        ],
      });
      return true;
    } catch (error) {
      if (cancellationReasons(error)?.some((reason) => reason === 'ConditionalCheckFailed')) return false;
      throw error;
    }
  }

  async getComments(ids: readonly string[], options: { consistent?: boolean } = {}): Promise<(CommentRecord | null)[]> {
    const items = await this.reader.get(ids.map(keys.comment), { consistent: options.consistent });
    return items.map((item) => (item ? toCommentRecord(item) : null));
  }
}
