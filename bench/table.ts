/** The markdown table `npm run bench` prints: every measurement, each goal with both sides of its ratio and met or not. */
import type { cpuPerPage } from './cpu-per-page.js';
import { type fanOutAgainstWriteFloor, fanOutRows } from './fan-out.js';
import { type GraphQueryTiming, SUGGESTIONS_GOAL_MS } from './graph-queries.js';
import { PAGE_SIZE, type homeAgainstFloor } from './home-vs-floor.js';
import { type Summary, round } from './loops.js';
import { type Cost, describeCost } from './service.js';
import type { Flood, SignInFloodResult } from './sign-in-flood.js';
import type { SearchResult } from './search.js';
import type { UnderAttackResult } from './under-attack.js';
import type { WorstAllowedResult } from './worst-allowed.js';

export interface Results {
  homeTimeline: Awaited<ReturnType<typeof homeAgainstFloor>> & {
    postsPerPage: number;
    costPerRequest: { batched: Cost; naive: Cost };
  };
  cpu: Awaited<ReturnType<typeof cpuPerPage>>;
  fanOut: Awaited<ReturnType<typeof fanOutAgainstWriteFloor>>;
  graph: { timings: GraphQueryTiming[]; suggestedFollowsGoal: string; suggestedFollowsMet: boolean };
  worstAllowed: WorstAllowedResult;
  underAttack: UnderAttackResult;
  signIn: SignInFloodResult;
  search: SearchResult;
}

export function table(report: {
  mode: string;
  machine: Record<string, unknown> & { loadAverage: { before: number; after: number } };
  dataSet: Record<string, unknown>;
  results: Results;
}): string {
  const { homeTimeline: home, cpu: pageCpu, fanOut, graph, worstAllowed, underAttack, signIn, search } = report.results;
  const cpu = (s: Summary) => {
    const ms = (name: string) => s.cpuMsPerOperation[name] ?? '—';
    const server = ['service', 'floor'].find((name) => name in s.cpuMsPerOperation);
    return `${server ? ms(server) : '—'} / ${ms('engine')} / ${ms('client')}`;
  };
  const row = (name: string, s: Summary, note: string) =>
    `| ${name} | ${s.perSecond} | ${s.p50Ms} | ${s.p99Ms} | ${cpu(s)} | ${note}${s.failures > 0 ? `; ${s.failures} of ${s.operations + s.failures} failed` : ''} |`;
  const one = home.oneConnection;
  const eight = home.eightConnections;
  const met = (yes: boolean) => (yes ? 'met' : '**not met**');
  const lines = [
    `| measurement (${report.mode}) | per s | p50 ms | p99 ms | CPU ms each: service / engine / bench | notes |`,
    '|---|---:|---:|---:|---|---|',
    row(`home page of ${home.postsPerPage} posts, 1 connection`, one.page, describeCost(home.costPerRequest.batched)),
    row(
      'floor: raw Query + BatchGetItem of its posts, 1 connection',
      one.floor,
      'the same loop, from the benchmark process',
    ),
    `| page ÷ floor, 1 connection | | ${one.p50Ratio}× | | | p50s; goal ${one.goal}: ${met(one.met)} |`,
    row(`home page of ${home.postsPerPage} posts, 8 connections`, eight.page, ''),
    row('floor, 8 connections', eight.floor, ''),
    `| page ÷ floor, 8 connections | ${eight.throughputRatio}× | | | | rates; goal ${eight.goal}: ${met(eight.met)} |`,
    row('same page, naive (`BATCHING=false`), 8 connections', eight.naive, describeCost(home.costPerRequest.naive)),
    `| batched ÷ naive, 8 connections | ${eight.batchedOverNaive}× | | | | rates |`,
    ...pageCostRows(home.costPerRequest.batched, met),
    row(
      'home page of 20, its service’s CPU, 1 connection',
      pageCpu.page,
      `as in production (compiled, \`NODE_ENV=production\`), cache off; ${pageCpu.serviceCpuMsPerPage} ms of service CPU per page`,
    ),
    row(
      'the same page’s requests replayed by a bare SDK client, 1 connection',
      pageCpu.replay,
      `${pageCpu.requests} (by wave); ${pageCpu.clientCpuMsPerReplay} ms of client CPU each`,
    ),
    row(
      'the same page’s answer served from memory by Apollo Server over node:http, 1 connection',
      pageCpu.floor,
      `the same schema and request, default resolvers; ${pageCpu.apolloFloorCpuMsPerPage} ms of CPU per page`,
    ),
    row(
      'Apollo Server making the same page’s requests with the bare client, its answer from memory, 1 connection',
      pageCpu.platform,
      `a service on Apollo Server and the SDK with no code of its own; ${pageCpu.platformCpuMsPerPage} ms of CPU per page, ${pageCpu.platformRatio}× the replay; the service's own code ${pageCpu.ownRatio}× the replay beyond it`,
    ),
    `| service CPU ÷ bare client CPU, per page | | ${pageCpu.ratio}× | | | rotating windows; goal ${pageCpu.goal}: ${met(pageCpu.met)}; left beyond the replay and Apollo's floor: ${pageCpu.remainderCpuMsPerPage} ms |`,
    ...fanOutRows(fanOut),
    ...graph.timings.map(
      (t: GraphQueryTiming) =>
        `| ${t.query}, ${t.viewer === 'p99' ? '99th-percentile' : 'median'} viewer (following ${t.following}), 1 connection | | ${t.p50Ms} | ${t.p99Ms} | | ${t.graphRequests} graph requests; ${t.runs} runs${t.query === 'suggestedFollows' ? `; goal p50 ≤ ${SUGGESTIONS_GOAL_MS} ms` : ''} |`,
    ),
    worstRow(worstAllowed),
    ...attackRows(underAttack),
    ...signInRows(signIn, met),
    ...searchRows(search, met),
  ];
  const data = report.dataSet;
  if (report.mode === 'full') lines.push(seedRow(data, met));
  const machine = report.machine;
  return [
    `Data set: ${data.users} users, ${data.follows} follows, ${data.posts} posts, ${data.likes} likes, ${data.homeEntries} home entries (seed ${data.seed}, ${data.days} days).`,
    `Machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGb} GB, Node ${machine.node}, ${machine.arch}, ${machine.os}; load average ${machine.loadAverage.before} before, ${machine.loadAverage.after} after.`,
    '',
    ...lines,
  ].join('\n');
}

