/**
 * The graph queries at one connection, as the viewers they are hardest for: `suggestedFollows`
 * (first: 10) as the median viewer and as the 99th-percentile viewer by following count (the goal:
 * p50 ≤ 50 ms for both at the default seed size), with `degreesOfSeparation` (maxDepth: 3,
 * from each viewer to the other) and `network` (maxDepth: 2) as the same viewers.
 *
 * `bench/run.ts` calls `pickGraphViewers` and `measureGraphQueries` against its batched service.
 * Run alone, `npx tsx bench/graph-queries.ts [--runs 100]` measures an already seeded DATA_DIR
 * (default seed 42; `npm run seed` makes one) with an in-process service on loopback.
 */
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startApp } from '../src/app.js';
import { Tokens } from '../src/auth/tokens.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { SEED_SIZES, generateNetwork } from '../src/seed/network.js';
import type { GraphStore } from '../src/stores/graph/graph-store.js';
import { UNMETERED } from '../src/stores/graph/traversal.js';

/** suggestedFollows p50 at one connection, for the median and the 99th-percentile viewer (issue 11). */
export const SUGGESTIONS_GOAL_MS = 50;

export interface GraphViewer {
  /** Which viewer: 'median' or 'p99' (by how many accounts they follow). */
  rank: 'median' | 'p99';
  id: string;
  following: number;
}

export interface GraphQueryTiming {
  query: 'suggestedFollows' | 'degreesOfSeparation' | 'network';
  viewer: GraphViewer['rank'];
  following: number;
  runs: number;
  p50Ms: number;
  p99Ms: number;
  /** extensions.cost.graph.requests of one request: round trips to the graph backend. */
  graphRequests: number;
}

const SUGGESTIONS = '{ suggestedFollows(first: 10) { user { id handle } mutualCount via { id } } }';
const DEGREES =
  'query($from: ID!, $to: ID!) { degreesOfSeparation(from: $from, to: $to, maxDepth: 3) { degrees path { id } } }';
const NETWORK =
  'query($userId: ID!) { network(userId: $userId, maxDepth: 2, first: 20) { totalCount edges { node { id handle } } } }';

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const round = (n: number) => Math.round(n * 10) / 10;

/** The median and the 99th-percentile user by following count (ties: the first in `userIds`). */
export async function pickGraphViewers(graph: GraphStore, userIds: readonly string[]): Promise<GraphViewer[]> {
  const counts = await graph.counts(userIds, UNMETERED);
  const ranked = userIds
    .map((id, i) => ({ id, following: counts[i]!.following }))
    .sort((a, b) => a.following - b.following);
  const at = (q: number) => ranked[Math.min(ranked.length - 1, Math.floor(q * ranked.length))]!;
  return [
    { rank: 'median', ...at(0.5) },
    { rank: 'p99', ...at(0.99) },
  ];
}

async function gql(url: string, query: string, variables: Record<string, unknown>, token: string) {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as {
    errors?: { message: string }[];
    extensions?: { cost?: { graph?: { requests: number } } };
  };
  if (body.errors) throw new Error(`graph query failed: ${body.errors.map((e) => e.message).join('; ')}`);
  return body;
}

/** Each query as each viewer, one request at a time: `warmup` unmeasured, then `runs` timed. */
export async function measureGraphQueries(options: {
  url: string;
  viewers: readonly GraphViewer[];
  token: (userId: string) => Promise<string>;
  runs: number;
  warmup: number;
}): Promise<GraphQueryTiming[]> {
  const { url, viewers, runs, warmup } = options;
  const timings: GraphQueryTiming[] = [];
  for (const viewer of viewers) {
    const token = await options.token(viewer.id);
    const other = viewers.find((v) => v.id !== viewer.id) ?? viewer;
    const queries: [GraphQueryTiming['query'], string, Record<string, unknown>][] = [
      ['suggestedFollows', SUGGESTIONS, {}],
      ['degreesOfSeparation', DEGREES, { from: viewer.id, to: other.id }],
      ['network', NETWORK, { userId: viewer.id }],
    ];
    for (const [name, query, variables] of queries) {
      let graphRequests = 0;
      for (let i = 0; i < warmup; i++)
        graphRequests = (await gql(url, query, variables, token)).extensions?.cost?.graph?.requests ?? 0;
      const ms: number[] = [];
      for (let i = 0; i < runs; i++) {
        const started = performance.now();
        await gql(url, query, variables, token);
        ms.push(performance.now() - started);
      }
      timings.push({
        query: name,
        viewer: viewer.rank,
        following: viewer.following,
        runs,
        p50Ms: round(quantile(ms, 0.5)),
        p99Ms: round(quantile(ms, 0.99)),
        graphRequests,
      });
    }
  }
  return timings;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '100' },
      seed: { type: 'string', default: String(SEED_SIZES.full.seed) },
    },
  });
  const secret = 'graph-bench-only-secret-graph-bench-only-secret';
  const config = loadConfig({
    ...process.env,
    JWT_SECRET: secret,
    PORT: '0',
    HOST: '127.0.0.1',
    WORKER_ENABLED: 'false',
    LOG_LEVEL: 'warn',
    COST_EXTENSIONS: 'true',
  });
  const app = await startApp({ config, logger: createLogger('warn') });
  try {
    // The seed's handles are deterministic, its ids are not: find the users by handle.
    const network = generateNetwork({
      ...SEED_SIZES.full,
      seed: Number(values.seed),
      posts: 0,
      likes: 0,
      endMs: Date.now(),
    });
    const ids = (await app.stores.users.idsByHandle(network.users.map((u) => u.handle))).filter(
      (id): id is string => id !== null,
    );
    if (ids.length === 0)
      throw new Error(`DATA_DIR ${config.dataDir} holds no seeded users (seed ${values.seed}); run npm run seed first`);
    const viewers = await pickGraphViewers(app.stores.graph, ids);
    const tokens = new Tokens(secret, 3600);
    const runs = Number(values.runs);
    const timings = await measureGraphQueries({
      url: app.url,
      viewers,
      token: (id) => tokens.issue(id),
      runs,
      warmup: Math.max(3, Math.floor(runs / 10)),
    });
    console.log(`| query | viewer | following | p50 ms | p99 ms | graph requests |\n|---|---|---:|---:|---:|---:|`);
    for (const t of timings)
      console.log(`| ${t.query} | ${t.viewer} | ${t.following} | ${t.p50Ms} | ${t.p99Ms} | ${t.graphRequests} |`);
  } finally {
    await app.stop();
  }
}

if (import.meta.filename === resolve(process.argv[1] ?? '')) await main();
