import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { WriteApi } from '../../config.js';
import { mapConcurrently } from '../../lib/collections.js';
import type { HomeEntry, HomeReason, RepostEntry } from '../timeline-store.js';
import { batchGet, cancellationReasons, del, put, transactWrite, writeItems } from './batch.js';
import type { TableOptions } from './client.js';
import { type Key, keys } from './keys.js';

type Item = Record<string, unknown>;
type TransactItems = NonNullable<Parameters<typeof transactWrite>[1]['TransactItems']>;

/** Why a post is in a user's home timeline: the user follows its author (`original`), and reposts of accounts the user follows. */
export interface Reasons {
  original: boolean;
  reposters: Set<string>;
}

/**
 * The item holding a post's reasons in one home timeline: its original entry or a repost's marker (old
 * entries have no marker). Changes are conditioned on the version read and retried.
 */
interface Holding {
  key: Key;
  /** The entry shown (the holding itself for an original entry). */
  entryKey: Key;
  isMarker: boolean;
  reasons: Reasons;
  /** The reason the entry shows (its repostedBy): a reposter, or null for the original. */
  shown: string | null;
  version: number | null;
}

interface Delivery {
  userId: string;
  postId: string;
  authorId: string;
  counterShards: number | null;
  expiresAt: number;
  /** Null for an original. */
  reposterId: string | null;
  /** The repost's position (unused for an original). */
  position: string;
}

/** What every timeline entry item holds besides its key: the post and what hydrating it needs (see TimelineEntry). */
export function timelineEntryFields(post: { postId: string; authorId: string; counterShards: number | null }): Item {
  return {
    postId: post.postId,
    authorId: post.authorId,
    ...(post.counterShards === null ? {} : { counterShards: post.counterShards }),
  };
}

/** An original home timeline entry as stored, by fan-out, by createPost (the author's own) and by importHomeTimelines: at the post id. */
export function homeEntryItem(entry: HomeEntry): Item {
  return {
    ...keys.homeEntry(entry.userId, entry.postId),
    ...timelineEntryFields(entry),
    expiresAt: entry.expiresAt,
  };
}

/** The entry a repost places (at the repost's position, the reposter shown). */
export function repostHomeEntryItem(entry: RepostEntry): Item {
  return {
    ...keys.homeEntry(entry.userId, entry.position),
    ...timelineEntryFields(entry),
    repostedBy: entry.repostedBy,
    expiresAt: entry.expiresAt,
  };
}

/** The marker written with it: where the entry is, and the post's reasons in this timeline; it expires with the entry. */
export function homeMarkerItem(entry: RepostEntry): Item {
  const { userId, postId, authorId, position, repostedBy, expiresAt } = entry;
  return {
    ...keys.homeMarker(userId, postId),
    position,
    authorId,
    original: false,
    reposters: new Set([repostedBy]),
    repostedBy,
    version: 1,
    expiresAt,
  };
}

/** Reason changes of one post in one timeline retried at most this often when others keep coming first. */
const MAX_ATTEMPTS = 20;
/** Holdings changed at once, one conditional request each. */
const CHANGE_CONCURRENCY = 8;

/**
 * What holds the post in the timeline. With `horizon`, an entry placed before it (and its marker) is past the
 * retention, waiting for TTL to delete it: the post is placed again as if it were gone.
 */
