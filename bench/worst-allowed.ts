/**
 * The worst request the limits still allow: every heavy graph request below, sent as each of
 * the heaviest users, must be refused (QUERY_TOO_EXPENSIVE) or answered; the slowest answered
 * one is then timed on its own.
 */
import { performance } from 'node:perf_hooks';
import type { OpenStores } from '../src/stores/open-stores.js';
import type { Tokens } from '../src/auth/tokens.js';
import { type NetworkOptions, generateNetwork } from '../src/seed/network.js';
import { median, round } from './loops.js';
import { type Cost, gql } from './service.js';

type NetworkSize = Omit<NetworkOptions, 'endMs'>;

/**
 * The graph requests that read the most, sent as each heavy user (`ids`: all of them): the
 * limits must refuse them or answer within about a second. Heavy users are those at these ranks
 * by how many they follow — from the top down past the point where the graph budget starts
 * to refuse their traversals — and the most followed.
 */
const HEAVY_RANKS = { following: [1, 2, 3, 5, 8, 10, 12, 15, 20, 30, 40, 60], followers: [1, 2, 3] };
const HEAVY_REQUESTS: {
  name: string;
  query: string;
  variables: (subject: { id: string; ids: string[]; other: string }) => Record<string, unknown>;
}[] = [
  {
    name: 'suggestedFollows(first: 100)',
    query: '{ suggestedFollows(first: 100) { user { id } mutualCount via { id } } }',
    variables: () => ({}),
  },
  {
    name: 'network(maxDepth: 2)',
    query:
      'query($id: ID!) { network(userId: $id, maxDepth: 2, first: 100) { totalCount edges { node { id handle } } } }',
    variables: ({ id }) => ({ id }),
  },
  {
    name: 'network(maxDepth: 2, interest)',
    query:
      'query($id: ID!, $interest: String) { network(userId: $id, maxDepth: 2, interest: $interest, first: 100) { totalCount edges { node { id } } } }',
    variables: ({ id }) => ({ id, interest: 'music' }),
  },
  {
    name: 'network(maxDepth: 3, interest)',
    query:
      'query($id: ID!, $interest: String) { network(userId: $id, maxDepth: 3, interest: $interest, first: 100) { totalCount edges { node { id } } } }',
    variables: ({ id }) => ({ id, interest: 'music' }),
  },
  {
    name: 'degreesOfSeparation(maxDepth: 6)',
    query: 'query($id: ID!, $to: ID!) { degreesOfSeparation(from: $id, to: $to, maxDepth: 6) { degrees path { id } } }',
    variables: ({ id, other }) => ({ id, to: other }),
  },
  {
    name: 'followers(first: 20), each with mutuals and knownFollowers',
    query:
      'query($id: ID!) { user(id: $id) { followers(first: 20) { edges { node { id mutuals(first: 1) { totalCount } knownFollowers(first: 1) { totalCount } } } } } }',
    variables: ({ id }) => ({ id }),
  },
  {
    name: 'users(ids), each with mutuals and knownFollowers',
    query:
      'query($ids: [ID!]!) { users(ids: $ids) { id mutuals(first: 1) { totalCount } knownFollowers(first: 1) { totalCount } } }',
    variables: ({ ids }) => ({ ids }),
  },
  {
    name: 'following(first: 100), each with following(first: 25)',
    query:
      'query($id: ID!) { user(id: $id) { following(first: 100) { edges { node { following(first: 25) { edges { node { id } } } } } } } }',
    variables: ({ id }) => ({ id }),
  },
];

/** The users at HEAVY_RANKS with their degrees, found in the regenerated (deterministic) network by handle. */
async function heavyUsers(opened: OpenStores, size: NetworkSize) {
  const network = generateNetwork({ ...size, endMs: Date.now() });
  const following = new Array<number>(network.users.length).fill(0);
  for (const f of network.follows) following[f.from]! += 1;
  const ranked = (degree: (i: number) => number, ranks: number[]) => {
    const order = network.users.map((_, i) => i).sort((a, b) => degree(b) - degree(a));
    return ranks.map((rank) => order[rank - 1]!);
  };
  const picked = [
    ...new Set([
      ...ranked((i) => following[i]!, HEAVY_RANKS.following),
      ...ranked((i) => network.followerCounts[i]!, HEAVY_RANKS.followers),
    ]),
  ];
  const ids = await opened.stores.users.idsByHandle(picked.map((i) => network.users[i]!.handle));
  return picked.map((i, n) => ({ id: ids[n]!, following: following[i]!, followers: network.followerCounts[i]! }));
}

/**
 * Sends every HEAVY_REQUESTS entry once as each heavy user, then times the slowest one that was
 * answered `plan.worstRuns` times more, one at a time: the worst single request the limits allow.
 */
export async function heaviestAllowed(
  url: string,
  opened: OpenStores,
  options: { size: NetworkSize; otherUserId: string; tokens: Tokens; runs: number },
) {
  const users = await heavyUsers(opened, options.size);
  const ids = users.map((u) => u.id);
  const tried: {
    name: string;
    user: (typeof users)[number];
    token: string;
    variables: Record<string, unknown>;
    ms: number;
    refused: boolean;
  }[] = [];
  for (const user of users) {
    const token = await options.tokens.issue(user.id);
    for (const request of HEAVY_REQUESTS) {
      const variables = request.variables({ id: user.id, ids, other: options.otherUserId });
      const t0 = performance.now();
      const answer = await gql(url, request.query, variables, token);
      const ms = performance.now() - t0;
      const codes = (answer.errors ?? []).map((e) => e.extensions?.code);
      if (codes.some((code) => code !== 'QUERY_TOO_EXPENSIVE' && code !== 'BUDGET_EXCEEDED'))
        throw new Error(`${request.name} failed: ${JSON.stringify(answer.errors)}`);
      tried.push({ name: request.name, user, token, variables, ms, refused: codes.length > 0 });
    }
  }
  const allowed = tried.filter((t) => !t.refused);
  const refused = tried.filter((t) => t.refused);
  const worst = allowed.reduce((a, b) => (b.ms > a.ms ? b : a));
  const times: number[] = [];
  let cost: Cost | undefined;
  for (let run = 0; run < options.runs; run++) {
    const query = HEAVY_REQUESTS.find((r) => r.name === worst.name)!.query;
    const t0 = performance.now();
    const answer = await gql(url, query, worst.variables, worst.token);
    times.push(performance.now() - t0);
    cost = answer.extensions?.cost;
  }
  return {
    name: worst.name,
    user: { following: worst.user.following, followers: worst.user.followers },
    runs: times.length,
    p50Ms: round(median(times)),
    maxMs: round(Math.max(...times)),
    costPerRequest: cost,
    tried: tried.length,
    refused: refused.length,
    slowestRefusalMs: round(Math.max(0, ...refused.map((t) => t.ms))),
  };
}

export type WorstAllowedResult = Awaited<ReturnType<typeof heaviestAllowed>>;
