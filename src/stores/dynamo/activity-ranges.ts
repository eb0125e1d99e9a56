import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { idTime } from '../../domain/ids.js';
import { type Cost, currentCostMeter } from '../../observability/cost.js';
import type { ItemReader } from './batch-reader.js';
import { type Key, keys, partitions } from './keys.js';

/** The records whose presence a page asks about: the viewer's like, the viewer's repost. */
export type ActivityKind = 'LIKE' | 'REPOST';

const recordKey = (kind: ActivityKind, postId: string, userId: string): Key =>
  kind === 'LIKE' ? keys.like(postId, userId) : keys.repost(postId, userId);

/** Fewer posts than this are looked up record by record: as cheap, and no range to read past. */
const MIN_POSTS = 4;
/** Posts older than the newest asked for by more than this (a repost of an old post) are looked up by record. */
const WINDOW_MS = 7 * 24 * 3_600_000;
/** Activity items one range read reads at most; posts past them are looked up by record, a call later. */
export const ACTIVITY_RANGE_MAX_ITEMS = 100;

interface Ask {
  postIds: Set<string>;
  resolvers: {
    kind: ActivityKind;
    postIds: readonly string[];
    resolve: (found: boolean[]) => void;
    reject: (error: unknown) => void;
  }[];
}

/** Lookups made outside any operation share this meter slot, as BatchReader's do. */
const NO_METER = {};

/**
 * Has a user liked or reposted each of a page's posts? A user's activity items are sorted by post id, and post
 * ids by time, so one Query of the user's activity between the page's oldest and newest post answers every
 * post of it (and both kinds) for a few read units, where a lookup per record costs half a unit each. A tick's
 * questions about one user are combined; posts outside the window, and strongly consistent questions, are
 * looked up by record through the batch reader, beside the page's other lookups.
 */
export class ActivityRanges {
  private readonly pending = new Map<object, Map<string, Ask>>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly reader: ItemReader,
  ) {}

  async has(
    kind: ActivityKind,
    userId: string,
    postIds: readonly string[],
    options: { consistent?: boolean } = {},
  ): Promise<boolean[]> {
    if (options.consistent === true || postIds.length < MIN_POSTS) return this.byRecord(kind, userId, postIds, options);
    const newest = Math.max(...postIds.map(idTime));
    const inWindow = postIds.filter((id) => newest - idTime(id) <= WINDOW_MS);
    const outside = postIds.filter((id) => newest - idTime(id) > WINDOW_MS);
    const [ranged, looked] = await Promise.all([
      this.inRange(kind, userId, inWindow),
      this.byRecord(kind, userId, outside, options),
    ]);
    const found = new Map<string, boolean>([
      ...inWindow.map((id, i) => [id, ranged[i]!] as const),
      ...outside.map((id, i) => [id, looked[i]!] as const),
    ]);
    return postIds.map((id) => found.get(id)!);
  }

  private async byRecord(
    kind: ActivityKind,
    userId: string,
    postIds: readonly string[],
    options: { consistent?: boolean },
  ): Promise<boolean[]> {
    const records = await this.reader.get(
      postIds.map((postId) => recordKey(kind, postId, userId)),
      { attributes: [], consistent: options.consistent },
    );
    return records.map((record) => record !== undefined);
  }

  /** Joins the tick's range read of the user's activity; sent after the tick, as BatchReader's batches are. */
  private inRange(kind: ActivityKind, userId: string, postIds: readonly string[]): Promise<boolean[]> {
    if (postIds.length === 0) return Promise.resolve([]);
    const meter: Cost | object = currentCostMeter() ?? NO_METER;
    const asks = this.pending.get(meter) ?? this.pending.set(meter, new Map()).get(meter)!;
    let ask = asks.get(userId);
    if (!ask) {
      const made: Ask = { postIds: new Set(), resolvers: [] };
      ask = made;
      asks.set(userId, made);
      setImmediate(() => {
        asks.delete(userId);
        if (asks.size === 0 && this.pending.get(meter) === asks) this.pending.delete(meter);
        void this.send(userId, made);
      });
    }
    for (const id of postIds) ask.postIds.add(id);
    return new Promise((resolve, reject) => ask.resolvers.push({ kind, postIds, resolve, reject }));
  }

  private async send(userId: string, ask: Ask): Promise<void> {
    try {
      const sorted = [...ask.postIds].sort();
      const result = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
          ExpressionAttributeValues: {
            ':pk': partitions.activity(userId),
            ':lo': `${keys.post(sorted[0]!).pk}#`,
            // '$' sorts after '#', which ends every activity key of the newest post.
            ':hi': `${keys.post(sorted.at(-1)!).pk}$`,
          },
          ProjectionExpression: 'sk',
          Limit: ACTIVITY_RANGE_MAX_ITEMS,
        }),
      );
      const seen = new Set((result.Items ?? []).map((item) => item.sk as string));
      // Past ACTIVITY_RANGE_MAX_ITEMS the read stopped at its last key: later posts are looked up by record.
      const readTo = result.LastEvaluatedKey ? (result.LastEvaluatedKey.sk as string) : null;
      const answered = (postId: string) => readTo === null || `${keys.post(postId).pk}$` <= readTo;
      await Promise.all(
        ask.resolvers.map(async (resolver) => {
          try {
            const unread = resolver.postIds.filter((id) => !answered(id));
            const looked = await this.byRecord(resolver.kind, userId, unread, {});
            const lookedUp = new Map(unread.map((id, i) => [id, looked[i]!]));
            resolver.resolve(
              resolver.postIds.map(
                (postId) =>
                  lookedUp.get(postId) ?? seen.has(keys.activity(userId, recordKey(resolver.kind, postId, userId)).sk),
              ),
            );
          } catch (error) {
            resolver.reject(error);
          }
        }),
      );
    } catch (error) {
      for (const resolver of ask.resolvers) resolver.reject(error);
    }
  }
}

/** The user all of `pairs` ask about, or null when they name several (or none). */
export function oneUserOf(pairs: readonly { userId: string }[]): string | null {
  const userId = pairs[0]?.userId;
  return userId !== undefined && pairs.every((p) => p.userId === userId) ? userId : null;
}
