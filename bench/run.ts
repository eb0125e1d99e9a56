/**
 * `npm run bench [-- --quick] [-- --write-api batchWrite|transactWrite]`: seeds a benchmark data set (once per size; cached under
 * .data/bench-*), starts the service twice on loopback over it — batched, and with
 * BATCHING=false as the naive baseline — and measures them in one run with autocannon.
 * Prints one markdown table and writes the same figures to bench/results/<time>-<mode>.json.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, arch, platform, release, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import autocannon from 'autocannon';
import { type OpenStores, openStores } from '../src/app.js';
import { Tokens } from '../src/auth/tokens.js';
import { type Config, loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { DEFAULT_SIZE, generateNetwork } from '../src/seed/network.js';
import { createProgress } from '../src/seed/progress.js';
import { seedNetwork } from '../src/seed/seed.js';
import { newId } from '../src/domain/ids.js';
import { BATCH_CONCURRENCY, type WriteApi, batchGet, del, put, writeItems } from '../src/stores/dynamo/batch.js';
import { homeEntryItem } from '../src/stores/dynamo/dynamo-timeline-store.js';
import { type EmbeddedEngine, freePort, startEmbeddedEngine } from '../src/stores/dynamo/embedded-engine.js';
import { keys, partitions } from '../src/stores/dynamo/keys.js';
import { UNMETERED } from '../src/stores/graph/traversal.js';

const ROOT = resolve(import.meta.dirname, '..');
const QUICK_SIZE = { users: 1100, follows: 10_000, posts: 1000, likes: 1000, seed: 42 };
const HOT_AUTHOR_FOLLOWERS = 1000;
/** Signs the benchmark's tokens and the services' checks alike. */
const BENCH_SECRET = 'benchmark-only-secret-benchmark-only-secret';

const { values: flags } = parseArgs({ options: { quick: { type: 'boolean', default: false }, seed: { type: 'string' }, 'write-api': { type: 'string' } } });
const mode = flags.quick ? 'quick' : 'full';
const size = { ...(flags.quick ? QUICK_SIZE : DEFAULT_SIZE), seed: flags.seed ? Number(flags.seed) : DEFAULT_SIZE.seed };
/** Load per measurement: warm-up and measured seconds, connections, and repetitions of the sequential measurements (`postRuns`: fan-outs, each with its write floors). */
const plan = flags.quick
  ? { warmupS: 2, timelineS: 8, graphS: 4, connections: 8, floorIterations: 200, postRuns: 7, worstRuns: 10 }
  : { warmupS: 5, timelineS: 20, graphS: 10, connections: 8, floorIterations: 1000, postRuns: 11, worstRuns: 20 };

const HOME_QUERY = `query HomeTimeline($first: Int) {
  viewer { timeline(first: $first) { edges { node {
    id text createdAt likeCount viewerHasLiked commentCount reactionCounts { kind count }
    author { handle followerCount viewerFollows }
  } } } }
}`;
const CREATE_POST = 'mutation($input: CreatePostInput!) { createPost(input: $input) { post { id } } }';
const SUGGESTIONS = 'query($first: Int) { suggestedFollows(first: $first) { user { id handle } mutualCount } }';
const DEGREES = 'query($from: ID!, $to: ID!) { degreesOfSeparation(from: $from, to: $to, maxDepth: 3) { degrees path { id } } }';
const NETWORK = 'query($userId: ID!) { network(userId: $userId, maxDepth: 2, first: 20) { totalCount edges { node { id handle } } } }';

/**
 * The graph requests that read the most, sent as each heavy user (`ids`: all of them): the
 * limits must refuse them or answer within about a second. Heavy users are those at these ranks
 * by how many they follow — from the top down past the point where the graph budget starts
 * to refuse their traversals — and the most followed.
 */
