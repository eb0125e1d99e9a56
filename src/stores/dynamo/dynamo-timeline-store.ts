import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { mapConcurrently } from '../../lib/collections.js';
import { type EntryPage, type HomeEntry, type RepostEntry, type TimelineEntry, type TimelineStore, type HomeSizeAddition, mergeNewestFirst } from '../timeline-store.js';
import { type WriteApi, batchWrite, del, importItems, put, queryItems, writeItems } from './batch.js';
import { type Key, keys, partitions } from './keys.js';

type Item = Record<string, unknown>;

export interface TimelineSettings {
  /** Partitions of each tag timeline and of the public timeline. */
  shards: number;
  /** How home timeline entries are written and removed (BULK_WRITE_API). */
  writeApi: WriteApi;
}

/** What every timeline entry item holds besides its key: the post and what hydrating it needs (see TimelineEntry). */
export function timelineEntryFields(post: { postId: string; authorId: string; counterShards: number | null }): Item {
  return { postId: post.postId, authorId: post.authorId, ...(post.counterShards === null ? {} : { counterShards: post.counterShards }) };
}

/** A home timeline entry as stored, by fan-out, by createPost (the author's own) and by importHomeTimelines. */
export function homeEntryItem(entry: HomeEntry): Item {
  return { ...keys.homeEntry(entry.userId, entry.postId), ...timelineEntryFields(entry) };
}

/** A home entry as addRepostEntries' update leaves a missing one: the post's fields and the repost as its reason. */
export function repostHomeEntryItem(entry: RepostEntry): Item {
  return { ...homeEntryItem(entry), repostedBy: entry.repostedBy, reposters: new Set([entry.repostedBy]) };
}

function toTimelineEntry(item: Item): TimelineEntry {
  return {
    postId: item.sk as string,
    authorId: (item.authorId as string | undefined) ?? null,
    counterShards: item.counterShards === undefined ? null : Number(item.counterShards),
    repostedBy: (item.repostedBy as string | undefined) ?? null,
  };
}

