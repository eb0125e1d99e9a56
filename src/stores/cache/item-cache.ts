/** A stored item as the readers hand it out. */
export type CachedItem = Record<string, unknown>;

/** What a lookup found for one key: the item, or a miss with the version a fill must still match. */
export type CacheLookup = { hit: true; item: CachedItem } | { hit: false; version: string };

export interface CacheFill {
  key: string;
  /** Which attributes the item was read with: a key is cached once per shape of read. */
  variant: string;
  /** The version its lookup returned. */
  version: string;
  /** The item read from the store; undefined (missing, or the read failed): nothing to store. */
  item: CachedItem | undefined;
  ttlMs: number;
}

/**
 * A read-through cache of store items by key, invalidated by version, so a read that overlapped a write never
 * puts the old item back (see docs/design/cache.md).
 */
export interface ItemCache {
  readonly kind: 'memory' | 'redis';
  lookup(keys: readonly string[], variant: string): Promise<CacheLookup[]>;
  /** Stores the items of misses (and ends every lookup's claim, stored or not). */
  fill(fills: readonly CacheFill[]): Promise<void>;
  /** Drops the keys, and refuses every fill of a lookup made before this call. */
  invalidate(keys: readonly string[]): Promise<void>;
  close(): Promise<void>;
}
