import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { WriteApi } from '../../config.js';
import type {
  EntryPage,
  HomeEntry,
  HomeReason,
  ListRead,
  RepostEntry,
  TimelineEntry,
  TimelineStore,
} from '../timeline-store.js';
import { batchWrite, del, importItems, queryItems } from './batch.js';
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
  const repostedBy = (item.repostedBy as string | undefined) ?? null;
  const alsoBy = otherReasons(item, repostedBy);
  return {
    position: item.sk as string,
    // Old entries may lack postId: they are at their post id.
    postId: (item.postId as string | undefined) ?? (item.sk as string),
    authorId: (item.authorId as string | undefined) ?? null,
    counterShards: item.counterShards === undefined ? null : Number(item.counterShards),
    repostedBy,
    ...(alsoBy.length > 0 ? { alsoBy } : {}),
  };
}

/** A home entry's reasons besides the one it shows (see dynamo-home-entries.ts), the original first. */
function otherReasons(item: Item, shown: string | null): (string | null)[] {
  const reposters = [...((item.reposters as Set<string> | undefined) ?? [])].filter((id) => id !== shown);
  return [...(item.original === true && shown !== null ? [null] : []), ...reposters];
}

const ENTRY_PROJECTION = 'sk, postId, authorId, counterShards, repostedBy, original, reposters';

/** Records of a deleted post removed per call of removePostTraces (and so per checkpoint of its task). */
const TRACES_PER_CALL = 500;

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

  /** The newest `limit` entries older than `before`, none older than `since`. */
  private async newestEntries(
    pk: string,
    limit: number,
    before: string | null,
    since: string | null,
  ): Promise<TimelineEntry[]> {
    if (before !== null && since !== null && before <= since) return [];
    // A sort key takes one condition: with both bounds, BETWEEN (both included), reading one more for `before` to drop.
    const range =
      since === null
        ? before === null
          ? ''
          : ' AND sk < :before'
        : before === null
          ? ' AND sk >= :since'
          : ' AND sk BETWEEN :since AND :before';
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: `pk = :pk${range}`,
        ExpressionAttributeValues: {
          ':pk': pk,
          ...(before === null ? {} : { ':before': before }),
          ...(since === null ? {} : { ':since': since }),
        },
        ProjectionExpression: ENTRY_PROJECTION,
        ScanIndexForward: false,
        Limit: before !== null && since !== null ? limit + 1 : limit,
      }),
    );
    return (result.Items ?? [])
      .filter((item) => item.sk !== before)
      .slice(0, limit)
      .map(toTimelineEntry);
  }

  /** The oldest `limit` entries newer than `after`, none older than `since`. */
  private async oldestEntriesAfter(
    pk: string,
    limit: number,
    after: string,
    since: string | null,
  ): Promise<TimelineEntry[]> {
    const fromSince = since !== null && since > after;
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: fromSince ? 'pk = :pk AND sk >= :bound' : 'pk = :pk AND sk > :bound',
        ExpressionAttributeValues: { ':pk': pk, ':bound': fromSince ? since : after },
        ProjectionExpression: ENTRY_PROJECTION,
        ScanIndexForward: true,
        Limit: limit,
      }),
    );
    return (result.Items ?? []).map(toTimelineEntry);
  }

  private lists(pks: readonly string[], read: ListRead, since: string | null = null): Promise<TimelineEntry[][]> {
    return Promise.all(
      pks.map((pk) =>
        'last' in read
          ? this.oldestEntriesAfter(pk, read.last + 1, read.before, since)
          : this.newestEntries(pk, read.first + 1, read.after, since),
      ),
    );
  }

  private shardList(): number[] {
    return Array.from({ length: this.shards }, (_, shard) => shard);
  }

  homeLists(
    userId: string,
    outboxAuthorIds: readonly string[],
    read: ListRead,
    since: string,
  ): Promise<TimelineEntry[][]> {
    return this.lists([partitions.home(userId), ...outboxAuthorIds.map(partitions.outbox)], read, since);
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
    const entries = await this.newestEntries(partitions.authorPosts(authorId), first + 1, after, null);
    return { entries: entries.slice(0, first), hasNextPage: entries.length > first };
  }

  async outboxAuthors(): Promise<string[]> {
    const items = await this.queryAll({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': partitions.outboxAuthors() },
    });
    return items.map((item) => item.authorId as string);
  }

  addHomeEntries(entries: readonly HomeEntry[], options: { horizon: string; unreposted?: boolean }): Promise<void> {
    return options.unreposted
      ? this.homeEntries.putOriginals(entries)
      : this.homeEntries.addOriginals(entries, options.horizon);
  }

  removeHomeEntries(entries: readonly { userId: string; postId: string }[]): Promise<void> {
    return this.homeEntries.removeAll(entries);
  }

  addRepostEntries(entries: readonly RepostEntry[], options: { horizon: string }): Promise<void> {
    return this.homeEntries.addReposts(entries, options.horizon);
  }

  removeHomeReasons(reasons: readonly HomeReason[]): Promise<void> {
    return this.homeEntries.removeReasons(reasons);
  }

  /** Writes home timelines whole (seeding): each entry given, once per user and post. Returns how many were written. */
  async importHomeTimelines(entries: readonly HomeEntry[], onWritten?: (entries: number) => void): Promise<number> {
    const unique = new Map<string, HomeEntry>();
    for (const e of entries) unique.set(`${e.userId}\u0000${e.postId}`, e);
    // An entry given twice is done as soon as it is dropped.
    if (entries.length > unique.size) onWritten?.(entries.length - unique.size);
    await importItems(this.client, this.tableName, [...unique.values()], (entry) => [homeEntryItem(entry)], {
      api: this.writeApi,
      onWritten,
    });
    return unique.size;
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
