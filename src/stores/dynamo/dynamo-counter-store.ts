import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { WriteApi } from '../../config.js';
import type { IdPage, NewerPageArgs, PageArgs } from '../graph/graph-store.js';
import { notFound } from '../../domain/errors.js';
import type { CounterChange, CounterStore, CountedPost, ImportedLike, PostCounts, UserPost } from '../counter-store.js';
import { cancellationReasons, importItems, transactWrite } from './batch.js';
import { type AttributePath, BatchReader, type ItemReader } from './batch-reader.js';
import { type ActivityRanges, oneUserOf } from './activity-ranges.js';
import type { TableOptions } from './client.js';
import {
  COUNTS_UPDATES,
  type TransactItem,
  counterIncrement,
  counterShardRaise,
  counterTarget,
} from './counter-items.js';
import { counterShardRaises } from '../../observability/metrics.js';
import type { Activity } from '../activity-store.js';
import { activityItem } from './activity-items.js';
import { type Key, keys, listPrefixes } from './keys.js';
import { newestUserList } from './user-lists.js';
import type { Task } from '../../domain/tasks.js';
import type { TaskItems } from './dynamo-task-queue.js';

type Item = Record<string, unknown>;

function emptyCounts(): PostCounts {
  return { likeCount: 0, viewCount: 0, commentCount: 0, repostCount: 0, reactions: new Map() };
}

/** Adds one shard item's figures into `into`. */
function addShard(into: PostCounts, shard: Item): void {
  into.likeCount += Number(shard.likeCount ?? 0);
  into.viewCount += Number(shard.viewCount ?? 0);
  into.commentCount += Number(shard.commentCount ?? 0);
  into.repostCount += Number(shard.repostCount ?? 0);
  // Only configured kinds are read, and none is `__proto__`, the one key the document client drops from a map.
  for (const [kind, count] of Object.entries((shard.reactions as Record<string, unknown> | undefined) ?? {})) {
    into.reactions.set(kind, (into.reactions.get(kind) ?? 0) + Number(count));
  }
}

/** The record of one user's like, view or reaction, as the counter beside it counts it. */
export function counterRecordItem(record: Key, at: string, extra: Item = {}): Item {
  return { ...record, at, ...extra };
}

/** A like's entry in the post's likers list, written in the like's transaction. */
export function likerEntryItem(postId: string, atMs: number, userId: string): Item {
  return { ...keys.likeListEntry(postId, atMs, userId), userId };
}

export interface DynamoCounterStoreOptions extends TableOptions {
  tasks: TaskItems;
  /** The reaction kinds `react` accepts (REACTION_KINDS). */
  reactionKinds: readonly string[];
  /** BULK_WRITE_API, for imports; `batchWrite` unless given. */
  importApi?: WriteApi;
  /** Coalesces a tick's lookups, through the cache when there is one; a reader of its own unless given. */
  reader?: ItemReader;
  /** Answers a page's has-the-viewer questions with one range read; record by record unless given. */
  activityRanges?: ActivityRanges;
}

