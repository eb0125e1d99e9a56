import { decodeCursor, encodeCursor } from '../../domain/cursor.js';
import type { Page, UserRecord } from '../../domain/models.js';
import { matchesAll, searchWords } from '../../domain/search-terms.js';
import { pageSize } from '../../domain/validation.js';
import type { UserStore } from '../../stores/user-store.js';
import type { Feed, FeedContext, Hydrated, ShownPage, SkeletonPage } from './pipeline.js';
import { type UserNeeds, hydrateUserRelations, settled } from './user-steps.js';
import { hiddenUsers, visibilityRelations } from './visibility.js';

export interface SearchParams {
  query: string;
  first?: number | null;
  after?: string | null;
  /** What the page shows of each user; null: only the users (BATCHING=false). */
  needs: UserNeeds | null;
}

/**
 * The matches read for one query: what a page ranks and pages through. Bounded, so that a page costs a
 * constant number of requests; a query that matches more is narrowed by typing on.
 */
export const SEARCH_CANDIDATES = 100;

interface Candidate {
  cursor: string;
  id: string;
  /** The user whose handle is the query (found by its claim, not by the index). */
  exact: boolean;
}

interface Found extends Hydrated<UserRecord> {
  exact: boolean;
  followers: number;
  viewerFollows: boolean;
}

export interface SearchPage {
  page: Page<UserRecord>;
  totalCount: () => Promise<number>;
}

const HANDLE = /^[a-z0-9_]{3,30}$/;
const isOffset = (value: unknown): value is number =>
  Number.isInteger(value) && (value as number) >= 0 && (value as number) <= SEARCH_CANDIDATES;

/**
 * Query.searchUsers, a typeahead: users with a handle or display-name word starting with each word of
 * the query (folded: see domain/search-terms.ts). The exact handle first, then the accounts the viewer
 * follows, then the most followed; never an account in a block with the viewer.
 */
export class SearchFeed implements Feed<SearchParams, Candidate, Found, SearchPage> {
  constructor(private readonly users: Pick<UserStore, 'search' | 'idsByHandle' | 'indexed'>) {}

  /** One Query of the index for the query's longest word, and the exact handle's claim beside it. */
  async skeleton({ query, first, after }: SearchParams): Promise<SkeletonPage<Candidate>> {
    const words = searchWords(query);
    pageSize(first);
    decodeCursor(after, 'after', isOffset);
    const longest = words.reduce((a, b) => (Array.from(b).length > Array.from(a).length ? b : a));
    const handle = words.length === 1 && HANDLE.test(words[0]!) ? words[0]! : null;
    const [ids, [exactId = null]] = await Promise.all([
      this.users.search(longest, SEARCH_CANDIDATES),
      handle ? this.users.idsByHandle([handle]) : Promise.resolve([]),
    ]);
    const candidates = exactId ? [exactId, ...ids.filter((id) => id !== exactId)] : ids;
    return { items: candidates.map((id) => ({ cursor: id, id, exact: id === exactId })), hasNextPage: false };
  }

  /** The candidates are the whole list: presentation pages through them. */
  readOn(): null {
    return null;
  }

  /**
   * In one wave: the users, their follower counts, the viewer's follows of them and the blocks between them, what the
   * page shows of them, and whether the exact handle's account is in the index (a closed account keeps its claim until
   * its deletion task frees it, and leaves the index at once).
   */
  async hydration(
    page: SkeletonPage<Candidate>,
    { query, needs }: SearchParams,
    { viewerId, hydrator }: FeedContext,
  ): Promise<Found[]> {
    const ids = page.items.map((item) => item.id);
    if (ids.length === 0) return [];
    const exact = page.items.find((item) => item.exact);
    const indexed = exact
      ? this.users.indexed([{ term: searchWords(query)[0]!, userId: exact.id }])
      : Promise.resolve([true]);
    const others = viewerId ? ids.filter((id) => id !== viewerId) : [];
    const follows = viewerId ? hydrator.follows(others.map((id) => ({ from: viewerId, to: id }))) : Promise.resolve([]);
    const related = settled([
      needs ? hydrateUserRelations(ids, viewerId, needs, hydrator) : null,
      viewerId ? hydrator.relations(visibilityRelations(viewerId, ids, false)) : null,
    ]);
    const [users, counts, followed, [exactIndexed]] = await Promise.all([
      hydrator.users(ids),
      hydrator.followCounts(ids),
      follows,
      indexed,
    ]);
    await related;
    const followedIds = new Set(others.filter((_, i) => followed[i]));
    return page.items.map((item, i) => ({
      cursor: item.cursor,
      node: item.exact && !exactIndexed ? null : (users[i] ?? null),
      exact: item.exact,
      followers: counts[i]?.followers ?? 0,
      viewerFollows: followedIds.has(item.id),
    }));
  }

  /** Gone or closed accounts, accounts in a block with the viewer, and entries the profile no longer matches are left out. */
  async rules(entries: Found[], { query }: SearchParams, { viewerId, hydrator }: FeedContext): Promise<Found[]> {
    const words = searchWords(query);
    const hidden = await hiddenUsers(
      viewerId,
      entries.map((entry) => entry.cursor),
      false,
      hydrator,
    );
    return entries.map((entry) => ({
      ...entry,
      node: entry.node && !hidden.has(entry.node.id) && matchesAll(words, entry.node) ? entry.node : null,
    }));
  }

  /** Ranked, then the page after the cursor's offset; the cursors are offsets into the ranking. */
  presentation({ items }: ShownPage<Candidate, Found>, { first, after }: SearchParams): SearchPage {
    const ranked = [...items].sort(byRank);
    const start = decodeCursor(after, 'after', isOffset) ?? 0;
    const size = pageSize(first);
    const shown = ranked
      .slice(start, start + size)
      .map((entry, i) => ({ cursor: encodeCursor(start + i + 1), node: entry.node }));
    return {
      page: {
        items: shown,
        hasNextPage: start + size < ranked.length,
        endCursor: shown.at(-1)?.cursor ?? null,
        startCursor: shown[0]?.cursor ?? null,
      },
      totalCount: () => Promise.resolve(ranked.length),
    };
  }
}

function byRank(a: Found, b: Found): number {
  return (
    Number(b.exact) - Number(a.exact) ||
    Number(b.viewerFollows) - Number(a.viewerFollows) ||
    b.followers - a.followers ||
    (a.node!.handle < b.node!.handle ? -1 : a.node!.handle > b.node!.handle ? 1 : 0)
  );
}
