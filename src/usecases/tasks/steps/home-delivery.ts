import { mapConcurrently } from '../../../lib/collections.js';
import type { HomeEntry, HomeReason, HomeSizeAddition, RepostEntry, TimelineStore } from '../../../stores/timeline-store.js';

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
export function sampledSizeAdditions(userIds: readonly string[], k: number, random: () => number = Math.random): HomeSizeAddition[] {
  const counts = new Map<string, number>();
  for (const userId of userIds) counts.set(userId, (counts.get(userId) ?? 0) + 1);
  return [...counts].flatMap(([userId, count]) => (count >= k || random() * k < count ? [{ userId, added: Math.max(count, k) }] : []));
}

/**
 * Where background work writes home timeline entries: every handler that puts posts into
 * followers' home timelines (fan-out, backfill, repost fan-out) writes a batch of them with
 * `deliver` or `deliverReposts`, the one step at which a post arrives in a home timeline, and
 * keeps the receivers' timelines bounded after it.
 */
export class HomeDelivery {
  constructor(
    private readonly timelines: TimelineStore,
    private readonly bounds: HomeBounds,
  ) {}

  /**
   * Original posts: placed at the post id where the post is not yet, else added as a reason of its
   * entry (the first arrival places it, see README). `unreposted`: the post had no repost when the
   * caller read it, so the receivers' holdings need not be read first (TimelineStore.addHomeEntries).
   */
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

  /**
   * The bound on home timelines, a step after every write to them: each keeps about
   * TIMELINE_MAX_ENTRIES entries without a write per entry. The size estimates of the users
   * who received entries are updated (sampledSizeAdditions), and a timeline whose estimate
   * passed the bound is trimmed to nine tenths of it, its estimate reset to what is left — so
   * a full timeline is read once per tenth of the bound of new entries, not on every write.
   */
  async keepBounded(receivers: readonly string[]): Promise<void> {
    const max = this.bounds.timelineMaxEntries;
    const additions = sampledSizeAdditions(receivers, this.bounds.timelineSizeSampleEvery);
    if (additions.length === 0) return;
    const estimates = await this.timelines.addToHomeSizes(additions);
    const full = additions.filter((_, i) => estimates[i]! > max);
    await mapConcurrently(full, TRIM_CONCURRENCY, ({ userId }) => this.timelines.trimHome(userId, max - Math.floor(max / 10)));
  }
}