/** Issue 34's goal 4 for the benchmark's data set: seeded (seedNetwork, the engine already up) within 10 minutes. */
const SEED_GOAL_S = 600;

function seedRow(data: Record<string, unknown>, met: (yes: boolean) => string): string {
  const seconds = Number(data.seedSeconds);
  const when = data.seededNow ? 'in this run' : 'by the run that seeded the data set';
  return `| full-size seed, ${when} | | | | | ${seconds} s; goal ≤ ${SEED_GOAL_S} s: ${met(seconds <= SEED_GOAL_S)} |`;
}

/** Issue 34's goals 2 and 5 for a page of 20: read units as DynamoDB reports them, requests and waves. */
const PAGE_GOALS = { readUnits: 25, requests: 5, waves: 2 };

function pageCostRows(cost: Cost, met: (yes: boolean) => string): string[] {
  const requests = cost.dynamodb.requests + cost.graph.requests;
  return [
    `| read units per page of ${PAGE_SIZE} | | | | | ${cost.dynamodb.readCapacityUnits}, as DynamoDB reports them; goal ≤ ${PAGE_GOALS.readUnits}: ${met(cost.dynamodb.readCapacityUnits <= PAGE_GOALS.readUnits)} |`,
    `| store requests per page of ${PAGE_SIZE} | | | | | ${requests} in ${cost.waves ?? '?'} waves; goal ≤ ${PAGE_GOALS.requests} in ${PAGE_GOALS.waves} waves: ${met(requests <= PAGE_GOALS.requests && (cost.waves ?? Infinity) <= PAGE_GOALS.waves)} |`,
  ];
}

