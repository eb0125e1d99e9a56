import type { TimelineStore } from '../stores/timeline-store.js';

/**
 * The registry of authors who are not fanned out, read by every home timeline page. It
 * changes only when an author crosses FANOUT_MAX_FOLLOWERS, so each process keeps it for
 * `ttlMs` instead of reading it per request, and forgets it at once when this process
 * registers an author. Another process's registration is seen within `ttlMs`, the same
 * kind of short delay that fan-out itself has.
 */
export class OutboxAuthors {
  private cached: { ids: Promise<string[]>; expiresAt: number } | null = null;

  constructor(
    private readonly timelines: TimelineStore,
    private readonly ttlMs: number,
  ) {}

  list(): Promise<string[]> {
    const now = Date.now();
    if (!this.cached || this.cached.expiresAt <= now) {
      const ids = this.timelines.outboxAuthors();
      this.cached = { ids, expiresAt: now + this.ttlMs };
      // A failed read must not be remembered.
      ids.catch(() => {
        if (this.cached?.ids === ids) this.cached = null;
      });
    }
    return this.cached.ids;
  }

  invalidate(): void {
    this.cached = null;
  }
}
