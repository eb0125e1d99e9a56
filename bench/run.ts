/**
 * `npm run bench [-- --quick] [-- --write-api batchWrite|transactWrite]`: seeds a benchmark data
 * set (once per size; cached under .data/bench-*), starts the service twice on loopback over it —
 * batched, and with BATCHING=false as the naive baseline — and measures, in one run: fan-out
 * against the raw write floor, the home page against the storage floor (at one connection and at
 * eight, both sides the same way), the graph queries as the median and the 99th-percentile viewer,
 * the worst request the limits allow, and a sign-in alone and under another address's flood of
 * sign-ins, and the typeahead (searchUsers) against a single user(handle:) lookup. Prints one markdown table and writes the same figures to bench/results/<time>-<mode>.json.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type OpenStores, openStores } from '../src/stores/open-stores.js';
import { Tokens } from '../src/auth/tokens.js';
import { type Config, loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { SEED_SIZES, generateNetwork } from '../src/seed/network.js';
import { createProgress } from '../src/seed/progress.js';
import { seedNetwork } from '../src/seed/seed.js';
import { placePost } from '../src/usecases/posts.js';
import { type EmbeddedEngine, startEmbeddedEngine } from '../src/stores/dynamo/embedded-engine.js';
import { CpuMeter, dynamoDbLocalPid } from './cpu.js';
import { capturePage, cpuPerPage, measuredHere, replayProcess } from './cpu-per-page.js';
import { startApolloFloor } from './apollo-floor.js';
import { fanOutAgainstWriteFloor } from './fan-out.js';
import { SUGGESTIONS_GOAL_MS, measureGraphQueries, pickGraphViewers } from './graph-queries.js';
import { HOME_QUERY, PAGE_SIZE, floorRequest, homeAgainstFloor, pageRequest } from './home-vs-floor.js';
import { round } from './loops.js';
import {
  BENCH_SECRET,
  BULK_TIMEOUTS,
  MEASURED_AS_IN_PRODUCTION,
  ROOT,
  type Service,
  buildMeasuredProcesses,
  gql,
  log,
  startService,
  stopService,
} from './service.js';
import { cheapUnderAttack } from './under-attack.js';
import { signInUnderFlood } from './sign-in-flood.js';
import { heaviestAllowed } from './worst-allowed.js';
import { searchAgainstLookup } from './search.js';
import { type Results, table } from './table.js';

const QUICK_SIZE = { users: 1100, follows: 10_000, posts: 1000, likes: 1000, seed: 42, days: 30 };
const HOT_AUTHOR_FOLLOWERS = 1000;
/** Services and replay processes the CPU per page is measured in, each side's windows pooled. */
const CPU_PROCESSES = 3;

const { values: flags } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, seed: { type: 'string' }, 'write-api': { type: 'string' } },
});
const mode = flags.quick ? 'quick' : 'full';
const size = {
  ...(flags.quick ? QUICK_SIZE : SEED_SIZES.full),
  seed: flags.seed ? Number(flags.seed) : SEED_SIZES.full.seed,
};
/**
 * How long each measurement runs: the home page and its floor (warm-up, then measured seconds per side and
 * connection level, in alternating windows), timed graph requests per query and viewer, fan-out rounds
 * (each with its write floor), runs of the worst allowed request, and sign-ins alone and under a flood
 * (rounds of both windows, sign-ins timed in each).
 */
const plan = flags.quick
  ? {
      home: { warmupS: 2, seconds: 8, rounds: 4 },
      cpu: { warmupS: 5, seconds: 9, rounds: 6 },
      graphRuns: 30,
      searchRuns: 90,
      fanOutRounds: 7,
      worstRuns: 10,
      attack: { rounds: 2, windowSeconds: 5 },
      signIn: { rounds: 3, signInsPerWindow: 5 },
    }
  : {
      home: { warmupS: 5, seconds: 20, rounds: 4 },
      cpu: { warmupS: 5, seconds: 24, rounds: 6 },
      graphRuns: 100,
      searchRuns: 300,
      fanOutRounds: 11,
      worstRuns: 20,
      attack: { rounds: 4, windowSeconds: 10 },
      signIn: { rounds: 5, signInsPerWindow: 10 },
    };