const HEAVY_RANKS = { following: [1, 2, 3, 5, 8, 10, 12, 15, 20, 30, 40, 60], followers: [1, 2, 3] };
const HEAVY_REQUESTS: { name: string; query: string; variables: (subject: { id: string; ids: string[]; other: string }) => Record<string, unknown> }[] = [
  { name: 'suggestedFollows(first: 100)', query: '{ suggestedFollows(first: 100) { user { id } mutualCount via { id } } }', variables: () => ({}) },
  {
    name: 'network(maxDepth: 2)',
    query: 'query($id: ID!) { network(userId: $id, maxDepth: 2, first: 100) { totalCount edges { node { id handle } } } }',
    variables: ({ id }) => ({ id }),
  },
  {
    name: 'network(maxDepth: 2, interest)',
    query: 'query($id: ID!, $interest: String) { network(userId: $id, maxDepth: 2, interest: $interest, first: 100) { totalCount edges { node { id } } } }',
    variables: ({ id }) => ({ id, interest: 'music' }),
  },
  {
    name: 'network(maxDepth: 3, interest)',
    query: 'query($id: ID!, $interest: String) { network(userId: $id, maxDepth: 3, interest: $interest, first: 100) { totalCount edges { node { id } } } }',
    variables: ({ id }) => ({ id, interest: 'music' }),
  },
  {
    name: 'degreesOfSeparation(maxDepth: 6)',
    query: 'query($id: ID!, $to: ID!) { degreesOfSeparation(from: $id, to: $to, maxDepth: 6) { degrees path { id } } }',
    variables: ({ id, other }) => ({ id, to: other }),
  },
  {
    name: 'followers(first: 20), each with mutuals and knownFollowers',
    query: 'query($id: ID!) { user(id: $id) { followers(first: 20) { edges { node { id mutuals(first: 1) { totalCount } knownFollowers(first: 1) { totalCount } } } } } }',
    variables: ({ id }) => ({ id }),
  },
  {
    name: 'users(ids), each with mutuals and knownFollowers',
    query: 'query($ids: [ID!]!) { users(ids: $ids) { id mutuals(first: 1) { totalCount } knownFollowers(first: 1) { totalCount } } }',
    variables: ({ ids }) => ({ ids }),
  },
  {
    name: 'following(first: 100), each with following(first: 25)',
    query: 'query($id: ID!) { user(id: $id) { following(first: 100) { edges { node { following(first: 25) { edges { node { id } } } } } } } }',
    variables: ({ id }) => ({ id }),
  },
];

interface Manifest {
  size: typeof size;
  seededInMs: number;
  records: { users: number; follows: number; posts: number; homeEntries: number; likes: number };
  viewerId: string;
  hotAuthorId: string;
  /** Users of typical degree, for the graph queries. */
  typicalIds: string[];
}

