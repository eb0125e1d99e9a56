import { type HomeEntry, positionAt, positionTime } from '../stores/timeline-store.js';

const DAY_MS = 24 * 3600 * 1000;

/**
 * How long home timelines keep a post (HOME_RETENTION_DAYS), counted from its feed position: every entry is
 * written with that expiry for DynamoDB's TTL to delete it for free, and since TTL deletes when it gets to it
 * (typically within two days), reads stop at the horizon and deliveries write nothing past it.
 */
export class HomeRetention {
  readonly ms: number;

  constructor(
    days: number,
    /** What time it is (ms since the epoch): the stores' clock. */
    private readonly clock: () => number,
  ) {
    this.ms = days * DAY_MS;
  }

  /** The oldest feed position a home timeline shows now. */
  horizon(): string {
    return positionAt(this.clock() - this.ms);
  }

  /** When the entry at `position` expires, epoch seconds (the table's TTL attribute). */
  expiresAt(position: string): number {
    return Math.ceil((positionTime(position) + this.ms) / 1000);
  }

  /** The entries still within the retention (at `position`, else at their post id), each with its expiry. */
  within<E extends Omit<HomeEntry, 'expiresAt'> & { position?: string }>(
    entries: readonly E[],
    horizon = this.horizon(),
  ): (E & { expiresAt: number })[] {
    return entries.flatMap((entry) => {
      const position = entry.position ?? entry.postId;
      return position < horizon ? [] : [{ ...entry, expiresAt: this.expiresAt(position) }];
    });
  }
}
