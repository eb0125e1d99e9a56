import type { CacheFill, CacheLookup, CachedItem, ItemCache } from './item-cache.js';

interface Entry {
  variants: Map<string, { item: CachedItem; expiresAt: number }>;
}

/** The lookups of a key still waiting for their store read, and how often the key was invalidated meanwhile. */
interface Pending {
  readers: number;
  generation: number;
}

/**
 * An in-process LRU (a Map kept in recency order: a hit moves its key to the end, the first key
 * is the least recently used) of at most `maxEntries` keys. Versions are kept only for keys with
 * a read in flight, so they cost nothing once the reads are done.
 */
export class MemoryItemCache implements ItemCache {
  readonly kind = 'memory';
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  lookup(keys: readonly string[], variant: string): Promise<CacheLookup[]> {
    const now = this.now();
    return Promise.resolve(
      keys.map((key): CacheLookup => {
        const entry = this.entries.get(key);
        const cached = entry?.variants.get(variant);
        if (entry && cached && cached.expiresAt > now) {
          this.entries.delete(key);
          this.entries.set(key, entry);
          return { hit: true, item: cached.item };
        }
        const pending = this.pending.get(key) ?? this.pending.set(key, { readers: 0, generation: 0 }).get(key)!;
        pending.readers += 1;
        return { hit: false, version: String(pending.generation) };
      }),
    );
  }

  fill(fills: readonly CacheFill[]): Promise<void> {
    const now = this.now();
    for (const { key, variant, version, item, ttlMs } of fills) {
      const pending = this.pending.get(key);
      if (!pending) continue;
      pending.readers -= 1;
      if (pending.readers === 0) this.pending.delete(key);
      if (item === undefined || String(pending.generation) !== version) continue;
      const entry = this.entries.get(key) ?? { variants: new Map() };
      entry.variants.set(variant, { item, expiresAt: now + ttlMs });
      this.entries.delete(key);
      this.entries.set(key, entry);
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    return Promise.resolve();
  }

  invalidate(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      this.entries.delete(key);
      const pending = this.pending.get(key);
      if (pending) pending.generation += 1;
    }
    return Promise.resolve();
  }

  size(): number {
    return this.entries.size;
  }

  close(): Promise<void> {
    this.entries.clear();
    return Promise.resolve();
  }
}