const log = (message: string) => process.stderr.write(`bench: ${message}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => quantile(xs, 0.5);
function quantile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

function benchConfig(): Config {
  return loadConfig({ LOG_LEVEL: 'warn', JWT_SECRET: BENCH_SECRET, PORT: '0', HOST: '127.0.0.1', BULK_WRITE_API: flags['write-api'] });
}

/** Seeds the data set and picks the users the measurements act as. */
async function seedDataSet(opened: OpenStores, config: Config): Promise<Manifest> {
  const network = generateNetwork({ ...size, endMs: Date.now() });
  const summary = await seedNetwork(opened.stores, network, config, createProgress());
  const ids = summary.userIds;
  const following = new Array<number>(network.users.length).fill(0);
  for (const f of network.follows) following[f.from]! += 1;
  // The viewer follows the most accounts, so their home timeline is full.
  const viewer = following.indexOf(Math.max(...following));
  const viewerFollows = new Set(network.follows.filter((f) => f.from === viewer).map((f) => f.to));
  // The author closest to (at most) 1,000 followers, topped up to exactly 1,000 through the same bulk import.
  // Not followed by the viewer, so that the posts the benchmark creates never change the page it measures.
  const eligible = ids.map((_, i) => i).filter((i) => network.followerCounts[i]! <= HOT_AUTHOR_FOLLOWERS && i !== viewer && !viewerFollows.has(i));
  const hot = eligible.reduce((best, i) => (network.followerCounts[i]! > network.followerCounts[best]! ? i : best));
  const followsHot = new Set(network.follows.filter((f) => f.to === hot).map((f) => f.from));
  const missing = HOT_AUTHOR_FOLLOWERS - followsHot.size;
  const topUp = ids.map((_, i) => i).filter((i) => i !== hot && i !== viewer && !followsHot.has(i)).slice(0, missing);
  await opened.stores.graph.importFollows(topUp.map((i) => ({ from: ids[i]!, to: ids[hot]!, at: new Date().toISOString() })));
  const byDegree = ids.map((_, i) => i).sort((a, b) => following[a]! + network.followerCounts[a]! - (following[b]! + network.followerCounts[b]!));
  const middle = Math.floor(byDegree.length / 2);
  return {
    size,
    seededInMs: summary.totalMs,
    records: { users: summary.users, follows: summary.follows + topUp.length, posts: summary.posts, homeEntries: summary.homeEntries, likes: summary.likes },
    viewerId: ids[viewer]!,
    hotAuthorId: ids[hot]!,
    typicalIds: byDegree.slice(middle, middle + 10).map((i) => ids[i]!),
  };
}

interface Service {
  url: string;
  child: ChildProcess;
}

async function startService(endpoint: string, env: Record<string, string>): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DYNAMODB_ENDPOINT: endpoint, NEO4J_URI: '', JWT_SECRET: BENCH_SECRET, LOG_LEVEL: 'warn', COST_EXTENSIONS: 'true', NODE_ENV: 'development', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited during start-up (code ${child.exitCode})`);
    const healthy = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (healthy) return { url, child };
    await sleep(200);
  }
  child.kill('SIGKILL');
  throw new Error('the service did not become healthy within 60s');
}

async function stopService(service: Service): Promise<void> {
  if (service.child.exitCode !== null || service.child.signalCode !== null) return;
  const exited = new Promise((done) => service.child.once('exit', done));
  service.child.kill('SIGTERM');
  const timer = setTimeout(() => service.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

async function gql(url: string, query: string, variables: Record<string, unknown>, token?: string) {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as { data?: Record<string, any>; errors?: { message: string; extensions?: { code?: string } }[]; extensions?: { cost?: unknown } };
}

interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  failures: number;
}

/** Warms up, then measures: `connections` clients sending the same operation back to back for `seconds`. */
async function load(url: string, query: string, variables: Record<string, unknown>, token: string | undefined, seconds: number): Promise<LoadResult> {
  const options = {
    url: `${url}/graphql`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
    connections: plan.connections,
  };
  await autocannon({ ...options, duration: plan.warmupS });
  const result = await autocannon({ ...options, duration: seconds });
  return {
    requestsPerSecond: round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    failures: result.errors + result.timeouts + result.non2xx,
  };
}

/** The first of `candidates` whose operation answers without errors, so a measurement never times refusals. */
async function firstWorking(url: string, candidates: { query: string; variables: Record<string, unknown>; token?: string }[]) {
  for (const candidate of candidates) {
    const answer = await gql(url, candidate.query, candidate.variables, candidate.token);
    if (!answer.errors) return candidate;
  }
  throw new Error(`no candidate answered without errors: ${candidates[0]?.query}`);
}

async function main(): Promise<void> {
  const dataDir = join(ROOT, '.data', `bench-u${size.users}-f${size.follows}-p${size.posts}-l${size.likes}-s${size.seed}`);
  const manifestPath = join(dataDir, 'bench-manifest.json');
  const config = benchConfig();
  const started = Date.now();
  const seeded = existsSync(manifestPath);
  if (!seeded) rmSync(dataDir, { recursive: true, force: true });
  log(seeded ? `reusing the data set in ${dataDir}` : `seeding ${JSON.stringify(size)} into ${dataDir}`);
  const engine: EmbeddedEngine = await startEmbeddedEngine({ dataDir, logger: createLogger('warn') });
  const services: Service[] = [];
  const stopAll = async () => {
    await Promise.all(services.map(stopService));
    await engine.stop();
  };
  process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));
  try {
    const opened = await openStores({ config, logger: createLogger('warn'), dynamodbEndpoint: engine.endpoint });
    let manifest: Manifest;
    try {
      manifest = seeded ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest) : await seedDataSet(opened, config);
      if (!seeded) writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
      const results = await measure(engine.endpoint, opened, manifest, services, config.bulkWriteApi);
      const report = {
        mode,
        at: new Date().toISOString(),
        machine: {
          cpus: cpus().length,
          cpuModel: cpus()[0]?.model ?? 'unknown',
          memoryGb: round(totalmem() / 2 ** 30),
          node: process.version,
          arch: arch(),
          os: `${platform()} ${release()}`,
        },
        dataSet: { ...manifest.records, seed: manifest.size.seed, seededNow: !seeded, seedSeconds: round(manifest.seededInMs / 1000) },
        plan,
        results,
        totalSeconds: round((Date.now() - started) / 1000),
      };
      const resultsDir = join(ROOT, 'bench', 'results');
      mkdirSync(resultsDir, { recursive: true });
      const file = join(resultsDir, `${report.at.replace(/[:.]/g, '-')}-${mode}.json`);
      writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
      console.log(table(report));
      log(`wrote ${file} (${report.totalSeconds}s in all)`);
    } finally {
      await opened.close();
    }
  } finally {
    await stopAll();
  }
}

