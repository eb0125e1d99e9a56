import { recordCacheLookups } from '../../observability/cost.js';
import { cacheLookups } from '../../observability/metrics.js';
import type { CacheFill, CacheLookup, ItemCache } from '../cache/item-cache.js';
import type { ItemReader, ReadOptions } from './batch-reader.js';
import { type CachedKind, type Key, cachedKindOf } from './keys.js';

type Item = Record<string, unknown>;

export interface CacheTtls {
  /** Profiles and posts. */
  itemMs: number;
  /** Counts (ReadOptions.counters) and counter shards: shorter, since a counter changes far more often than what it counts. */
  counterMs: number;
}

/** The cache's name of an item key. */
export function cacheKeyOf(key: Key): string {
  return `${key.pk}/${key.sk}`;
}

/** The cache's name of an item's counts (ReadOptions.counters): a counter write evicts them, not the rest of the item. */
export function countsCacheKeyOf(key: Key): string {
  return `${cacheKeyOf(key)}/counts`;
}

/**
 * The read-through cache in front of a reader: only misses go on, in one call with the uncached keys, so a
 * page still shares one BatchGetItem. Strongly consistent reads bypass it (see docs/design/cache.md).
 */
export class CachedReader implements ItemReader {
  /** The reads of missed items under way, by item and shape of read, with the version their lookup saw. */
  private readonly inFlight = new Map<string, { version: string; item: Promise<Item | undefined> }>();

  constructor(
    private readonly reader: ItemReader,
    private readonly cache: ItemCache,
    private readonly ttls: CacheTtls,
  ) {}

  async get(keys: readonly Key[], options: ReadOptions = {}): Promise<(Item | undefined)[]> {
    if (options.consistent === true) return this.reader.get(keys, options);
    const kinds = keys.map((key) => {
      const kind = cachedKindOf(key);
      return kind && options.counters ? 'counter' : kind;
    });
    const cachedAt = kinds.flatMap((kind, n) => (kind ? [n] : []));
    if (cachedAt.length === 0) return this.reader.get(keys, options);
    const variant = options.attributes ? JSON.stringify(options.attributes) : '*';
    const nameOf = options.counters ? countsCacheKeyOf : cacheKeyOf;
    const flightKeys = new Map<number, string>(cachedAt.map((n) => [n, `${nameOf(keys[n]!)}\u0000${variant}`]));
    const found = await this.cache.lookup(
      cachedAt.map((n) => nameOf(keys[n]!)),
      variant,
    );
    const lookups = new Map<number, CacheLookup>(cachedAt.map((n, i) => [n, found[i]!]));
    // A miss whose item another request is reading already, since the same version, waits for that read:
    // at most one read per item per instance at a time, even when an expiry finds many readers.
    const joined = new Map<number, Promise<Item | undefined>>();
    for (const [n, lookup] of lookups) {
      if (lookup.hit) continue;
      const flight = this.inFlight.get(flightKeys.get(n)!);
      if (flight && flight.version === lookup.version) joined.set(n, flight.item);
    }
    const toRead = keys.flatMap((_, n) => (lookups.get(n)?.hit || joined.has(n) ? [] : [n]));
    this.count(kinds, lookups, joined);
    // A fill is read strongly consistent: an eventually consistent read right after a write could bring back the
    // item as it was before it, and keep it cached for the whole TTL (a signed-out token generation, say).
    const reading =
      toRead.length > 0
        ? this.reader.get(
            toRead.map((n) => keys[n]!),
            { ...options, consistent: true },
          )
        : Promise.resolve([]);
    const flights = toRead.flatMap((n, i) => {
      const lookup = lookups.get(n);
      if (!lookup || lookup.hit) return [];
      const flight = { version: lookup.version, item: reading.then((items) => items[i]) };
      flight.item.catch(() => {});
      this.inFlight.set(flightKeys.get(n)!, flight);
      return [[n, flight] as const];
    });
    let read: (Item | undefined)[] = [];
    try {
      read = await reading;
    } finally {
      for (const [n, flight] of flights)
        if (this.inFlight.get(flightKeys.get(n)!) === flight) this.inFlight.delete(flightKeys.get(n)!);
      // Every miss ends its claim; only the reads made here store what they found (a failed read: nothing).
      const readAt = new Map(toRead.map((n, i) => [n, i]));
      const fills: CacheFill[] = [];
      for (const [n, lookup] of lookups) {
        if (lookup.hit) continue;
        const i = readAt.get(n);
        fills.push({
          key: nameOf(keys[n]!),
          variant,
          version: lookup.version,
          item: i === undefined ? undefined : read[i],
          ttlMs: this.ttlOf(kinds[n]!),
        });
      }
      await this.cache.fill(fills);
    }
    const items: (Item | undefined)[] = keys.map((_, n) => {
      const lookup = lookups.get(n);
      return lookup?.hit ? lookup.item : undefined;
    });
    toRead.forEach((n, i) => (items[n] = read[i]));
    // A joined read that failed failed for the request that started it (its deadline, its budget): read those here.
    const failed: number[] = [];
    for (const [n, item] of joined) {
      try {
        items[n] = await item;
      } catch {
        failed.push(n);
      }
    }
    if (failed.length > 0) {
      const again = await this.reader.get(
        failed.map((n) => keys[n]!),
        options,
      );
      failed.forEach((n, i) => (items[n] = again[i]));
    }
    return items;
  }

  private ttlOf(kind: CachedKind): number {
    return kind === 'counter' ? this.ttls.counterMs : this.ttls.itemMs;
  }

  /** A lookup that joined another's read counts as a hit: it cost DynamoDB nothing. */
  private count(kinds: (CachedKind | null)[], lookups: Map<number, CacheLookup>, joined: Map<number, unknown>): void {
    let hits = 0;
    for (const [n, lookup] of lookups) {
      const hit = lookup.hit || joined.has(n);
      if (hit) hits += 1;
      cacheLookups.inc({ kind: kinds[n]!, result: hit ? 'hit' : 'miss' });
    }
    recordCacheLookups(hits, lookups.size - hits);
  }
}
