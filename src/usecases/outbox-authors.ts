import type { TimelineStore } from '../stores/timeline-store.js';

/**
 * The registry of authors who are not fanned out, kept for `ttlMs` per process because it rarely changes;
 * this process's own registrations clear it at once.
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
