import { TRENDS_READ_MAX_QUERIES } from '../config.js';
import { badInput } from '../domain/errors.js';
import { normalizeWord } from '../domain/validation.js';
import type { Logger } from '../logger.js';
import { withoutBudget } from '../observability/cost.js';
import type { TagCount, TagStore } from '../stores/tag-store.js';

export interface TagSettings {
  /** TRENDS_WINDOW_HOURS: the current hour and the ones before it. */
  trendsWindowHours: number;
  /** TRENDS_CACHE_TTL_MS: how long a computed list is served. */
  trendsCacheTtlMs: number;
  /** TRENDS_READ_MAX_ITEMS: the most counts one computation reads. */
  trendsReadMaxItems: number;
}

/** How many tags a list returns unless asked (1-100). */
export const TAG_LIST_DEFAULT = 10;
const TAG_LIST_MAX = 100;

/** The tag totals one searchTags request reads for a prefix (one Query); a shorter prefix ranks what it finds of them. */
export const TAG_SEARCH_READ = 1000;

const HOUR_MS = 3_600_000;

function listSize(first: number | null | undefined): number {
  if (first === null || first === undefined) return TAG_LIST_DEFAULT;
  if (!Number.isInteger(first) || first < 1 || first > TAG_LIST_MAX)
    throw badInput('first', `must be between 1 and ${TAG_LIST_MAX}`);
  return first;
}

/** Most used first; ties by the latest use, then by name. */
function byUse(a: TagCount, b: TagCount): number {
  return b.count - a.count || (b.lastUsedMs ?? 0) - (a.lastUsedMs ?? 0) || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0);
}

/** Query.trendingTags and Query.searchTags, from the counts the post writes keep. */
export class TagUseCases {
  /** The top of the trending list (TAG_LIST_MAX tags) this process computed last, and the time it was for. */
  private trendingList: { list: Promise<TagCount[]>; atMs: number } | null = null;

  constructor(
    private readonly tags: TagStore,
    private readonly settings: TagSettings,
    private readonly now: () => number,
    private readonly logger: Logger,
  ) {}

  /** The same for every viewer: computed at most once per TRENDS_CACHE_TTL_MS, by the request that finds it stale. */
  async trending(first: number | null | undefined): Promise<TagCount[]> {
    const size = listSize(first);
    const now = this.now();
    const cached = this.trendingList;
    if (cached && now >= cached.atMs && now < cached.atMs + this.settings.trendsCacheTtlMs)
      return (await cached.list).slice(0, size);
    // Shared by every request that comes while it runs: never stopped half-way by the budget of the one that
    // started it, which counts its Queries (at most what trendingTags declares).
    const list = withoutBudget(() => this.computeTrending(now));
    this.trendingList = { list, atMs: now };
    // A failed computation must not be served.
    list.catch(() => {
      if (this.trendingList?.list === list) this.trendingList = null;
    });
    return (await list).slice(0, size);
  }

  private async computeTrending(now: number): Promise<TagCount[]> {
    const windowHours = this.settings.trendsWindowHours;
    const { counts, hours } = await this.tags.windowCounts(now - (windowHours - 1) * HOUR_MS, now, {
      maxQueries: TRENDS_READ_MAX_QUERIES,
      maxItems: this.settings.trendsReadMaxItems,
    });
    if (hours < windowHours)
      this.logger.warn('trendingTags counted only the newest hours of its window: the rest is past its read bound', {
        hours,
        windowHours,
        maxItems: this.settings.trendsReadMaxItems,
        maxQueries: TRENDS_READ_MAX_QUERIES,
      });
    return counts.sort(byUse).slice(0, TAG_LIST_MAX);
  }

  /** A prefix as a tag is written (a leading `#` is allowed, case is folded). */
  async search(prefix: string, first: number | null | undefined): Promise<TagCount[]> {
    const size = listSize(first);
    const word = normalizeWord(prefix.startsWith('#') ? prefix.slice(1) : prefix, 'prefix');
    return (await this.tags.byPrefix(word, TAG_SEARCH_READ)).sort(byUse).slice(0, size);
  }
}