/** Runs a conditional write; false when its condition did not hold. */
async function conditionally(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** The size estimate of a home timeline (see HomeDelivery.keepBounded in src/usecases/tasks/home-delivery.ts). */
export function homeSizeItem(userId: string, estimate: number): Item {
  return { ...keys.homeSize(userId), estimate };
}

/** Records of a deleted post removed per call of removePostTraces (and so per checkpoint of its task). */
const TRACES_PER_CALL = 500;
/** Repost entries written or taken back at once, one conditional request each (reasons are per entry, not batchable). */
const REPOST_ENTRY_CONCURRENCY = 8;
/** Size estimates updated at once, one UpdateItem each, so that they do not crowd out the entry writes. */
const SIZE_UPDATE_CONCURRENCY = 4;

/**
 * Timelines are partitions whose sort keys are post ids; a page is one Query per partition
 * (ids older than the cursor, newest first) merged in order. Tag and public timelines are
 * spread over shards so that no partition takes every write.
 */
export class DynamoTimelineStore implements TimelineStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly settings: TimelineSettings,
  ) {}

  private async newestEntries(pk: string, limit: number, before: string | null): Promise<TimelineEntry[]> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: before ? 'pk = :pk AND sk < :before' : 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk, ...(before ? { ':before': before } : {}) },
        ProjectionExpression: 'sk, authorId, counterShards, repostedBy',
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
        ProjectionExpression: 'sk, authorId, counterShards',
        ScanIndexForward: true,
        Limit: limit,
      }),
    );
    return (result.Items ?? []).map(toTimelineEntry);
  }

  private lists(pks: readonly string[], first: number, after: string | null): Promise<TimelineEntry[][]> {
    return Promise.all(pks.map((pk) => this.newestEntries(pk, first + 1, after)));
  }

  private async mergedPage(pks: readonly string[], first: number, after: string | null): Promise<EntryPage> {
    return mergeNewestFirst(await this.lists(pks, first, after), first);
  }

  private shardList(): number[] {
    return Array.from({ length: this.settings.shards }, (_, shard) => shard);
  }

  homeLists(userId: string, outboxAuthorIds: readonly string[], first: number, after: string | null): Promise<TimelineEntry[][]> {
    return this.lists([partitions.home(userId), ...outboxAuthorIds.map(partitions.outbox)], first, after);
  }

  homeListsNewer(userId: string, outboxAuthorIds: readonly string[], last: number, before: string): Promise<TimelineEntry[][]> {
    return Promise.all([partitions.home(userId), ...outboxAuthorIds.map(partitions.outbox)].map((pk) => this.oldestEntriesAfter(pk, last + 1, before)));
  }

  authorPosts(authorId: string, first: number, after: string | null): Promise<EntryPage> {
    return this.mergedPage([partitions.authorPosts(authorId)], first, after);
  }

  authorPostsAndReposts(authorId: string, first: number, after: string | null): Promise<EntryPage> {
    return this.mergedPage([partitions.authorPosts(authorId), partitions.userReposts(authorId)], first, after);
  }

  tag(tag: string, first: number, after: string | null): Promise<EntryPage> {
    return this.mergedPage(this.shardList().map((shard) => partitions.tag(tag, shard)), first, after);
  }

  public(first: number, after: string | null): Promise<EntryPage> {
    return this.mergedPage(this.shardList().map(partitions.public), first, after);
  }

  async outboxAuthors(): Promise<string[]> {
    const items = await this.queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': partitions.outboxAuthors() } });
    return items.map((item) => item.authorId as string);
  }

  async addHomeEntries(entries: readonly HomeEntry[]): Promise<void> {
    await writeItems(this.client, this.tableName, entries.map((e) => put(homeEntryItem(e))), this.settings.writeApi);
  }

  async removeHomeEntries(entries: readonly { userId: string; postId: string }[]): Promise<void> {
    await writeItems(this.client, this.tableName, entries.map((e) => del(keys.homeEntry(e.userId, e.postId))), this.settings.writeApi);
  }

  /**
   * An entry's reasons are the set `reposters`, and `repostedBy` the one shown: the first that
   * arrived, while it stays. An original entry (a put by addHomeEntries) has neither and is
   * never turned into a repost; it replaces a repost entry when it arrives later.
   */
  async addRepostEntries(entries: readonly RepostEntry[]): Promise<void> {
    await mapConcurrently(entries, REPOST_ENTRY_CONCURRENCY, (entry) =>
      conditionally(
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.homeEntry(entry.userId, entry.postId),
            UpdateExpression: `SET postId = :postId, authorId = :authorId, ${entry.counterShards === null ? '' : 'counterShards = :shards, '}repostedBy = if_not_exists(repostedBy, :reposter) ADD reposters :reposters`,
            ConditionExpression: 'attribute_not_exists(pk) OR attribute_exists(repostedBy)',
            ExpressionAttributeValues: {
              ':postId': entry.postId,
              ':authorId': entry.authorId,
              ...(entry.counterShards === null ? {} : { ':shards': entry.counterShards }),
              ':reposter': entry.repostedBy,
              ':reposters': new Set([entry.repostedBy]),
            },
          }),
        ),
      ),
    );
  }

  async removeRepostEntries(entries: readonly { userId: string; postId: string; reposterId: string }[]): Promise<void> {
    await mapConcurrently(entries, REPOST_ENTRY_CONCURRENCY, async ({ userId, postId, reposterId }) => {
      const key = keys.homeEntry(userId, postId);
      let left: Item | undefined;
      const removed = await conditionally(
        this.client
          .send(
            new UpdateCommand({
              TableName: this.tableName,
              Key: key,
              UpdateExpression: 'DELETE reposters :reposters',
              ConditionExpression: 'contains(reposters, :reposter)',
              ExpressionAttributeValues: { ':reposters': new Set([reposterId]), ':reposter': reposterId },
              ReturnValues: 'ALL_NEW',
            }),
          )
          .then((result) => {
            left = result.Attributes;
          }),
      );
      // Not a reason of the entry (any more): a removal that stopped between its two writes may still have left it unsettled.
      if (!removed) left = (await this.client.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }))).Item;
      await this.settleReason(key, left);
    });
  }

  /**
   * After a reason was taken out of a repost entry: deletes the entry if none is left, or shows
   * one that is left if the one shown is gone. Each write is conditioned on what was read; a
   * repost or removal that changed the entry meanwhile makes it read the entry again and retry.
   */
  private async settleReason(key: Key, entry: Item | undefined): Promise<void> {
    let current = entry;
    for (;;) {
      // Gone, or an original entry (it has no reason): nothing to settle.
      if (!current || current.repostedBy === undefined) return;
      const reasons = (current.reposters as Set<string> | undefined) ?? new Set<string>();
      const shown = current.repostedBy as string;
      if (reasons.has(shown)) return;
      const [other] = reasons;
      const settled = await conditionally(
        other === undefined
          ? this.client.send(new DeleteCommand({ TableName: this.tableName, Key: key, ConditionExpression: 'attribute_not_exists(reposters) AND repostedBy = :shown', ExpressionAttributeValues: { ':shown': shown } }))
          : this.client.send(
              new UpdateCommand({
                TableName: this.tableName,
                Key: key,
                UpdateExpression: 'SET repostedBy = :other',
                ConditionExpression: 'repostedBy = :shown AND contains(reposters, :other)',
                ExpressionAttributeValues: { ':other': other, ':shown': shown },
              }),
            ),
      );
      if (settled) return;
      current = (await this.client.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }))).Item;
    }
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
      ProjectionExpression: 'pk, sk',
      ScanIndexForward: false,
    });
    const surplus = items.slice(keep);
    if (surplus.length > 0) await writeItems(this.client, this.tableName, surplus.map((item) => del(item as unknown as Key)), this.settings.writeApi);
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
  async importHomeTimelines(entries: readonly HomeEntry[], keep: number, onWritten?: (entries: number) => void): Promise<number> {
    const byUser = new Map<string, Map<string, HomeEntry>>();
    for (const e of entries) (byUser.get(e.userId) ?? byUser.set(e.userId, new Map()).get(e.userId)!).set(e.postId, e);
    const kept = [...byUser.values()].map((timeline) => [...timeline.values()].sort((a, b) => (a.postId < b.postId ? 1 : -1)).slice(0, keep));
    const written = kept.reduce((sum, timeline) => sum + timeline.length, 0);
    // Entries past the bound (or given twice) are done as soon as they are dropped.
    if (entries.length > written) onWritten?.(entries.length - written);
    // The size item goes with each timeline's last entry.
    const records = kept.flatMap((timeline) => timeline.map((entry, i) => ({ entry, size: i === timeline.length - 1 ? timeline.length : null })));
    await importItems(
      this.client,
      this.tableName,
      records,
      ({ entry, size }) => (size === null ? [homeEntryItem(entry)] : [homeEntryItem(entry), homeSizeItem(entry.userId, size)]),
      { api: this.settings.writeApi, onWritten },
    );
    return written;
  }

  async homeEntriesByAuthor(userId: string, authorId: string, cursor: string | null): Promise<{ postIds: string[]; repostedPostIds: string[]; cursor: string | null }> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: 'authorId = :author OR contains(reposters, :author)',
        ExpressionAttributeValues: { ':pk': partitions.home(userId), ':author': authorId },
        ProjectionExpression: 'sk, authorId, reposters',
        ExclusiveStartKey: cursor ? (JSON.parse(cursor) as Item) : undefined,
      }),
    );
    const items = result.Items ?? [];
    const reposters = (item: Item) => (item.reposters as Set<string> | undefined) ?? new Set<string>();
    return {
      postIds: items.filter((item) => item.authorId === authorId && reposters(item).size === 0).map((item) => item.sk as string),
      repostedPostIds: items.filter((item) => reposters(item).has(authorId)).map((item) => item.sk as string),
      cursor: result.LastEvaluatedKey ? JSON.stringify(result.LastEvaluatedKey) : null,
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
        new QueryCommand({ TableName: this.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ProjectionExpression: 'pk, sk', Limit: TRACES_PER_CALL }),
      );
    const [comments, records] = await Promise.all([page(partitions.comments(postId)), page(partitions.post(postId))]);
    await batchWrite(this.client, this.tableName, [
      ...timelineKeys.map(del),
      ...(comments.Items ?? []).flatMap((item) => [del(item as unknown as Key), del(keys.comment(item.sk as string))]),
      ...(records.Items ?? []).map((item) => del(item as unknown as Key)),
    ]);
    return comments.LastEvaluatedKey !== undefined || records.LastEvaluatedKey !== undefined;
  }

  private queryAll(input: Omit<QueryCommandInput, 'TableName'>): Promise<Item[]> {
    return queryItems(this.client, this.tableName, input);
  }
}
