import { recordCacheLookups } from '../../observability/cost.js';
import { cacheLookups } from '../../observability/metrics.js';
import type { CacheFill, CacheLookup, ItemCache } from '../cache/item-cache.js';
import type { ItemReader, ReadOptions } from './batch-reader.js';
import { type CachedKind, type Key, cachedKindOf } from './keys.js';

type Item = Record<string, unknown>;

export interface CacheTtls {
  /** Profiles and posts. */
  itemMs: number;
  /** Counter shards: shorter, since a counter changes far more often than what it counts. */
  counterMs: number;
}

/** The cache's name of an item key. */
export function cacheKeyOf(key: Key): string {
  return `${key.pk}/${key.sk}`;
}

/**
 * The read-through cache in front of a reader: the cached kinds of item (cachedKindOf) are
 * looked up in the cache first, and only the misses, with every uncached key of the same
 * call, go on to the reader, in one call, so that a page's misses still share one
 * BatchGetItem and its hits cost DynamoDB nothing. Strongly consistent reads (made after a
 * write, or where a stale answer would be wrong) bypass the cache. Writes invalidate through
 * the DynamoDB client (cache-invalidation.ts), whichever store makes them.
 */
export class CachedReader implements ItemReader {
  constructor(
    private readonly reader: ItemReader,
    private readonly cache: ItemCache,
    private readonly ttls: CacheTtls,
  ) {}

  async get(keys: readonly Key[], options: ReadOptions = {}): Promise<(Item | undefined)[]> {
    if (options.consistent === true) return this.reader.get(keys, options);
    const kinds = keys.map(cachedKindOf);
    const cachedAt = kinds.flatMap((kind, n) => (kind ? [n] : []));
    if (cachedAt.length === 0) return this.reader.get(keys, options);
    const variant = options.attributes ? JSON.stringify(options.attributes) : '*';
    const cacheKeys = cachedAt.map((n) => cacheKeyOf(keys[n]!));
    const found = await this.cache.lookup(cacheKeys, variant);
    const lookups = new Map<number, CacheLookup>(cachedAt.map((n, i) => [n, found[i]!]));
    const toRead = keys.flatMap((key, n) => (lookups.get(n)?.hit ? [] : [n]));
    this.count(kinds, lookups);
    let read: (Item | undefined)[] = [];
    const fills = (items: (Item | undefined)[]): CacheFill[] =>
      toRead.flatMap((n, i) => {
        const lookup = lookups.get(n);
        return lookup && !lookup.hit ? [{ key: cacheKeyOf(keys[n]!), variant, version: lookup.version, item: items[i], ttlMs: this.ttlOf(kinds[n]!) }] : [];
      });
    try {
      read = toRead.length > 0 ? await this.reader.get(toRead.map((n) => keys[n]!), options) : [];
    } finally {
      // A failed read still ends its lookups' claims (with nothing to store).
      await this.cache.fill(fills(read));
    }
    const items: (Item | undefined)[] = keys.map((_, n) => {
      const lookup = lookups.get(n);
      return lookup?.hit ? lookup.item : undefined;
    });
    toRead.forEach((n, i) => (items[n] = read[i]));
    return items;
  }

  private ttlOf(kind: CachedKind): number {
    return kind === 'counter' ? this.ttls.counterMs : this.ttls.itemMs;
  }

  private count(kinds: (CachedKind | null)[], lookups: Map<number, CacheLookup>): void {
    let hits = 0;
    for (const [n, lookup] of lookups) {
      if (lookup.hit) hits += 1;
      cacheLookups.inc({ kind: kinds[n]!, result: lookup.hit ? 'hit' : 'miss' });
    }
    recordCacheLookups(hits, lookups.size - hits);
  }
}