type Results = Awaited<ReturnType<typeof measure>>;

async function measure(endpoint: string, opened: OpenStores, manifest: Manifest, services: Service[], writeApi: WriteApi) {
  const tokens = new Tokens(BENCH_SECRET, 3600);
  const viewerToken = await tokens.issue(manifest.viewerId);
  log('starting the service, batched and naive');
  const [batched, naive] = await Promise.all([
    startService(endpoint, { BATCHING: 'true', WORKER_ENABLED: 'true', BULK_WRITE_API: writeApi }),
    startService(endpoint, { BATCHING: 'false', WORKER_ENABLED: 'false' }),
  ]);
  services.push(batched, naive);

  const page = { first: 20 };
  const sample = async (url: string) => {
    const answer = await gql(url, HOME_QUERY, page, viewerToken);
    if (answer.errors) throw new Error(`home timeline failed: ${JSON.stringify(answer.errors)}`);
    return { posts: (answer.data!.viewer.timeline.edges as unknown[]).length, cost: answer.extensions?.cost };
  };
  // First, while nothing else runs: the naive service may still be working off requests after its load ends.
  log('createPost by an author with 1,000 followers, interleaved with the raw write floor');
  const fanOut = await fanOutAgainstWriteFloor(batched.url, opened, manifest.hotAuthorId, await tokens.issue(manifest.hotAuthorId), writeApi);

  log('home timeline, batched');
  const batchedLoad = await load(batched.url, HOME_QUERY, page, viewerToken, plan.timelineS);
  const batchedSample = await sample(batched.url);
  log('home timeline, naive (BATCHING=false)');
  const naiveLoad = await load(naive.url, HOME_QUERY, page, viewerToken, plan.timelineS);
  const naiveSample = await sample(naive.url);

  log('raw Query + BatchGetItem (the floor)');
  const floor = await rawRoundTrips(opened, manifest.viewerId);


  log('graph queries');
  const typical = await Promise.all(manifest.typicalIds.map(async (id) => ({ id, token: await tokens.issue(id) })));
  const suggestions = await firstWorking(batched.url, typical.map((u) => ({ query: SUGGESTIONS, variables: { first: 10 }, token: u.token })));
  const degrees = await firstWorking(
    batched.url,
    typical.slice(1).map((u) => ({ query: DEGREES, variables: { from: typical[0]!.id, to: u.id } })),
  );
  const network = await firstWorking(batched.url, typical.map((u) => ({ query: NETWORK, variables: { userId: u.id } })));
  const graph = {
    suggestedFollows: await load(batched.url, suggestions.query, suggestions.variables, suggestions.token, plan.graphS),
    degreesOfSeparation: await load(batched.url, degrees.query, degrees.variables, undefined, plan.graphS),
    network: await load(batched.url, network.query, network.variables, undefined, plan.graphS),
  };

  log('the heaviest graph requests the limits allow');
  const worstAllowed = await heaviestAllowed(batched.url, opened, manifest, tokens);

  return {
    homeTimeline: {
      postsPerPage: batchedSample.posts,
      batched: { ...batchedLoad, costPerRequest: batchedSample.cost },
      naive: { ...naiveLoad, costPerRequest: naiveSample.cost },
      throughputRatio: round(batchedLoad.requestsPerSecond / naiveLoad.requestsPerSecond, 2),
      p50Ratio: round(naiveLoad.p50Ms / batchedLoad.p50Ms, 2),
    },
    floor,
    fanOut,
    graph,
    worstAllowed,
  };
}

