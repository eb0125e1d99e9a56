/**
 * `npm run seed [-- --size small|full] [--users N --follows N --posts N --likes N --seed N] [--through-service]`:
 * fills the configured stores (the embedded DynamoDB under DATA_DIR by default, or
 * DYNAMODB_ENDPOINT / AWS_REGION, and NEO4J_URI for the graph) with a generated social network,
 * by the stores' bulk imports or, with --through-service, through the service's own paths.
 */
import { parseArgs } from 'node:util';
import { openStores } from '../src/stores/open-stores.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { SCRIPT_TIMEOUTS } from './configured-stores.js';
import { createLogger } from '../src/logger.js';
import { SEED_SIZES, type SizeName, generateNetwork, type Network } from '../src/seed/network.js';
import { createProgress } from '../src/seed/progress.js';
import { AlreadySeededError, type SeedSummary, seedNetwork } from '../src/seed/seed.js';
import { seedThroughService } from '../src/seed/seed-through-service.js';

function wholeNumber(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`--${name} must be a whole number, got "${raw}"`);
  return Number(raw);
}

function printSummary(network: Network, summary: SeedSummary): void {
  const followers = [...network.followerCounts].sort((a, b) => a - b);
  const at = (q: number) => followers[Math.min(followers.length - 1, Math.floor(q * followers.length))]!;
  const top = network.followerCounts
    .map((count, i) => ({ count, handle: network.users[i]!.handle }))
    .sort((a, b) => b.count - a.count)
    .slice(0, 5);
  const seconds = summary.totalMs / 1000;
  const written = summary.users + summary.follows + summary.posts + summary.homeEntries + summary.likes;
  const phases = Object.entries(summary.phasesMs).map(([name, ms]) => `${name} ${(ms / 1000).toFixed(1)}s`);
  console.log(
    [
      `seeded ${summary.users} users, ${summary.follows} follows, ${summary.posts} posts (${summary.homeEntries} home timeline entries), ${summary.likes} likes`,
      `in ${seconds.toFixed(1)}s (${phases.join(', ')}): ${Math.round(written / seconds)} records/s`,
      `followers per user: median ${at(0.5)}, p90 ${at(0.9)}, p99 ${at(0.99)}, max ${followers.at(-1)}`,
      `most followed: ${top.map((t) => `@${t.handle} (${t.count})`).join(', ')}`,
    ].join('\n'),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      size: { type: 'string' },
      users: { type: 'string' },
      follows: { type: 'string' },
      posts: { type: 'string' },
      likes: { type: 'string' },
      seed: { type: 'string' },
      'through-service': { type: 'boolean' },
    },
  });
  const config = loadConfig({ ...SCRIPT_TIMEOUTS, ...process.env });
  const sizeName = (values.size ?? 'small') as SizeName;
  if (!Object.hasOwn(SEED_SIZES, sizeName)) throw new Error(`--size must be ${Object.keys(SEED_SIZES).join(' or ')}, got "${values.size}"`);
  const base = SEED_SIZES[sizeName];
  const options = {
    users: wholeNumber('users', values.users, base.users),
    follows: wholeNumber('follows', values.follows, base.follows),
    posts: wholeNumber('posts', values.posts, base.posts),
    likes: wholeNumber('likes', values.likes, base.likes),
    seed: wholeNumber('seed', values.seed, base.seed),
    endMs: Date.now(),
  };
  const network = generateNetwork(options);
  const logger = createLogger('warn');
  const opened = await openStores({ config, logger });
  try {
    const summary = values['through-service']
      ? await seedThroughService(opened.stores, network, config, createProgress(), logger)
      : await seedNetwork(opened.stores, network, config, createProgress());
    printSummary(network, summary);
  } finally {
    await opened.close();
  }
}

try {
  await main();
} catch (error) {
  const known = error instanceof ConfigError || error instanceof AlreadySeededError || (error instanceof Error && error.message.startsWith('--'));
  console.error(known ? (error as Error).message : error);
  process.exitCode = 1;
}
