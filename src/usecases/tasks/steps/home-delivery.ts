import type { HomeEntry, HomeReason, RepostEntry, TimelineStore } from '../../../stores/timeline-store.js';
import type { HomeRetention } from '../../home-retention.js';

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

/** An entry as a handler makes it: HomeDelivery gives it its expiry. */
export type NewHomeEntry = Omit<HomeEntry, 'expiresAt'>;
export type NewRepostEntry = Omit<RepostEntry, 'expiresAt'>;

/**
 * The one step at which handlers put posts into home timelines (and take them out). Timelines keep posts for
 * HOME_RETENTION_DAYS: an entry is written with its expiry, and none already past it is written (a backfill of
 * old posts, a task that waited long in the queue).
 */
export class HomeDelivery {
  constructor(
    private readonly timelines: TimelineStore,
    private readonly retention: HomeRetention,
  ) {}

  /** Originals, at the post id unless the post is there already. `unreposted`: no receiver's entries need reading first. */
  async deliver(entries: readonly NewHomeEntry[], options?: { unreposted?: boolean }): Promise<void> {
    const horizon = this.retention.horizon();
    const kept = this.retention.within(entries, horizon);
    if (kept.length > 0) await this.timelines.addHomeEntries(kept, { ...options, horizon });
  }

  /** Reposts: placed at the repost's position where the post is not yet, else the reposter is added as a reason of its entry. */
  async deliverReposts(entries: readonly NewRepostEntry[]): Promise<void> {
    const horizon = this.retention.horizon();
    const kept = this.retention.within(entries, horizon);
    if (kept.length > 0) await this.timelines.addRepostEntries(kept, { horizon });
  }

  /** Takes entries back whatever brought them (a fan-out whose post was deleted meanwhile). */
  takeBack(entries: readonly { userId: string; postId: string }[]): Promise<void> {
    return this.timelines.removeHomeEntries(entries);
  }

  /** Takes reasons back (a repost undone, a backfill whose follow ended); an entry left without a reason goes. */
  withdraw(reasons: readonly HomeReason[]): Promise<void> {
    return this.timelines.removeHomeReasons(reasons);
  }
}
