/** A tag and how many posts used it; `lastUsedMs` when known (the window's counts keep it, for ties). */
export interface TagCount {
  tag: string;
  count: number;
  lastUsedMs: number | null;
}

/** The most one read of a window's counts may do; it stops before it would do more. */
export interface WindowReadBound {
  /** Requests sent (Queries). */
  maxQueries: number;
  /** Counts read: one per tag, hour and shard. */
  maxItems: number;
}

export interface WindowCounts {
  /** The tags used in the hours counted, summed over them; unordered. */
  counts: TagCount[];
  /**
   * How many hours were counted, the newest first: the whole window unless the bound stopped the read,
   * then only the newest hours it read in full (never a part of an hour).
   */
  hours: number;
}

/**
 * Tag counts, kept by the post writes themselves (see PostStore): per hour for trends, and all-time
 * for search by prefix. Neither read scans posts.
 */
export interface TagStore {
  /** The tags used in the hours from `fromMs` to `toMs` (both included), newest hour first, within `bound`. */
  windowCounts(fromMs: number, toMs: number, bound: WindowReadBound): Promise<WindowCounts>;
  /** Tags starting with `prefix` (normalised), all-time counts; unordered, at most `limit` read. */
  byPrefix(prefix: string, limit: number): Promise<TagCount[]>;
}
