/**
 * The home timeline page against the storage floor — one raw Query of the home partition and
 * one BatchGetItem of its 20 posts, which no page can beat — measured the same way (the same
 * loops, the same number of connections) in alternating windows of the same run, so that the
 * machine's noise falls on both sides alike: at one connection for latency, at eight for
 * throughput. The naive service (`BATCHING=false`) is measured in the same windows.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { OpenStores } from '../src/stores/open-stores.js';
import { batchGet } from '../src/stores/dynamo/batch.js';
import { keys, partitions } from '../src/stores/dynamo/keys.js';
import type { CpuMeter } from './cpu.js';
import { type Summary, type Window, round, runLoops, summarize } from './loops.js';

export const HOME_QUERY = `query HomeTimeline($first: Int) {
  viewer { timeline(first: $first) { edges { node {
    id text createdAt likeCount viewerHasLiked commentCount reactionCounts { kind count }
    author { handle followerCount viewerFollows }
  } } } }
}`;
export const PAGE_SIZE = 20;
const PAGE_BODY = JSON.stringify({ query: HOME_QUERY, variables: { first: PAGE_SIZE } });

/** Goals of issue 11: page p50 at one connection within 1.5× the floor's; at eight, at least half the floor's rate. */
export const GOALS = { oneConnectionP50Ratio: 1.5, eightConnectionThroughputRatio: 0.5 };

export interface HomePlan {
  warmupS: number;
  /** Measured seconds per side and connection level, split into `rounds` alternating windows. */
  seconds: number;
  rounds: number;
}

interface Side {
  name: string;
  operation: () => Promise<void>;
  cpu: CpuMeter;
}

/** One page's answer: 200 with data and no errors, or it throws. */
export async function fetchPage(url: string, token: string): Promise<{ data: { viewer: { timeline: unknown } } }> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: PAGE_BODY,
  });
  const answer = (await response.json()) as {
    data?: { viewer?: { timeline?: { edges: unknown[] } } };
    errors?: unknown[];
  };
  if (!response.ok || answer.errors || answer.data?.viewer?.timeline?.edges.length !== PAGE_SIZE)
    throw new Error(`the page failed: ${JSON.stringify(answer.errors)}`);
  return answer as { data: { viewer: { timeline: unknown } } };
}

/** A GraphQL page request that fails unless the page answers 200 with data and no errors. */
export function pageRequest(url: string, token: string): () => Promise<void> {
  return async () => {
    await fetchPage(url, token);
  };
}

/** The floor: the two requests a page cannot do without, back to back, from this process. */
export function floorRequest(opened: OpenStores, viewerId: string): () => Promise<void> {
  return async () => {
    const result = await opened.client.send(
      new QueryCommand({
        TableName: opened.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': partitions.home(viewerId) },
        ProjectionExpression: 'sk',
        ScanIndexForward: false,
        Limit: PAGE_SIZE + 1,
      }),
    );
    const postIds = (result.Items ?? []).slice(0, PAGE_SIZE).map((item) => item.sk as string);
    const posts = await batchGet(
      opened.client,
      opened.table,
      postIds.map((id) => keys.post(id)),
    );
    if (posts.length !== PAGE_SIZE) throw new Error('the floor read fewer posts than a page');
  };
}

/** Alternating windows of every side at `connections`, each side starting a round in turn, pooled per side. */
async function interleaved(sides: readonly Side[], connections: number, plan: HomePlan): Promise<Map<string, Summary>> {
  for (const side of sides) await runLoops(connections, plan.warmupS, side.operation, side.cpu);
  const windows = new Map<string, Window[]>(sides.map((side) => [side.name, []]));
  for (let round = 0; round < plan.rounds; round++) {
    const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
    for (const side of order)
      windows.get(side.name)!.push(await runLoops(connections, plan.seconds / plan.rounds, side.operation, side.cpu));
  }
  return new Map([...windows].map(([name, list]) => [name, summarize(connections, list)]));
}

export async function homeAgainstFloor(options: {
  page: () => Promise<void>;
  naivePage: () => Promise<void>;
  floor: () => Promise<void>;
  serviceCpu: CpuMeter;
  naiveCpu: CpuMeter;
  floorCpu: CpuMeter;
  plan: HomePlan;
}) {
  const sides: Side[] = [
    { name: 'page', operation: options.page, cpu: options.serviceCpu },
    { name: 'floor', operation: options.floor, cpu: options.floorCpu },
  ];
  const one = await interleaved(sides, 1, options.plan);
  const eight = await interleaved(
    [...sides, { name: 'naive', operation: options.naivePage, cpu: options.naiveCpu }],
    8,
    options.plan,
  );
  const page1 = one.get('page')!;
  const floor1 = one.get('floor')!;
  const page8 = eight.get('page')!;
  const floor8 = eight.get('floor')!;
  const naive8 = eight.get('naive')!;
  const p50Ratio = round(page1.p50Ms / floor1.p50Ms, 2);
  const throughputRatio = round(page8.perSecond / floor8.perSecond, 2);
  return {
    oneConnection: {
      page: page1,
      floor: floor1,
      p50Ratio,
      goal: `page p50 ≤ ${GOALS.oneConnectionP50Ratio}× floor p50`,
      met: p50Ratio <= GOALS.oneConnectionP50Ratio,
    },
    eightConnections: {
      page: page8,
      floor: floor8,
      naive: naive8,
      throughputRatio,
      goal: `page rate ≥ ${GOALS.eightConnectionThroughputRatio}× floor rate`,
      met: throughputRatio >= GOALS.eightConnectionThroughputRatio,
      batchedOverNaive: round(page8.perSecond / naive8.perSecond, 2),
    },
  };
}