function holdingsOf(
  userId: string,
  postId: string,
  entryItem: Item | undefined,
  markerItem: Item | undefined,
  horizon?: string,
): Holding[] {
  const holdings: Holding[] = [];
  const live = (position: string) => horizon === undefined || position >= horizon;
  const marker = markerItem && live(markerItem.position as string) ? markerItem : undefined;
  const entry = entryItem && live(postId) ? entryItem : undefined;
  const reposters = (item: Item) => new Set((item.reposters as Set<string> | undefined) ?? []);
  const version = (item: Item) => (item.version === undefined ? null : Number(item.version));
  // Both only when an original and a repost arrived at once (see README, Reposts): each is taken back on its own.
  if (marker) {
    holdings.push({
      key: keys.homeMarker(userId, postId),
      entryKey: keys.homeEntry(userId, marker.position as string),
      isMarker: true,
      reasons: { original: marker.original === true, reposters: reposters(marker) },
      shown: (marker.repostedBy as string | undefined) ?? null,
      version: version(marker),
    });
  }
  if (entry) {
    const key = keys.homeEntry(userId, postId);
    const shown = (entry.repostedBy as string | undefined) ?? null;
    // An old entry without `original`: an original unless a repost wrote it.
    const original = entry.original === undefined ? shown === null : entry.original === true;
    holdings.push({
      key,
      entryKey: key,
      isMarker: false,
      reasons: { original, reposters: reposters(entry) },
      shown,
      version: version(entry),
    });
  }
  return holdings;
}

const has = (reasons: Reasons, reposterId: string | null) =>
  reposterId === null ? reasons.original : reasons.reposters.has(reposterId);

function withReason(reasons: Reasons, reposterId: string | null, present: boolean): Reasons {
  if (reposterId === null) return { original: present, reposters: reasons.reposters };
  const reposters = new Set(reasons.reposters);
  if (present) reposters.add(reposterId);
  else reposters.delete(reposterId);
  return { original: reasons.original, reposters };
}

/** The reason an entry shows: the one it shows while that stays, else the original, else a repost. */
function shownReason(reasons: Reasons, current: string | null): string | null {
  if (current !== null ? reasons.reposters.has(current) : reasons.original) return current;
  return reasons.original ? null : ([...reasons.reposters][0] ?? null);
}

/**
 * Home timeline entries and their reasons (see TimelineStore.addHomeEntries): a post is in a
 * timeline once, at the place of whatever brought it first, and goes when its last reason goes.
 */
export class DynamoHomeEntries {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly writeApi: WriteApi;