function signInRows(s: SignInFloodResult, met: (yes: boolean) => string): string[] {
  const [issue, whole] = s.floods;
  const got = (f: Flood) =>
    `the flood got ${f.signedInPerSecond} sign-ins/s, ${f.refusedPerSecond} RATE_LIMITED/s${f.otherErrors > 0 ? `, ${f.otherErrors} other errors` : ''}`;
  return [
    `| signIn alone (scrypt 2^${s.scryptLog2N}), 1 connection from 127.0.0.1 | | ${s.alone.p50Ms} | ${s.alone.p99Ms} | | ${s.signIns} sign-ins, in windows alternating with the floods' |`,
    `| signIn while 127.0.0.2 floods: ${issue.loops} loops of its own right password | | ${issue.p50Ms} | ${issue.p99Ms} | | ${got(issue)} |`,
    `| signIn under that flood ÷ alone | | ${issue.p50Ratio}× | | | p50s; goal ${s.goal}: ${met(s.met)} |`,
    `| signIn while 127.0.0.2 floods with ${whole.loops} loops (all the pool takes from it, none refused) | | ${whole.p50Ms} | ${whole.p99Ms} | | ${got(whole)}; ${whole.p50Ratio}× alone |`,
  ];
}

function searchRows(s: SearchResult, met: (yes: boolean) => string): string[] {
  return [
    `| searchUsers (first: 10; prefixes of 3 and 5 characters), 1 connection | | ${s.search.p50Ms} | ${s.search.p99Ms} | | ${describeCost(s.search.cost)}; ${s.search.meanResults} results on average; ${s.runs} runs |`,
    `| user(handle:), the same fields, alternating with it | | ${s.lookup.p50Ms} | ${s.lookup.p99Ms} | | ${describeCost(s.lookup.cost)} |`,
    `| searchUsers ÷ user(handle:) | | ${s.p50Ratio}× | | | p50s; goal ${s.goal}: ${met(s.met)} |`,
  ];
}

function worstRow(worst: WorstAllowedResult): string {
  return `| worst allowed graph request: ${worst.name}, as a user following ${worst.user.following} and followed by ${worst.user.followers} | | ${worst.p50Ms} | ${worst.maxMs} (max) | | ${describeCost(worst.costPerRequest)}; one at a time, ${worst.runs} runs; slowest of ${worst.tried - worst.refused} allowed, ${worst.refused} of ${worst.tried} refused (slowest refusal ${worst.slowestRefusalMs} ms) |`;
}

function attackRows(attack: UnderAttackResult): string[] {
  const { allowed, refused } = attack.underAttack.attacks;
  const { opening, afterOpening } = attack.underAttack;
  const lasted = opening.lastedMs
    .map((ms) => (ms === null ? 'the whole window' : `${round(ms / 1000, 1)} s`))
    .join(', ');
  return [
    `| cheap request (public page of 20), alone, 1 connection | | ${attack.alone.p50Ms} | | | ${attack.alone.runs} runs |`,
    `| same, while 3 anonymous clients loop on the heaviest allowed request | | ${attack.underAttack.p50Ms} | | | ${attack.underAttack.runs} runs; the attackers' ${allowed + refused} requests: ${allowed} answered, ${refused} refused (429); the heaviest estimated at ${attack.heaviest.estimated} points, ${attack.heaviest.requests} store requests |`,
    `| under attack ÷ alone | | ${attack.ratio}× | | | p50s; goal ${attack.goal}: ${attack.met ? 'met' : '**not met**'} |`,
    `| of which in each attack's opening, until every attacker has had a 429 | | ${opening.p50Ms ?? '—'} | | | ${opening.runs} runs; the openings lasted ${lasted} |`,
    `| of which after it | | ${afterOpening.p50Ms ?? '—'} | | | ${afterOpening.runs} runs${afterOpening.p50Ms === null ? '' : `; ${round(afterOpening.p50Ms / attack.alone.p50Ms, 2)}× alone`} |`,
  ];
}
