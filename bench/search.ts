/**
 * The typeahead (`searchUsers`) against its floor, a single `user(handle:)` lookup, asking the same
 * fields of each user: one request at a time, alternating one search and one lookup, so that the
 * machine's noise falls on both sides alike. Queries are what a person types: the first 3 and 5
 * characters of a seeded handle, and the first 3 of its display name's last word.
 */
import { performance } from 'node:perf_hooks';
import { type Cost, gql } from './service.js';
import { median, quantile, round } from './loops.js';

/** Issue 32: searchUsers p50 within 2× a single user(handle:) lookup's, at the default seed size. */
export const SEARCH_GOAL_RATIO = 2;

const FIELDS = 'id handle displayName followerCount viewerFollows';
const SEARCH = `query($q: String!) { searchUsers(query: $q, first: 10) { edges { node { ${FIELDS} } } } }`;
const LOOKUP = `query($h: String!) { user(handle: $h) { ${FIELDS} } }`;

export interface SearchResult {
  runs: number;
  search: { p50Ms: number; p99Ms: number; cost?: Cost; meanResults: number };
  lookup: { p50Ms: number; p99Ms: number; cost?: Cost };
  p50Ratio: number;
  goal: string;
  met: boolean;
}

async function timed(
  url: string,
  query: string,
  variables: Record<string, unknown>,
  token: string,
): Promise<{ ms: number; data: Record<string, any>; cost?: Cost }> {
  const started = performance.now();
  const answer = await gql(url, query, variables, token);
  const ms = performance.now() - started;
  if (answer.errors || !answer.data) throw new Error(`benchmark request failed: ${JSON.stringify(answer.errors)}`);
  return { ms, data: answer.data, cost: answer.extensions?.cost };
}

/** The typed prefixes of a user: of the handle, and of the display name's last word. */
function typed(user: { handle: string; displayName: string }): string[] {
  const last = user.displayName.split(' ').at(-1) ?? user.handle;
  return [user.handle.slice(0, 3), user.handle.slice(0, 5), last.slice(0, 3)];
}

export async function searchAgainstLookup(options: {
  url: string;
  token: string;
  users: readonly { handle: string; displayName: string }[];
  runs: number;
  warmup: number;
}): Promise<SearchResult> {
  const { url, token, users, runs, warmup } = options;
  const searchMs: number[] = [];
  const lookupMs: number[] = [];
  let results = 0;
  let searchCost: Cost | undefined;
  let lookupCost: Cost | undefined;
  for (let i = 0; i < warmup + runs; i++) {
    const user = users[i % users.length]!;
    const queries = typed(user);
    const query = queries[Math.floor(i / users.length) % queries.length]!;
    const search = await timed(url, SEARCH, { q: query }, token);
    const lookup = await timed(url, LOOKUP, { h: user.handle }, token);
    if (!lookup.data.user) throw new Error(`no user ${user.handle}: is the data set seeded?`);
    if (i < warmup) continue;
    searchMs.push(search.ms);
    lookupMs.push(lookup.ms);
    results += search.data.searchUsers.edges.length;
    searchCost = search.cost;
    lookupCost = lookup.cost;
  }
  const p50Ratio = round(median(searchMs) / median(lookupMs), 2);
  return {
    runs,
    search: {
      p50Ms: round(median(searchMs), 2),
      p99Ms: round(quantile(searchMs, 0.99), 2),
      cost: searchCost,
      meanResults: round(results / runs),
    },
    lookup: { p50Ms: round(median(lookupMs), 2), p99Ms: round(quantile(lookupMs, 0.99), 2), cost: lookupCost },
    p50Ratio,
    goal: `searchUsers p50 ≤ ${SEARCH_GOAL_RATIO}× user(handle:) p50, 1 connection`,
    met: p50Ratio <= SEARCH_GOAL_RATIO,
  };
}