  constructor(options: TableOptions & { writeApi: WriteApi }) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.writeApi = options.writeApi;
  }

  /** The holdings of each (user, post), strongly consistent: one BatchGetItem per 50 pairs. With `horizon`, those within it. */
  private async read(pairs: readonly { userId: string; postId: string }[], horizon?: string): Promise<Holding[][]> {
    const items = await batchGet(
      this.client,
      this.tableName,
      pairs.flatMap(({ userId, postId }) => [keys.homeEntry(userId, postId), keys.homeMarker(userId, postId)]),
      { consistent: true },
    );
    return pairs.map(({ userId, postId }, i) => holdingsOf(userId, postId, items[2 * i], items[2 * i + 1], horizon));
  }

  /**
   * Originals of a post the caller found unreposted: an entry already there is the same original (a retry, a backfill),
   * so they are put as they are; a repost's reason added to it since the caller looked is lost (docs/design/timelines.md).
   */
  async putOriginals(entries: readonly HomeEntry[]): Promise<void> {
    await writeItems(
      this.client,
      this.tableName,
      entries.map((entry) => put(homeEntryItem(entry))),
      this.writeApi,
    );
  }

  async addOriginals(entries: readonly HomeEntry[], horizon: string): Promise<void> {
    const holdings = await this.read(entries, horizon);
    // Most receivers have no entry of the post yet: their entries go out in bulk, unconditioned.
    await writeItems(
      this.client,
      this.tableName,
      entries.flatMap((entry, i) => (holdings[i]!.length === 0 ? [put(homeEntryItem(entry))] : [])),
      this.writeApi,
    );
    const held = entries.flatMap((entry, i) => (holdings[i]!.length > 0 ? [{ entry, holdings: holdings[i]! }] : []));
    await mapConcurrently(held, CHANGE_CONCURRENCY, ({ entry, holdings: known }) =>
      this.addReason({ ...entry, reposterId: null, position: entry.postId }, known, horizon),
    );
  }

  async addReposts(entries: readonly RepostEntry[], horizon: string): Promise<void> {
    const holdings = await this.read(entries, horizon);
    await mapConcurrently(entries, CHANGE_CONCURRENCY, (entry, i) =>
      this.addReason({ ...entry, reposterId: entry.repostedBy }, holdings[i]!, horizon),
    );
  }

  async removeReasons(reasons: readonly HomeReason[]): Promise<void> {
    const holdings = await this.read(reasons);
    await mapConcurrently(reasons, CHANGE_CONCURRENCY, (reason, i) => this.removeReason(reason, holdings[i]!));
  }

  /** Takes the posts out whatever brought them: the original entry, the marker and the entry it points to. */
  async removeAll(pairs: readonly { userId: string; postId: string }[]): Promise<void> {
    const markers = await batchGet(
      this.client,
      this.tableName,
      pairs.map(({ userId, postId }) => keys.homeMarker(userId, postId)),
      { consistent: true, projection: 'pk, sk, #position', names: { '#position': 'position' } },
    );
    const doomed = new Map<string, Key>();
    const add = (key: Key) => doomed.set(`${key.pk}\u0000${key.sk}`, key);
    pairs.forEach(({ userId, postId }, i) => {
      add(keys.homeEntry(userId, postId));
      add(keys.homeMarker(userId, postId));
      const position = markers[i]?.position as string | undefined;
      if (position) add(keys.homeEntry(userId, position));
    });
    await writeItems(this.client, this.tableName, [...doomed.values()].map(del), this.writeApi);
  }

  /** Adds a reason to the post's holding, placing the post if it has none (a repost with its marker, in one conditional transaction). */
  private async addReason(delivery: Delivery, known: Holding[], horizon: string): Promise<void> {
    const { userId, postId, reposterId } = delivery;
    let holdings = known;
    for (let attempt = 0; ; attempt++) {
      if (attempt === MAX_ATTEMPTS) throw new Error(`home entry of ${postId} for ${userId} kept changing`);
      const holding = holdings[0];
      if (holding && has(holding.reasons, reposterId)) return;
      const written = holding
        ? await this.write(holding, withReason(holding.reasons, reposterId, true))
        : await this.place(delivery, horizon);
      if (written) return;
      [holdings] = (await this.read([{ userId, postId }], horizon)) as [Holding[]];
    }
  }

  private async removeReason(reason: HomeReason, known: Holding[]): Promise<void> {
    const { userId, postId, reposterId } = reason;
    let holdings = known;
    for (let attempt = 0; ; attempt++) {
      if (attempt === MAX_ATTEMPTS) throw new Error(`home entry of ${postId} for ${userId} kept changing`);
      let settled = true;
      for (const holding of holdings.filter((h) => has(h.reasons, reposterId))) {
        if (!(await this.write(holding, withReason(holding.reasons, reposterId, false)))) settled = false;
      }
      if (settled) return;
      [holdings] = (await this.read([{ userId, postId }])) as [Holding[]];
    }
  }

  /**
   * The post's first entry in this timeline, conditioned on no live marker (one past `horizon` is replaced), and an
   * original on no entry either; false if another write placed it first. A repost does not check for an original
   * entry written since the read: that check is billed as a write, and the pair it would avoid is one that bulk
   * originals can leave too (see docs/design/timelines.md, Reposts).
   */
  private async place(delivery: Delivery, horizon: string): Promise<boolean> {
    const { userId, postId, authorId, counterShards, expiresAt, reposterId, position } = delivery;
    // A marker past the horizon is replaced; the entry it placed is left to TTL, unread.
    const noLiveMarker = {
      ConditionExpression: 'attribute_not_exists(pk) OR #position < :horizon',
      ExpressionAttributeNames: { '#position': 'position' },
      ExpressionAttributeValues: { ':horizon': horizon },
    };
    if (reposterId === null) {
      return this.transact([
        { ConditionCheck: { TableName: this.tableName, Key: keys.homeMarker(userId, postId), ...noLiveMarker } },
        {
          Put: {
            TableName: this.tableName,
            Item: homeEntryItem(delivery),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ]);
    }
    const entry: RepostEntry = { userId, postId, authorId, counterShards, expiresAt, repostedBy: reposterId, position };
    return this.transact([
      { Put: { TableName: this.tableName, Item: homeMarkerItem(entry), ...noLiveMarker } },
      { Put: { TableName: this.tableName, Item: repostHomeEntryItem(entry) } },
    ]);
  }

  /** Writes a holding's new reasons (deleting it and its entry when none is left); false if it changed since it was read. */
  private async write(holding: Holding, reasons: Reasons): Promise<boolean> {
    const condition =
      holding.version === null
        ? { ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(version)', values: {} }
        : { ConditionExpression: 'version = :version', values: { ':version': holding.version } };
    const conditioned = (values: Item) => ({
      ConditionExpression: condition.ConditionExpression,
      ...(Object.keys({ ...condition.values, ...values }).length > 0
        ? { ExpressionAttributeValues: { ...condition.values, ...values } }
        : {}),
    });
    if (!reasons.original && reasons.reposters.size === 0) {
      if (!holding.isMarker)
        return conditionally(
          this.client.send(new DeleteCommand({ TableName: this.tableName, Key: holding.key, ...conditioned({}) })),
        );
      return this.transact([
        { Delete: { TableName: this.tableName, Key: holding.key, ...conditioned({}) } },
        { Delete: { TableName: this.tableName, Key: holding.entryKey } },
      ]);
    }
    const shown = shownReason(reasons, holding.shown);
    const { UpdateExpression, ExpressionAttributeValues } = reasonsUpdate(reasons, shown, 'version = :next');
    const update = {
      TableName: this.tableName,
      Key: holding.key,
      UpdateExpression,
      ...conditioned({ ...ExpressionAttributeValues, ':next': (holding.version ?? 0) + 1 }),
    };
    if (!holding.isMarker) return conditionally(this.client.send(new UpdateCommand(update)));
    // A repost's entry carries the reasons too, so that a page can show another when the viewer hides the one shown.
    const failed = await this.failedConditions([
      { Update: update },
      {
        Update: {
          TableName: this.tableName,
          Key: holding.entryKey,
          ConditionExpression: 'attribute_exists(pk)',
          ...reasonsUpdate(reasons, shown),
        },
      },
    ]);
    // The entry went meanwhile (expired before its marker, by a removal not yet finished): the marker goes too,
    // unless it changed since it was read (the post placed again, a reason changed).
    if (failed?.[1] === 'ConditionalCheckFailed')
      await this.client
        .send(
          new DeleteCommand({
            TableName: this.tableName,
            Key: holding.key,
            ConditionExpression: `(${condition.ConditionExpression}) AND #position = :position`,
            ExpressionAttributeNames: { '#position': 'position' },
            ExpressionAttributeValues: { ...condition.values, ':position': holding.entryKey.sk },
          }),
        )
        .catch(ignoreFailedCondition);
    return failed === null;
  }

  private async transact(items: TransactItems): Promise<boolean> {
    return (await this.failedConditions(items)) === null;
  }

  /** Runs a conditional transaction: null when it was written, else why each item failed. */
  private async failedConditions(items: TransactItems): Promise<string[] | null> {
    try {
      await transactWrite(this.client, { TransactItems: items });
      return null;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (reasons?.includes('ConditionalCheckFailed')) return reasons;
      throw error;
    }
  }
}

/** SET (or REMOVE) an item's reasons and the reason it shows, with `extra` set too. */
export function reasonsUpdate(reasons: Reasons, shown: string | null, extra?: string) {
  const set = ['original = :original', ...(extra ? [extra] : [])];
  const remove: string[] = [];
  const values: Item = { ':original': reasons.original };
  if (reasons.reposters.size > 0) {
    set.push('reposters = :reposters');
    values[':reposters'] = reasons.reposters;
  } else remove.push('reposters');
  if (shown !== null) {
    set.push('repostedBy = :shown');
    values[':shown'] = shown;
  } else remove.push('repostedBy');
  return {
    UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
    ExpressionAttributeValues: values,
  };
}

function ignoreFailedCondition(error: unknown): void {
  if (!(error instanceof ConditionalCheckFailedException)) throw error;
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