/** What a cached data set must have been seeded with: 2 adds the users' search entries, 3 posts' counts on their items, 4 follow counts on profiles. An older one is seeded again. */
const MANIFEST_FORMAT = 4;

interface Manifest {
  format?: number;
  size: typeof size;
  seededInMs: number;
  records: { users: number; follows: number; posts: number; homeEntries: number; likes: number };
  viewerId: string;
  hotAuthorId: string;
  /** Users of typical degree, for the graph queries. */
  typicalIds: string[];
}

function benchConfig(): Config {
  // Its own bulk writes (the seed, the write floor) may wait on an engine the measured services keep busy: no request deadline for them.
  return loadConfig({
    LOG_LEVEL: 'warn',
    JWT_SECRET: BENCH_SECRET,
    PORT: '0',
    HOST: '127.0.0.1',
    BULK_WRITE_API: flags['write-api'],
    ...BULK_TIMEOUTS,
  });
}

/**
 * Seeds on an engine of its own, on one core as `npm run seed` runs it: the measured engine runs on every core, as the
 * service's own does. A Ctrl-C here leaves no manifest, and the watchdog stops java with this process.
 */
async function seedOnItsOwnEngine(dataDir: string, config: Config): Promise<Manifest> {
  const engine = await startEmbeddedEngine({ dataDir, logger: createLogger('warn'), oneCore: true });
  try {
    const opened = await openStores({ config, logger: createLogger('warn'), dynamodbEndpoint: engine.endpoint });
    try {
      return await seedDataSet(opened, config);
    } finally {
      await opened.close();
    }
  } finally {
    await engine.stop();
  }
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
  const eligible = ids
    .map((_, i) => i)
    .filter((i) => network.followerCounts[i]! <= HOT_AUTHOR_FOLLOWERS && i !== viewer && !viewerFollows.has(i));
  const hot = eligible.reduce((best, i) => (network.followerCounts[i]! > network.followerCounts[best]! ? i : best));
  const followsHot = new Set(network.follows.filter((f) => f.to === hot).map((f) => f.from));
  const missing = HOT_AUTHOR_FOLLOWERS - followsHot.size;
  const topUp = ids
    .map((_, i) => i)
    .filter((i) => i !== hot && i !== viewer && !followsHot.has(i))
    .slice(0, missing);
  await opened.stores.graph.importFollows(
    topUp.map((i) => ({ from: ids[i]!, to: ids[hot]!, at: new Date().toISOString() })),
  );
  const byDegree = ids
    .map((_, i) => i)
    .sort((a, b) => following[a]! + network.followerCounts[a]! - (following[b]! + network.followerCounts[b]!));
  const middle = Math.floor(byDegree.length / 2);
  return {
    format: MANIFEST_FORMAT,
    size,
    seededInMs: summary.totalMs,
    records: {
      users: summary.users,
      follows: summary.follows + topUp.length,
      posts: summary.posts,
      homeEntries: summary.homeEntries,
      likes: summary.likes,
    },
    viewerId: ids[viewer]!,
    hotAuthorId: ids[hot]!,
    typicalIds: byDegree.slice(middle, middle + 10).map((i) => ids[i]!),
  };
}

