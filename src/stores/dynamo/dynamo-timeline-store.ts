import {
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { WriteApi } from '../../config.js';
import { mapConcurrently } from '../../lib/collections.js';
import type {
  EntryPage,
  HomeEntry,
  HomeReason,
  ListRead,
  RepostEntry,
  TimelineEntry,
  TimelineStore,
  HomeSizeAddition,
} from '../timeline-store.js';
import { batchWrite, del, importItems, queryItems, writeItems } from './batch.js';
import type { TableOptions } from './client.js';
import { DynamoHomeEntries, homeEntryItem } from './dynamo-home-entries.js';
import { type Key, keys, partitions } from './keys.js';

export { homeEntryItem, homeMarkerItem, repostHomeEntryItem, timelineEntryFields } from './dynamo-home-entries.js';

type Item = Record<string, unknown>;

export interface DynamoTimelineStoreOptions extends TableOptions {
  /** Partitions of each tag timeline and of the public timeline. */
  shards: number;
  /** How home timeline entries are written and removed (BULK_WRITE_API). */
  writeApi: WriteApi;
}

function toTimelineEntry(item: Item): TimelineEntry {
  return {
    position: item.sk as string,
    // Old entries may lack postId: they are at their post id.
    postId: (item.postId as string | undefined) ?? (item.sk as string),
    authorId: (item.authorId as string | undefined) ?? null,
    counterShards: item.counterShards === undefined ? null : Number(item.counterShards),
    repostedBy: (item.repostedBy as string | undefined) ?? null,
  };
}

/** The size estimate of a home timeline (see HomeDelivery.keepBounded in src/usecases/tasks/steps/home-delivery.ts). */
export function homeSizeItem(userId: string, estimate: number): Item {
  return { ...keys.homeSize(userId), estimate };
}

/** Records of a deleted post removed per call of removePostTraces (and so per checkpoint of its task). */
const TRACES_PER_CALL = 500;
/** Size estimates updated at once, one UpdateItem each, so that they do not crowd out the entry writes. */
const SIZE_UPDATE_CONCURRENCY = 4;

/**
 * A read is one Query per partition, merged by the feeds; tag and public timelines are sharded so that no
 * partition takes every write.
 */
export class DynamoTimelineStore implements TimelineStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly shards: number;
  private readonly writeApi: WriteApi;
  private readonly homeEntries: DynamoHomeEntries;

  constructor(options: DynamoTimelineStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.shards = options.shards;
    this.writeApi = options.writeApi;
    this.homeEntries = new DynamoHomeEntries(options);
  }

  private async newestEntries(pk: string, limit: number, before: string | null): Promise<TimelineEntry[]> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: before ? 'pk = :pk AND sk < :before' : 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk, ...(before ? { ':before': before } : {}) },
        ProjectionExpression: 'sk, postId, authorId, counterShards, repostedBy',
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return (result.Items ?? []).map(toTimelineEntry);
  }

  private async oldestEntriesAfter(pk: string, limit: number, after: string): Promise<TimelineEntry[]> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk > :after',
        ExpressionAttributeValues: { ':pk': pk, ':after': after },
        ProjectionExpression: 'sk, postId, authorId, counterShards, repostedBy',
        ScanIndexForward: true,
        Limit: limit,
      }),
    );
    return (result.Items ?? []).map(toTimelineEntry);
  }

  private lists(pks: readonly string[], read: ListRead): Promise<TimelineEntry[][]> {
    return Promise.all(
      pks.map((pk) =>
        'last' in read
          ? this.oldestEntriesAfter(pk, read.last + 1, read.before)
          : this.newestEntries(pk, read.first + 1, read.after),
      ),
    );
  }

  private shardList(): number[] {
    return Array.from({ length: this.shards }, (_, shard) => shard);
  }

  homeLists(userId: string, outboxAuthorIds: readonly string[], read: ListRead): Promise<TimelineEntry[][]> {
    return this.lists([partitions.home(userId), ...outboxAuthorIds.map(partitions.outbox)], read);
  }

  authorLists(authorId: string, withReposts: boolean, read: ListRead): Promise<TimelineEntry[][]> {
    return this.lists(
      [partitions.authorPosts(authorId), ...(withReposts ? [partitions.userReposts(authorId)] : [])],
      read,
    );
  }

  tagLists(tag: string, read: ListRead): Promise<TimelineEntry[][]> {
    return this.lists(
      this.shardList().map((shard) => partitions.tag(tag, shard)),
      read,
    );
  }

  publicLists(read: ListRead): Promise<TimelineEntry[][]> {
    return this.lists(this.shardList().map(partitions.public), read);
  }

  async authorPosts(authorId: string, first: number, after: string | null): Promise<EntryPage> {
    const entries = await this.newestEntries(partitions.authorPosts(authorId), first + 1, after);
    return { entries: entries.slice(0, first), hasNextPage: entries.length > first };
  }

  async outboxAuthors(): Promise<string[]> {
    const items = await this.queryAll({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': partitions.outboxAuthors() },
    });
    return items.map((item) => item.authorId as string);
  }

  addHomeEntries(entries: readonly HomeEntry[], options?: { unreposted?: boolean }): Promise<void> {
    return options?.unreposted ? this.homeEntries.putOriginals(entries) : this.homeEntries.addOriginals(entries);
  }

  removeHomeEntries(entries: readonly { userId: string; postId: string }[]): Promise<void> {
    return this.homeEntries.removeAll(entries);
  }

  addRepostEntries(entries: readonly RepostEntry[]): Promise<void> {
    return this.homeEntries.addReposts(entries);
  }

  removeHomeReasons(reasons: readonly HomeReason[]): Promise<void> {
    return this.homeEntries.removeReasons(reasons);
  }

  async addToHomeSizes(additions: readonly HomeSizeAddition[]): Promise<number[]> {
    // UpdateItem returns the new estimate atomically: read back after a transaction instead, an estimate
    // could already carry a concurrent trim's reset and hide entries written meanwhile from the bound.
    return mapConcurrently(additions, SIZE_UPDATE_CONCURRENCY, async ({ userId, added }) => {
      const result = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.homeSize(userId),
          UpdateExpression: 'ADD estimate :added',
          ExpressionAttributeValues: { ':added': added },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(result.Attributes?.estimate ?? 0);
    });
  }

  async trimHome(userId: string, keep: number): Promise<void> {
    const items = await this.queryAll({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': partitions.home(userId) },
      ProjectionExpression: 'pk, sk, postId',
      ScanIndexForward: false,
    });
    const surplus = items.slice(keep);
    // A repost's entry (not at its post id) goes with its marker.
    const doomed = surplus.flatMap((item) => {
      const postId = item.postId as string | undefined;
      return [
        { pk: item.pk as string, sk: item.sk as string },
        ...(postId !== undefined && postId !== item.sk ? [keys.homeMarker(userId, postId)] : []),
      ];
    });
    if (doomed.length > 0) await writeItems(this.client, this.tableName, doomed.map(del), this.writeApi);
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.homeSize(userId),
        UpdateExpression: 'SET estimate = :kept',
        ExpressionAttributeValues: { ':kept': items.length - surplus.length },
      }),
    );
  }

  /**
   * Writes whole home timelines at once (seeding): each user's newest `keep` entries, and the
   * size item with the exact count kept. Returns how many entries were written.
   */
  async importHomeTimelines(
    entries: readonly HomeEntry[],
    keep: number,
    onWritten?: (entries: number) => void,
  ): Promise<number> {
    const byUser = new Map<string, Map<string, HomeEntry>>();
    for (const e of entries) (byUser.get(e.userId) ?? byUser.set(e.userId, new Map()).get(e.userId)!).set(e.postId, e);
    const kept = [...byUser.values()].map((timeline) =>
      [...timeline.values()].sort((a, b) => (a.postId < b.postId ? 1 : -1)).slice(0, keep),
    );
    const written = kept.reduce((sum, timeline) => sum + timeline.length, 0);
    // Entries past the bound (or given twice) are done as soon as they are dropped.
    if (entries.length > written) onWritten?.(entries.length - written);
    // The size item goes with each timeline's last entry.
    const records = kept.flatMap((timeline) =>
      timeline.map((entry, i) => ({ entry, size: i === timeline.length - 1 ? timeline.length : null })),
    );
    await importItems(
      this.client,
      this.tableName,
      records,
      ({ entry, size }) =>
        size === null ? [homeEntryItem(entry)] : [homeEntryItem(entry), homeSizeItem(entry.userId, size)],
      { api: this.writeApi, onWritten },
    );
    return written;
  }

  /**
   * Two partitions in turn: the home partition's original entries (a repost's entry is found
   * through its marker), then the markers. The cursor names the partition and where in it.
   */
  async homeEntriesByAuthor(
    userId: string,
    authorId: string,
    cursor: string | null,
  ): Promise<{ postIds: string[]; repostedPostIds: string[]; cursor: string | null }> {
    // A cursor of a version before markers is a position in the home partition.
    const at = cursor ? (JSON.parse(cursor) as { markers?: boolean; key?: Item } & Item) : null;
    const markers = at?.markers === true;
    const start = at ? (at.key ?? (at.markers === undefined ? at : undefined)) : undefined;
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: 'authorId = :author OR contains(reposters, :author)',
        ExpressionAttributeValues: {
          ':pk': markers ? partitions.homeMarkers(userId) : partitions.home(userId),
          ':author': authorId,
        },
        ProjectionExpression: 'sk, postId, authorId, reposters',
        ExclusiveStartKey: start,
      }),
    );
    // In the home partition, only entries at their post id hold reasons; in the markers partition, every item (its sort key is the post id).
    const holders = (result.Items ?? []).filter(
      (item) => markers || item.postId === undefined || item.postId === item.sk,
    );
    const reposters = (item: Item) => (item.reposters as Set<string> | undefined) ?? new Set<string>();
    const next = result.LastEvaluatedKey
      ? { markers, key: result.LastEvaluatedKey }
      : markers
        ? null
        : { markers: true };
    return {
      postIds: holders.filter((item) => item.authorId === authorId).map((item) => item.sk as string),
      repostedPostIds: holders.filter((item) => reposters(item).has(authorId)).map((item) => item.sk as string),
      cursor: next ? JSON.stringify(next) : null,
    };
  }

  async removePostTraces(postId: string, tags: readonly string[]): Promise<boolean> {
    // Every shard, not just the one the post hashed to, so that a changed TIMELINE_SHARDS leaves nothing behind.
    const timelineKeys: Key[] = this.shardList().flatMap((shard) => [
      keys.publicEntry(shard, postId),
      ...tags.map((tag) => keys.tagEntry(tag, shard, postId)),
    ]);
    // A bounded batch per call: a popular post's likes and comments can run into the millions.
    const page = (pk: string) =>
      this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ProjectionExpression: 'pk, sk, id',
          Limit: TRACES_PER_CALL,
        }),
      );
    const [comments, records] = await Promise.all([page(partitions.comments(postId)), page(partitions.post(postId))]);
    await batchWrite(this.client, this.tableName, [
      ...timelineKeys.map(del),
      // A comment entry names its comment (a reply's sort key is its path).
      ...(comments.Items ?? []).flatMap((item) => [
        del({ pk: item.pk as string, sk: item.sk as string }),
        del(keys.comment(item.id as string)),
      ]),
      ...(records.Items ?? []).map((item) => del({ pk: item.pk as string, sk: item.sk as string })),
    ]);
    return comments.LastEvaluatedKey !== undefined || records.LastEvaluatedKey !== undefined;
  }

  private queryAll(input: Omit<QueryCommandInput, 'TableName'>): Promise<Item[]> {
    return queryItems(this.client, this.tableName, input);
  }
}
