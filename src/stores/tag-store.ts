/** A tag and how many posts used it; `lastUsedMs` when known (the window's counts keep it, for ties). */
export interface TagCount {
  tag: string;
  count: number;
  lastUsedMs: number | null;
}

/**
 * Tag counts, kept by the post writes themselves (see PostStore): per hour for trends, and all-time
 * for search by prefix. Neither read scans posts.
 */
export interface TagStore {
  /** The tags used in the hours from `fromMs` to `toMs` (both included), summed over them; unordered. */
  windowCounts(fromMs: number, toMs: number): Promise<TagCount[]>;
  /** Tags starting with `prefix` (normalised), all-time counts; unordered, at most `limit` read. */
  byPrefix(prefix: string, limit: number): Promise<TagCount[]>;
}