async function main(): Promise<void> {
  const dataDir = join(
    ROOT,
    '.data',
    `bench-u${size.users}-f${size.follows}-p${size.posts}-l${size.likes}-s${size.seed}-d${size.days}`,
  );
  const manifestPath = join(dataDir, 'bench-manifest.json');
  const config = benchConfig();
  const started = Date.now();
  // Read before the run: the tree may change while it runs.
  const code = codeMeasured();
  buildMeasuredProcesses();
  const seeded =
    existsSync(manifestPath) && (JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest).format === MANIFEST_FORMAT;
  if (seeded) log(`reusing the data set in ${dataDir}`);
  else {
    rmSync(dataDir, { recursive: true, force: true });
    log(`seeding ${JSON.stringify(size)} into ${dataDir}`);
    writeFileSync(manifestPath, JSON.stringify(await seedOnItsOwnEngine(dataDir, config), null, 2));
  }
  const engine: EmbeddedEngine = await startEmbeddedEngine({ dataDir, logger: createLogger('warn') });
  const services: Service[] = [];
  const stopAll = async () => {
    await Promise.all(services.map(stopService));
    await engine.stop();
  };
  process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));
  try {
    const opened = await openStores({ config, logger: createLogger('warn'), dynamodbEndpoint: engine.endpoint });
    try {
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
      const loadBefore = loadavg()[0]!;
      const results = await measure(engine.endpoint, opened, manifest, services, config);
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
          loadAverage: { before: round(loadBefore, 2), after: round(loadavg()[0]!, 2) },
        },
        dataSet: {
          ...manifest.records,
          seed: manifest.size.seed,
          days: manifest.size.days,
          seededNow: !seeded,
          seedSeconds: round(manifest.seededInMs / 1000),
        },
        code,
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

async function measure(
  endpoint: string,
  opened: OpenStores,
  manifest: Manifest,
  services: Service[],
  config: Config,
): Promise<Results> {
  const tokens = new Tokens(BENCH_SECRET, 3600);
  const viewerToken = await tokens.issue(manifest.viewerId);
  log('starting the service, batched and naive');
  // Each is stopped on the way out as soon as it is up, also when the other fails to start.
  const stoppedLater = (service: Service) => (services.push(service), service);
  const [batched, naive] = await Promise.all([
    // Without the read-through cache: the page is compared with the storage floor, read for read (bench/cache.ts measures the cache).
    startService(endpoint, {
      BATCHING: 'true',
      WORKER_ENABLED: 'true',
      BULK_WRITE_API: config.bulkWriteApi,
      CACHE: 'off',
    }).then(stoppedLater),
    startService(endpoint, { BATCHING: 'false', WORKER_ENABLED: 'false', CACHE: 'off' }).then(stoppedLater),
  ]);
  const enginePid = dynamoDbLocalPid(endpoint);

  // A page between refreshes of the list of authors who are not fanned out: the page before it refreshes the list
  // if OUTBOX_AUTHORS_TTL_MS ran out while the service sat idle (one page in that interval pays a request and a wave more).
  const costOf = async (url: string) => {
    await gql(url, HOME_QUERY, { first: PAGE_SIZE }, viewerToken);
    const answer = await gql(url, HOME_QUERY, { first: PAGE_SIZE }, viewerToken);
    if (answer.errors) throw new Error(`home timeline failed: ${JSON.stringify(answer.errors)}`);
    if (!answer.extensions?.cost) throw new Error('the page reported no cost (COST_EXTENSIONS)');
    return answer.extensions.cost;
  };
  // First, while nothing else runs: the naive service may still be working off requests after its load ends.
  log('createPost by an author with 1,000 followers, interleaved with the raw write floor');
  const fanOut = await fanOutAgainstWriteFloor(
    batched.url,
    opened,
    manifest.hotAuthorId,
    await tokens.issue(manifest.hotAuthorId),
    {
      writeApi: config.bulkWriteApi,
      rounds: plan.fanOutRounds,
      queueShards: config.queueShards,
      // The entries the service writes for this author's posts carry the shard count its posts get.
      counterShards: placePost(HOT_AUTHOR_FOLLOWERS, config).counterShards,
    },
  );

  log('home timeline page against the floor, at 1 and at 8 connections, in alternating windows');
  const home = await homeAgainstFloor({
    page: pageRequest(batched.url, viewerToken),
    naivePage: pageRequest(naive.url, viewerToken),
    floor: floorRequest(opened, manifest.viewerId),
    serviceCpu: new CpuMeter({ service: batched.child.pid, engine: enginePid }),
    naiveCpu: new CpuMeter({ service: naive.child.pid, engine: enginePid }),
    floorCpu: new CpuMeter({ engine: enginePid }),
    plan: plan.home,
  });
  const cost = { batched: await costOf(batched.url), naive: await costOf(naive.url) };

  log(
    "the service's CPU per page against a bare client making that page's requests and Apollo's floor, in rotating windows",
  );
  const cpu = await serviceCpuPerPage(endpoint, viewerToken, stoppedLater);

  log('graph queries as the median and the 99th-percentile viewer, at 1 connection');
  const network = generateNetwork({ ...manifest.size, posts: 0, likes: 0, endMs: Date.now() });
  const userIds = (await opened.stores.users.idsByHandle(network.users.map((u) => u.handle))).filter(
    (id): id is string => id !== null,
  );
  const viewers = await pickGraphViewers(opened.stores.graph, userIds);
  const graph = await measureGraphQueries({
    url: batched.url,
    viewers,
    token: (id) => tokens.issue(id),
    runs: plan.graphRuns,
    warmup: Math.max(3, Math.floor(plan.graphRuns / 10)),
  });

  log('searchUsers against a single user(handle:) lookup, alternating, at 1 connection');
  const searched = network.users.filter((_, i) => i % Math.max(1, Math.floor(network.users.length / 30)) === 0);
  const search = await searchAgainstLookup({
    url: batched.url,
    token: viewerToken,
    users: searched,
    runs: plan.searchRuns,
    warmup: 10,
  });

  log('the heaviest graph requests the limits allow');
  const worstAllowed = await heaviestAllowed(batched.url, opened, {
    size: manifest.size,
    otherUserId: manifest.typicalIds[0]!,
    tokens,
    runs: plan.worstRuns,
  });

  log(
    'an unrelated cheap request, alone and while three clients loop on the heaviest request allowed, with the default rate limits',
  );
  const limited = await startService(endpoint, {
    WORKER_ENABLED: 'false',
    RATE_LIMIT_POINTS: '',
    RATE_LIMIT_POINTS_PER_SECOND: '',
  });
  services.push(limited);
  const underAttack = await cheapUnderAttack(limited.url, plan.attack);

  log('signIn alone and while another address floods with sign-ins, in a service and table of their own');
  const signIn = await signInUnderFlood(endpoint, plan.signIn, log);

  const suggestions = graph.filter((t) => t.query === 'suggestedFollows');
  return {
    homeTimeline: { postsPerPage: PAGE_SIZE, ...home, costPerRequest: cost },
    cpu,
    fanOut,
    graph: {
      timings: graph,
      suggestedFollowsGoal: `p50 ≤ ${SUGGESTIONS_GOAL_MS} ms at one connection for the median and the 99th-percentile viewer`,
      suggestedFollowsMet: suggestions.length > 0 && suggestions.every((t) => t.p50Ms <= SUGGESTIONS_GOAL_MS),
    },
    worstAllowed,
    underAttack,
    signIn,
    search,
  };
}

/**
 * Captures one page's store requests through a service of its own, then sets a service running as in production
 * (its API alone: no worker, no cost extension) against their replay, against the same page's answer served from
 * memory by Apollo Server, and against Apollo Server making the page's requests before it answers so.
 */
async function serviceCpuPerPage(endpoint: string, token: string, stoppedLater: (service: Service) => Service) {
  const { requests, answer } = await capturePage(endpoint, token, {}, stoppedLater);
  const each = Array.from({ length: CPU_PROCESSES });
  const measured = await Promise.all(
    each.map(async () => stoppedLater(await startService(endpoint, MEASURED_AS_IN_PRODUCTION))),
  );
  const replays: Awaited<ReturnType<typeof replayProcess>>[] = [];
  try {
    // Each is closed on the way out as soon as it is up, also when another fails to start.
    await Promise.all(each.map(async () => replays.push(await replayProcess(endpoint, requests))));
    const floor = stoppedLater(await startApolloFloor({ answer }));
    const platform = stoppedLater(await startApolloFloor({ answer, calls: { endpoint, requests } }));
    try {
      return await cpuPerPage({
        pages: measured.map((service) =>
          measuredHere(pageRequest(service.url, token), new CpuMeter({ service: service.child.pid })),
        ),
        replays,
        floor: measuredHere(pageRequest(floor.url, token), new CpuMeter({ floor: floor.child.pid })),
        platform: measuredHere(pageRequest(platform.url, token), new CpuMeter({ floor: platform.child.pid })),
        requests,
        plan: plan.cpu,
      });
    } finally {
      await Promise.all([stopService(floor), stopService(platform)]);
    }
  } finally {
    for (const replay of replays) replay.close();
    await Promise.all(measured.map(stopService));
  }
}

/** Which code a run measured: the commit, and whether the tree differed from it; null outside a git clone. */
function codeMeasured(): { commit: string; changedFromCommit: boolean } | null {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    return {
      commit: git('rev-parse', 'HEAD'),
      // Untracked files count (a new src/ file is compiled in); earlier result files do not.
      changedFromCommit: git('status', '--porcelain', '--', '.', ':(exclude)bench/results') !== '',
    };
  } catch {
    return null;
  }
}

await main();