/** The users at HEAVY_RANKS with their degrees, found in the regenerated (deterministic) network by handle. */
async function heavyUsers(opened: OpenStores, manifest: Manifest) {
  const network = generateNetwork({ ...manifest.size, endMs: Date.now() });
  const following = new Array<number>(network.users.length).fill(0);
  for (const f of network.follows) following[f.from]! += 1;
  const ranked = (degree: (i: number) => number, ranks: number[]) => {
    const order = network.users.map((_, i) => i).sort((a, b) => degree(b) - degree(a));
    return ranks.map((rank) => order[rank - 1]!);
  };
  const picked = [...new Set([...ranked((i) => following[i]!, HEAVY_RANKS.following), ...ranked((i) => network.followerCounts[i]!, HEAVY_RANKS.followers)])];
  const ids = await opened.stores.users.idsByHandle(picked.map((i) => network.users[i]!.handle));
  return picked.map((i, n) => ({ id: ids[n]!, following: following[i]!, followers: network.followerCounts[i]! }));
}

/**
 * Sends every HEAVY_REQUESTS entry once as each heavy user, then times the slowest one that was
 * answered `plan.worstRuns` times more, one at a time: the worst single request the limits allow.
 */
async function heaviestAllowed(url: string, opened: OpenStores, manifest: Manifest, tokens: Tokens) {
  const users = await heavyUsers(opened, manifest);
  const ids = users.map((u) => u.id);
  const tried: { name: string; user: (typeof users)[number]; token: string; variables: Record<string, unknown>; ms: number; refused: boolean }[] = [];
  for (const user of users) {
    const token = await tokens.issue(user.id);
    for (const request of HEAVY_REQUESTS) {
      const variables = request.variables({ id: user.id, ids, other: manifest.typicalIds[0]! });
      const t0 = performance.now();
      const answer = await gql(url, request.query, variables, token);
      const ms = performance.now() - t0;
      const codes = (answer.errors ?? []).map((e) => e.extensions?.code);
      if (codes.some((code) => code !== 'QUERY_TOO_EXPENSIVE')) throw new Error(`${request.name} failed: ${JSON.stringify(answer.errors)}`);
      tried.push({ name: request.name, user, token, variables, ms, refused: codes.length > 0 });
    }
  }
  const allowed = tried.filter((t) => !t.refused);
  const refused = tried.filter((t) => t.refused);
  const worst = allowed.reduce((a, b) => (b.ms > a.ms ? b : a));
  const times: number[] = [];
  let cost: unknown;
  for (let run = 0; run < plan.worstRuns; run++) {
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

/** One raw Query of the viewer's home partition and one BatchGetItem of its 20 posts, sequentially, as the service would. */
async function rawRoundTrips(opened: OpenStores, viewerId: string) {
  const times: number[] = [];
  for (let i = 0; i < plan.floorIterations + 20; i++) {
    const t0 = performance.now();
    const result = await opened.client.send(
      new QueryCommand({
        TableName: opened.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': partitions.home(viewerId) },
        ProjectionExpression: 'sk',
        ScanIndexForward: false,
        Limit: 21,
      }),
    );
    await batchGet(opened.client, opened.table, (result.Items ?? []).slice(0, 20).map((item) => keys.post(item.sk as string)));
    if (i >= 20) times.push(performance.now() - t0);
  }
  return { iterations: times.length, p50Ms: round(median(times), 2), p99Ms: round(quantile(times, 0.99), 2) };
}

const WRITE_APIS: readonly WriteApi[] = ['transactWrite', 'batchWrite'];
const WATCH_INTERVAL_MS = 20;
/** A pause after each measurement, so that the engine's work left from one (its log, the task's last steps) does not fall into the next. */
const SETTLE_MS = 500;

/**
 * Fan-out of one post to the author's 1,000 followers against the engine's raw write floor,
 * both measured the same way, interleaved, in the same run. A floor run writes one home entry
 * per follower from here — the service's item builder, write API and concurrency budget,
 * under a post id no post has (removed again, untimed) — and is timed from its first request.
 * A fan-out run creates a post as the author and is timed from createPost returning. Each
 * ends when the same watcher has seen every follower's home timeline hold the entry. After
 * the interleaved runs, the floor is measured a few times with the other write API.
 */
async function fanOutAgainstWriteFloor(url: string, opened: OpenStores, authorId: string, token: string, writeApi: WriteApi) {
  const followers = (await opened.stores.graph.followers(authorId, { first: 5000, after: null }, UNMETERED)).items.map((item) => item.id);
  const entries = (postId: string) => followers.map((userId) => ({ userId, postId, authorId }));

  const writeFloor = async (api: WriteApi) => {
    const postId = newId('pst');
    const puts = entries(postId).map((e) => put(homeEntryItem(e)));
    const t0 = performance.now();
    let writtenMs = NaN;
    const writing = writeItems(opened.client, opened.table, puts, api).then(() => {
      writtenMs = performance.now() - t0;
    });
    const [, seenAt] = await Promise.all([writing, allHold(opened, followers, postId, t0)]);
    await writeItems(opened.client, opened.table, entries(postId).map((e) => del(keys.homeEntry(e.userId, e.postId))), writeApi);
    await sleep(SETTLE_MS);
    return { seenMs: round(seenAt - t0), writtenMs: round(writtenMs) };
  };
  const fanOut = async (run: number) => {
    const t0 = performance.now();
    const answer = await gql(url, CREATE_POST, { input: { text: `Benchmark post ${run} at ${new Date().toISOString()}`, tags: ['bench'] } }, token);
    const returned = performance.now();
    if (answer.errors) throw new Error(`createPost failed: ${JSON.stringify(answer.errors)}`);
    const seenAt = await allHold(opened, followers, answer.data!.createPost.post.id as string, returned);
    // The task goes on after delivery (the last pages' bookkeeping); the next measurement must not share the engine with it.
    await queueEmpty(opened);
    await sleep(SETTLE_MS);
    return { seenMs: round(seenAt - returned), createPostMs: round(returned - t0) };
  };

  const runs: { floor: Awaited<ReturnType<typeof writeFloor>>; fanOut: Awaited<ReturnType<typeof fanOut>> }[] = [];
  // One round first, unrecorded, as the warm-up; then every other round starts with the fan-out.
  for (let run = -1; run < plan.postRuns; run++) {
    let floor: Awaited<ReturnType<typeof writeFloor>>;
    let fanned: Awaited<ReturnType<typeof fanOut>>;
    if (run % 2 === 0) {
      fanned = await fanOut(run);
      floor = await writeFloor(writeApi);
    } else {
      floor = await writeFloor(writeApi);
      fanned = await fanOut(run);
    }
    if (run >= 0) runs.push({ floor, fanOut: fanned });
  }
  const otherApi = WRITE_APIS.find((api) => api !== writeApi)!;
  const otherFloors: Awaited<ReturnType<typeof writeFloor>>[] = [];
  for (let run = 0; run < Math.min(3, plan.postRuns); run++) otherFloors.push(await writeFloor(otherApi));

  const floorMs = median(runs.map((r) => r.floor.seenMs));
  const fanOutMs = median(runs.map((r) => r.fanOut.seenMs));
  return {
    followers: followers.length,
    writeApi,
    concurrency: BATCH_CONCURRENCY,
    runs,
    medianWriteFloorMs: floorMs,
    medianWrittenMs: median(runs.map((r) => r.floor.writtenMs)),
    medianFanOutMs: fanOutMs,
    fanOutToFloorRatio: round(fanOutMs / floorMs, 2),
    medianCreatePostMs: median(runs.map((r) => r.fanOut.createPostMs)),
    entriesPerSecond: Math.round(followers.length / (fanOutMs / 1000)),
    otherWriteApi: {
      writeApi: otherApi,
      runs: otherFloors,
      medianWriteFloorMs: median(otherFloors.map((r) => r.seenMs)),
      medianWrittenMs: median(otherFloors.map((r) => r.writtenMs)),
    },
  };
}

/** Resolves once no task is queued, i.e. the worker has finished everything the benchmark gave it. */
async function queueEmpty(opened: OpenStores): Promise<void> {
  const deadline = performance.now() + 120_000;
  const queued = async (shard: number) =>
    (await opened.client.send(new QueryCommand({ TableName: opened.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': partitions.queue(shard) }, Limit: 1 }))).Items?.length ?? 0;
  const shards = Array.from({ length: benchConfig().queueShards }, (_, shard) => shard);
  while ((await Promise.all(shards.map(queued))).some((n) => n > 0)) {
    if (performance.now() > deadline) throw new Error('the worker did not finish its tasks within 120 s');
    await sleep(WATCH_INTERVAL_MS);
  }
}

/**
 * When every follower's home timeline holds the post: watches the follower written last until
 * it does, then reads the others' entries until none is missing. Fails after two minutes.
 */
async function allHold(opened: OpenStores, followers: readonly string[], postId: string, t0: number): Promise<number> {
  const deadline = t0 + 120_000;
  const waitOrFail = async () => {
    if (performance.now() > deadline) throw new Error(`post ${postId} did not reach all ${followers.length} followers within 120 s`);
    await sleep(WATCH_INTERVAL_MS);
  };
  const last = followers.at(-1)!;
  while (!(await opened.client.send(new GetCommand({ TableName: opened.table, Key: keys.homeEntry(last, postId), ProjectionExpression: 'pk' }))).Item) await waitOrFail();
  let missing = followers;
  for (;;) {
    const found = await batchGet(opened.client, opened.table, missing.map((id) => keys.homeEntry(id, postId)), { projection: 'pk, sk' });
    missing = missing.filter((_, i) => !found[i]);
    if (missing.length === 0) return performance.now();
    await waitOrFail();
  }
}

const WRITE_API_NAMES: Record<WriteApi, string> = { batchWrite: 'BatchWriteItem, 25 per request', transactWrite: 'TransactWriteItems, 100 per request' };

function fanOutRows(fanOut: Results['fanOut']): string[] {
  const { runs, otherWriteApi: other } = fanOut;
  return [
    `| write floor: ${fanOut.followers} home entries written from the benchmark, ${fanOut.concurrency} requests in flight (${WRITE_API_NAMES[fanOut.writeApi]}) | | ${fanOut.medianWriteFloorMs} | ${Math.max(...runs.map((r) => r.floor.seenMs))} (max) | median of ${runs.length}, interleaved with the fan-out; the write call itself returned after ${fanOut.medianWrittenMs} ms |`,
    `| createPost → all ${fanOut.followers} followers' timelines hold it (${WRITE_API_NAMES[fanOut.writeApi]}) | | ${fanOut.medianFanOutMs} | ${Math.max(...runs.map((r) => r.fanOut.seenMs))} (max) | median of ${runs.length}, from createPost returning (itself ${fanOut.medianCreatePostMs} ms); ${fanOut.entriesPerSecond} timeline entries/s |`,
    `| fan-out ÷ write floor | | ${fanOut.fanOutToFloorRatio}× | | medians of the same run, same write API, seen by the same watcher |`,
    `| same floor, ${WRITE_API_NAMES[other.writeApi]} | | ${other.medianWriteFloorMs} | ${Math.max(...other.runs.map((r) => r.seenMs))} (max) | median of ${other.runs.length}, after the runs above; the write call itself returned after ${other.medianWrittenMs} ms |`,
  ];
}

function table(report: { mode: string; machine: Record<string, unknown>; dataSet: Record<string, unknown>; results: Results }): string {
  const { homeTimeline: home, floor, fanOut, graph, worstAllowed: worst } = report.results;
  const cost = (c: unknown) => {
    const value = c as { dynamodb: { requests: number; readCapacityUnits: number }; graph: { requests: number } } | undefined;
    return value ? `${value.dynamodb.requests} DynamoDB (${value.dynamodb.readCapacityUnits} RCU) + ${value.graph.requests} graph` : '—';
  };
  const row = (name: string, r: LoadResult, note: string) =>
    `| ${name} | ${r.requestsPerSecond} | ${r.p50Ms} | ${r.p99Ms} | ${note}${r.failures > 0 ? `; ${r.failures} of ${r.requests} requests failed` : ''} |`;
  const lines = [
    `| measurement (${report.mode}) | req/s | p50 ms | p99 ms | notes |`,
    '|---|---:|---:|---:|---|',
    row(`home timeline page, ${home.postsPerPage} posts, batched`, home.batched, `${cost(home.batched.costPerRequest)} per request`),
    row('same page, naive (`BATCHING=false`)', home.naive, `${cost(home.naive.costPerRequest)} per request`),
    `| batched ÷ naive | ${home.throughputRatio}× | ${home.p50Ratio}× faster | | same data, same run |`,
    `| raw Query + BatchGetItem (floor) | | ${floor.p50Ms} | ${floor.p99Ms} | ${floor.iterations} sequential round trips |`,
    ...fanOutRows(fanOut),
    row('suggestedFollows', graph.suggestedFollows, 'first: 10'),
    row('degreesOfSeparation', graph.degreesOfSeparation, 'maxDepth: 3'),
    row('network', graph.network, 'maxDepth: 2, first: 20'),
    `| worst allowed graph request: ${worst.name}, as a user following ${worst.user.following} and followed by ${worst.user.followers} | | ${worst.p50Ms} | ${worst.maxMs} (max) | ${cost(worst.costPerRequest)}; one at a time, ${worst.runs} runs; slowest of ${worst.tried - worst.refused} allowed, ${worst.refused} of ${worst.tried} refused (slowest refusal ${worst.slowestRefusalMs} ms) |`,
  ];
  const data = report.dataSet;
  const machine = report.machine;
  return [
    `Data set: ${data.users} users, ${data.follows} follows, ${data.posts} posts, ${data.likes} likes (seed ${data.seed}).`,
    `Machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGb} GB, Node ${machine.node}, ${machine.arch}, ${machine.os}. ${plan.connections} connections.`,
    '',
    ...lines,
  ].join('\n');
}

await main();
