/**
 * `npx tsx bench/cache.ts [--quick]`: one hot post read by many signed-in viewers at 8
 * connections, through a service with the cache (`CACHE=memory`) and one without (`CACHE=off`)
 * over the same table, in alternating windows. Reports reads per second, the DynamoDB requests
 * per read, how often the hot post's own items were read from DynamoDB against the cache TTL,
 * and checks that a like is in its author's next read through the cached service.
 */
import { parseArgs } from 'node:util';
import { createLogger } from '../src/logger.js';
import { startEmbeddedEngine } from '../src/stores/dynamo/embedded-engine.js';
import { CpuMeter } from './cpu.js';
import { type Window, round, runLoops, summarize } from './loops.js';
import { type Service, gql, log, startService, stopService } from './service.js';

const { values: flags } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const plan = flags.quick ? { viewers: 100, windows: 3, seconds: 4 } : { viewers: 400, windows: 5, seconds: 10 };
const CONNECTIONS = 8;
const TTL_MS = 2_000;
const READ_POST = 'query($id: ID!) { post(id: $id) { text likeCount author { handle displayName } } }';
const PASSWORD = 'benchmark password 1234';

async function signUp(service: Service, handle: string): Promise<{ id: string; token: string }> {
  const answer = await gql(
    service.url,
    'mutation($input: SignUpInput!) { signUp(input: $input) { token user { id } } }',
    { input: { handle, password: PASSWORD } },
  );
  if (!answer.data?.signUp) throw new Error(`signUp failed: ${JSON.stringify(answer.errors)}`);
  return { id: answer.data.signUp.user.id, token: answer.data.signUp.token };
}

/** cache_lookups_total{kind, result="miss"}: the lookups of that kind that went on to DynamoDB. */
async function misses(service: Service, kind: string): Promise<number> {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  const match = new RegExp(`^cache_lookups_total\\{kind="${kind}",result="miss"\\} (\\d+)`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

const logger = createLogger('warn');
const engine = await startEmbeddedEngine({ logger });
const tablePrefix = `bench_cache_${Date.now()}_`;
const env = {
  TABLE_PREFIX: tablePrefix,
  CACHE_TTL_MS: String(TTL_MS),
  CACHE_COUNTER_TTL_MS: String(TTL_MS),
  PASSWORD_SCRYPT_LOG2_N: '10',
  PASSWORD_CHECKS_PER_ADDRESS: '1000000',
  PASSWORD_HASH_QUEUE_PER_ADDRESS: '100',
};
const cached = await startService(engine.endpoint, { ...env, CACHE: 'memory' });
const uncached = await startService(engine.endpoint, { ...env, CACHE: 'off', WORKER_ENABLED: 'false' });
try {
  const run = Date.now().toString(36);
  const author = await signUp(cached, `hot_${run}`);
  const created = await gql(
    cached.url,
    'mutation($input: CreatePostInput!) { createPost(input: $input) { post { id } } }',
    { input: { text: 'a post everyone reads' } },
    author.token,
  );
  const postId = created.data!.createPost.post.id as string;
  log(`signing up ${plan.viewers} viewers`);
  const viewers: string[] = [];
  for (let n = 0; n < plan.viewers; n += 10) {
    viewers.push(
      ...(
        await Promise.all(
          Array.from({ length: Math.min(10, plan.viewers - n) }, (_, i) => signUp(cached, `v${n + i}_${run}`)),
        )
      ).map((v) => v.token),
    );
  }
  const cpu = new CpuMeter({ cached: cached.child.pid, uncached: uncached.child.pid });
  const sides = {
    cached: { service: cached, windows: [] as Window[], requests: 0, reads: 0 },
    uncached: { service: uncached, windows: [] as Window[], requests: 0, reads: 0 },
  };
  let next = 0;
  const read = (side: (typeof sides)['cached']) => async () => {
    const answer = await gql(side.service.url, READ_POST, { id: postId }, viewers[next++ % viewers.length]);
    if (!answer.data?.post) throw new Error(JSON.stringify(answer.errors));
    side.requests += answer.extensions!.cost!.dynamodb.requests;
    side.reads += 1;
  };
  const before = {
    post: await misses(cached, 'post'),
    user: await misses(cached, 'user'),
    counter: await misses(cached, 'counter'),
  };
  for (let w = 0; w < plan.windows; w++) {
    for (const name of w % 2 === 0 ? (['cached', 'uncached'] as const) : (['uncached', 'cached'] as const)) {
      sides[name].windows.push(await runLoops(CONNECTIONS, plan.seconds, read(sides[name]), cpu));
    }
  }
  const after = {
    post: await misses(cached, 'post'),
    user: await misses(cached, 'user'),
    counter: await misses(cached, 'counter'),
  };
  // Exactness under the cache: a like through the cached service is in the author's next read.
  const shown = (await gql(cached.url, READ_POST, { id: postId }, author.token)).data!.post.likeCount as number;
  await gql(
    cached.url,
    'mutation($id: ID!) { likePost(postId: $id) { post { likeCount } } }',
    { id: postId },
    viewers[0],
  );
  const afterLike = (await gql(cached.url, READ_POST, { id: postId }, author.token)).data!.post.likeCount as number;

  // Each cached window may read the item once at its start and once per expiry within it.
  const ttlPeriods = sides.cached.windows.reduce((sum, window) => sum + Math.ceil(window.elapsedMs / TTL_MS), 0);
  const measuredMs = sides.cached.windows.reduce((sum, window) => sum + window.elapsedMs, 0);
  const summary = (name: 'cached' | 'uncached') => summarize(CONNECTIONS, sides[name].windows);
  const [withCache, without] = [summary('cached'), summary('uncached')];
  const lines = [
    `cache benchmark (${flags.quick ? 'quick' : 'full'}): 1 hot post, ${plan.viewers} signed-in viewers, ${CONNECTIONS} connections, ${plan.windows} × ${plan.seconds} s windows per side, CACHE_TTL_MS = CACHE_COUNTER_TTL_MS = ${TTL_MS}`,
    '| service | reads/s | p50 ms | p99 ms | DynamoDB requests per read | failures |',
    '|---|---|---|---|---|---|',
    ...(['cached', 'uncached'] as const).map((name) => {
      const s = name === 'cached' ? withCache : without;
      return `| CACHE=${name === 'cached' ? 'memory' : 'off'} | ${round(s.perSecond)} | ${round(s.p50Ms)} | ${round(s.p99Ms)} | ${round(sides[name].requests / sides[name].reads, 2)} | ${s.failures} |`;
    }),
    `cached ÷ uncached reads/s: ${round(withCache.perSecond / without.perSecond, 2)}×`,
    `hot post item read from DynamoDB: ${after.post - before.post} times over ${round(measuredMs / 1000)} s measured (${ttlPeriods} TTL periods: at most ${ttlPeriods} allowed) for ${sides.cached.reads} reads`,
    `its counter shard: ${after.counter - before.counter} times; profiles: ${after.user - before.user} (the author's, once per TTL, and each viewer's own, once per TTL, for the account check)`,
    `like visible to the author's next read: ${shown} → ${afterLike} (${afterLike === shown + 1 ? 'exact' : 'NOT exact'})`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (after.post - before.post > ttlPeriods || afterLike !== shown + 1) process.exitCode = 1;
} finally {
  await stopService(cached);
  await stopService(uncached);
  await engine.stop();
}
