import { mapConcurrently } from '../../../lib/collections.js';
import type {
  HomeEntry,
  HomeReason,
  HomeSizeAddition,
  RepostEntry,
  TimelineStore,
} from '../../../stores/timeline-store.js';

/** A post's home entries were written for these users (live updates publish it, see LiveUpdates). */
export interface Delivered {
  postId: string;
  /** Where the entries are (TimelineEntry.position): the post id, or the repost's position. */
  position: string;
  authorId: string;
  counterShards: number;
  /** The reposter whose repost put the post there; null for an original post. */
  repostedBy: string | null;
  userIds: readonly string[];
}

/** Told of every batch of home entries a post's or a repost's fan-out writes; must not throw (its own failures are its own). */
export type OnDelivered = (delivered: Delivered) => void;

export interface HomeBounds {
  /** Entries a home timeline keeps, about (see sampledSizeAdditions). */
  timelineMaxEntries: number;
  /** A home timeline's size is counted on about one write in this many. */
  timelineSizeSampleEvery: number;
}

/** Full home timelines trimmed at once by one step. */
const TRIM_CONCURRENCY = 2;

/**
 * The size estimates a write of home entries adds to: one user id per entry. A user receiving
 * `count` entries is counted with probability count/k as k entries, or exactly when count ≥ k:
 * right on average, at about one update per k entries.
 */
export function sampledSizeAdditions(
  userIds: readonly string[],
  k: number,
  random: () => number = Math.random,
): HomeSizeAddition[] {
  const counts = new Map<string, number>();
  for (const userId of userIds) counts.set(userId, (counts.get(userId) ?? 0) + 1);
  return [...counts].flatMap(([userId, count]) =>
    count >= k || random() * k < count ? [{ userId, added: Math.max(count, k) }] : [],
  );
}

/** The one step at which handlers put posts into home timelines (and take them out), keeping the timelines bounded. */
export class HomeDelivery {
  constructor(
    private readonly timelines: TimelineStore,
    private readonly bounds: HomeBounds,
  ) {}

  /** Originals, at the post id unless the post is there already. `unreposted`: no receiver's entries need reading first. */
  deliver(entries: readonly HomeEntry[], options?: { unreposted?: boolean }): Promise<void> {
    return this.timelines.addHomeEntries(entries, options);
  }

  /** Reposts: placed at the repost's position where the post is not yet, else the reposter is added as a reason of its entry. */
  deliverReposts(entries: readonly RepostEntry[]): Promise<void> {
    return this.timelines.addRepostEntries(entries);
  }

  /** Takes entries back whatever brought them (a fan-out whose post was deleted meanwhile). */
  takeBack(entries: readonly { userId: string; postId: string }[]): Promise<void> {
    return this.timelines.removeHomeEntries(entries);
  }

  /** Takes reasons back (a repost undone, a backfill whose follow ended); an entry left without a reason goes. */
  withdraw(reasons: readonly HomeReason[]): Promise<void> {
    return this.timelines.removeHomeReasons(reasons);
  }

  /** Trims to nine tenths of the bound a timeline whose sampled size estimate passed it: one read per tenth, not per write. */
  async keepBounded(receivers: readonly string[]): Promise<void> {
    const max = this.bounds.timelineMaxEntries;
    const additions = sampledSizeAdditions(receivers, this.bounds.timelineSizeSampleEvery);
    if (additions.length === 0) return;
    const estimates = await this.timelines.addToHomeSizes(additions);
    const full = additions.filter((_, i) => estimates[i]! > max);
    await mapConcurrently(full, TRIM_CONCURRENCY, ({ userId }) =>
      this.timelines.trimHome(userId, max - Math.floor(max / 10)),
    );
  }
}