export class DynamoCounterStore implements CounterStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly tasks: TaskItems;
  private readonly importApi: WriteApi;
  private readonly reader: ItemReader;
  private readonly activityRanges: ActivityRanges | null;
  /** What a read asks of a counter item: the counters and the configured kinds' counts. */
  private readonly attributes: AttributePath[];

  constructor(options: DynamoCounterStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.tasks = options.tasks;
    this.importApi = options.importApi ?? 'batchWrite';
    this.reader = options.reader ?? new BatchReader(options.client, options.tableName, false);
    this.activityRanges = options.activityRanges ?? null;
    // Only the configured kinds: an item may hold counts of kinds no longer offered, which must not swell every read.
    this.attributes = [
      'likeCount',
      'viewCount',
      'commentCount',
      'repostCount',
      'counterShards',
      ...options.reactionKinds.map((kind) => ['reactions', kind]),
    ];
  }

  /**
   * Reads each post's item with the shards its `counterShards` names, all in one call: a post with one
   * shard is read with the post itself (the same key in the same batch). A post whose shards were raised
   * since that number was written (a timeline entry, an activity item, a cached post item) has the larger
   * number on its item: its further shards are read in one more call, for those posts only.
   */
  async countsOf(posts: readonly CountedPost[], options: { consistent?: boolean } = {}): Promise<PostCounts[]> {
    const read = { attributes: this.attributes, consistent: options.consistent, counters: true };
    const separate = (post: CountedPost, from: number, to: number) =>
      to <= 1 ? [] : Array.from({ length: to - from }, (_, n) => keys.counterShard(post.id, from + n));
    const items = await this.reader.get(
      posts.flatMap((post) => [keys.post(post.id), ...separate(post, 0, post.counterShards)]),
      read,
    );
    const counts = posts.map(() => emptyCounts());
    const raised: { at: number; post: CountedPost; from: number; to: number }[] = [];
    let next = 0;
    posts.forEach((post, at) => {
      const item = items[next];
      const size = 1 + (post.counterShards > 1 ? post.counterShards : 0);
      for (let n = 0; n < size; n++) {
        const shard = items[next++];
        if (shard) addShard(counts[at]!, shard);
      }
      const current = Number(item?.counterShards ?? 1);
      if (current > post.counterShards)
        raised.push({ at, post, from: post.counterShards > 1 ? post.counterShards : 0, to: current });
    });
    if (raised.length > 0) {
      const more = await this.reader.get(
        raised.flatMap((r) => separate(r.post, r.from, r.to)),
        read,
      );
      next = 0;
      for (const r of raised) {
        for (let n = r.from; n < r.to; n++) {
          const shard = more[next++];
          if (shard) addShard(counts[r.at]!, shard);
        }
      }
    }
    return counts;
  }

  async raiseShards(post: CountedPost, to: number): Promise<boolean> {
    try {
      await transactWrite(this.client, {
        TransactItems: counterShardRaise(this.tableName, post.id, post.counterShards, to),
      });
    } catch (error) {
      if (cancellationReasons(error)?.includes('ConditionalCheckFailed')) return false;
      throw error;
    }
    counterShardRaises.inc();
    return true;
  }

  async hasLiked(pairs: readonly UserPost[], options: { consistent?: boolean } = {}): Promise<boolean[]> {
    const userId = oneUserOf(pairs);
    if (this.activityRanges && userId)
      return this.activityRanges.has(
        'LIKE',
        userId,
        pairs.map((p) => p.postId),
        options,
      );
    const records = await this.reader.get(
      pairs.map((p) => keys.like(p.postId, p.userId)),
      { attributes: [], consistent: options.consistent },
    );
    return records.map((record) => record !== undefined);
  }

  like(post: CountedPost, userId: string, tasks: readonly Task[] = []): Promise<CounterChange> {
    const atMs = Date.now();
    return this.addRecord(
      post,
      userId,
      keys.like(post.id, userId),
      { kind: 'like', atMs },
      counterIncrement(this.tableName, post.id, post.counterShards, 'likeCount', 1),
      {},
      [
        { Put: { TableName: this.tableName, Item: likerEntryItem(post.id, atMs, userId) } },
        ...tasks.map((task) => this.tasks.enqueueItem(task)),
      ],
      atMs,
    );
  }

  async importLikes(likes: readonly ImportedLike[], onWritten?: (likes: number) => void): Promise<void> {
    const now = Date.now();
    await importItems(
      this.client,
      this.tableName,
      likes,
      (like) => {
        const record = keys.like(like.postId, like.userId);
        const atMs = like.atMs ?? now;
        return [
          counterRecordItem(record, new Date(atMs).toISOString()),
          likerEntryItem(like.postId, atMs, like.userId),
          activityItem(like.userId, record, {
            kind: 'like',
            postId: like.postId,
            counterShards: like.counterShards,
            atMs,
          }),
        ];
      },
      { api: this.importApi, onWritten },
    );
  }

  async unlike(post: CountedPost, userId: string, tasks: readonly Task[] = []): Promise<CounterChange> {
    const record = keys.like(post.id, userId);
    // The like's time names its likers list entry; the delete is conditioned on it, so a like and unlike racing this one cannot leave a stray entry.
    const found = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: record,
        ConsistentRead: true,
        ProjectionExpression: '#at',
        ExpressionAttributeNames: { '#at': 'at' },
      }),
    );
    if (!found.Item) return { changed: false };
    const at = found.Item.at as string;
    return this.change(post, [
      {
        Delete: {
          TableName: this.tableName,
          Key: record,
          ConditionExpression: '#at = :at',
          ExpressionAttributeNames: { '#at': 'at' },
          ExpressionAttributeValues: { ':at': at },
        },
      },
      counterIncrement(this.tableName, post.id, post.counterShards, 'likeCount', -1),
      { Delete: { TableName: this.tableName, Key: keys.activity(userId, record) } },
      { Delete: { TableName: this.tableName, Key: keys.likeListEntry(post.id, Date.parse(at), userId) } },
      ...tasks.map((task) => this.tasks.enqueueItem(task)),
    ]);
  }

  likers(postId: string, page: PageArgs | NewerPageArgs): Promise<IdPage> {
    return newestUserList(this.client, this.tableName, postId, listPrefixes.likers, page);
  }

  view(post: CountedPost, userId: string): Promise<CounterChange> {
    return this.addRecord(
      post,
      userId,
      keys.view(post.id, userId),
      { kind: 'view' },
      counterIncrement(this.tableName, post.id, post.counterShards, 'viewCount', 1),
    );
  }

  react(post: CountedPost, kind: string, userId: string): Promise<CounterChange> {
    // The target was created with an empty `reactions` map, so a kind never seen before is
    // still one request: if_not_exists starts its count at zero.
    const increment: TransactItem = {
      Update: {
        TableName: this.tableName,
        Key: counterTarget(post.id, post.counterShards),
        UpdateExpression: COUNTS_UPDATES.react,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#kind': kind },
        ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
      },
    };
    return this.addRecord(
      post,
      userId,
      keys.reaction(post.id, kind, userId),
      { kind: 'reaction', reaction: kind },
      increment,
      { kind },
    );
  }

  private addRecord(
    post: CountedPost,
    userId: string,
    record: Key,
    activity: { kind: 'like'; atMs: number } | { kind: 'view' } | { kind: 'reaction'; reaction: string },
    increment: TransactItem,
    extra: Item = {},
    more: TransactItem[] = [],
    atMs = Date.now(),
  ): Promise<CounterChange> {
    return this.change(post, [
      {
        Put: {
          TableName: this.tableName,
          Item: counterRecordItem(record, new Date(atMs).toISOString(), extra),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      increment,
      {
        Put: {
          TableName: this.tableName,
          Item: activityItem(userId, record, {
            ...activity,
            postId: post.id,
            counterShards: post.counterShards,
          } as Activity),
        },
      },
      ...more,
    ]);
  }

  /**
   * Runs [record change, counter change, activity change, list entry changes...] as one transaction. A failed condition on the
   * record means the change was already made (an idempotent repeat); on the counter, that
   * the post's counters are gone with the post.
   */
  private async change(
    post: CountedPost,
    items: [TransactItem, TransactItem, TransactItem, ...TransactItem[]],
  ): Promise<CounterChange> {
    try {
      await transactWrite(this.client, { TransactItems: items });
      return { changed: true };
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (reasons?.[1] === 'ConditionalCheckFailed') throw notFound('Post', post.id);
      if (reasons?.[0] === 'ConditionalCheckFailed') return { changed: false };
      throw error;
    }
  }
}
