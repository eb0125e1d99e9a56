/**
 * `npm run seed [-- --size small|full] [--users N --follows N --posts N --likes N --seed N --days N] [--resume] [--through-service]`:
 * fills the configured stores (the embedded DynamoDB under DATA_DIR by default, or
 * DYNAMODB_ENDPOINT / AWS_REGION, and NEO4J_URI for the graph) with a generated social network,
 * by the stores' bulk imports or, with --through-service, through the service's own paths.
 * The bulk import keeps a checkpoint in DATA_DIR; `--resume` finishes an interrupted seed.
 */
import { openStores } from '../src/stores/open-stores.js';
import { type Config, ConfigError, loadConfig } from '../src/config.js';
import { SCRIPT_TIMEOUTS } from './configured-stores.js';
import { createLogger } from '../src/logger.js';
import {
  type Network,
  NetworkSizeError,
  type NetworkOptions,
  SEED_SIZES,
  type SizeName,
  generateNetwork,
} from '../src/seed/network.js';
import { CheckpointFile, type SeedPlan } from '../src/seed/checkpoint.js';
import { clock, createProgress } from '../src/seed/progress.js';
import { AlreadySeededError, PART_ITEMS, type SeedSummary, seedNetwork } from '../src/seed/seed.js';
import { seedThroughService } from '../src/seed/seed-through-service.js';
import { parseFlags } from './flags.js';

/** A mistake in how the seed was asked for: its message is the whole story. */
class UsageError extends Error {}

function wholeNumber(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} must be a whole number, got "${raw}"`);
  return Number(raw);
}

function printSummary(network: Network, summary: SeedSummary, resumed: boolean): void {
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
      // A resumed run wrote only part of the records: no rate for it.
      `in ${seconds.toFixed(1)}s${resumed ? ' (this run, resumed)' : ''} (${phases.join(', ')})${resumed ? '' : `: ${Math.round(written / seconds)} records/s`}`,
      `followers per user: median ${at(0.5)}, p90 ${at(0.9)}, p99 ${at(0.99)}, max ${followers.at(-1)}`,
      `most followed: ${top.map((t) => `@${t.handle} (${t.count})`).join(', ')}`,
    ].join('\n'),
  );
}

/** How to start again with an empty store, in words a newcomer can follow. */
function startAgain(config: Config, checkpoint: string): string {
  return config.dynamodbEndpoint
    ? `seed another TABLE_PREFIX (or delete the table ${config.tablePrefix}… from ${config.dynamodbEndpoint}), delete ${checkpoint}, and run "npm run seed" again`
    : `delete ${config.dataDir} (the embedded DynamoDB's data and the checkpoint) and run "npm run seed" again`;
}

/** What a seed's records depend on besides the network: a resumed seed must run with the same. */
function planOf(config: Config, size: Required<NetworkOptions>, partItems: number): SeedPlan {
  return {
    size,
    settings: {
      HOT_AUTHOR_FOLLOWERS: config.hotAuthorFollowers,
      COUNTER_SHARDS: config.counterShards,
      FANOUT_MAX_FOLLOWERS: config.fanoutMaxFollowers,
      HOME_RETENTION_DAYS: config.homeRetentionDays,
      partItems,
    },
    target: `${config.dynamodbEndpoint || 'embedded'} ${config.tablePrefix}`,
  };
}

async function main(): Promise<void> {
  const { values } = parseFlags({
    options: {
      size: { type: 'string' },
      users: { type: 'string' },
      follows: { type: 'string' },
      posts: { type: 'string' },
      likes: { type: 'string' },
      seed: { type: 'string' },
      days: { type: 'string' },
      resume: { type: 'boolean' },
      'checkpoint-items': { type: 'string' },
      'through-service': { type: 'boolean' },
    },
  });
  const config = loadConfig({ ...SCRIPT_TIMEOUTS, ...process.env });
  const sizeName = (values.size ?? 'small') as SizeName;
  if (!Object.hasOwn(SEED_SIZES, sizeName))
    throw new UsageError(`--size must be ${Object.keys(SEED_SIZES).join(' or ')}, got "${values.size}"`);
  const base = SEED_SIZES[sizeName];
  const asked = {
    users: wholeNumber('users', values.users, base.users),
    follows: wholeNumber('follows', values.follows, base.follows),
    posts: wholeNumber('posts', values.posts, base.posts),
    likes: wholeNumber('likes', values.likes, base.likes),
    seed: wholeNumber('seed', values.seed, base.seed),
    days: wholeNumber('days', values.days, base.days),
    endMs: Date.now(),
  };
  const checkpointPath = CheckpointFile.pathFor(config.dataDir, config.tablePrefix);
  const throughService = values['through-service'] === true;
  const existing = throughService ? null : CheckpointFile.read(checkpointPath);
  let checkpoint: CheckpointFile | null = null;
  let size = asked;
  if (values.resume) {
    if (throughService)
      throw new UsageError('--resume resumes the bulk import; a seed --through-service starts again only.');
    if (!existing)
      throw new UsageError(`There is no seed to resume (no ${checkpointPath}): run "npm run seed" to start one.`);
    if (existing.finishedAt)
      throw new UsageError(
        `The seed recorded in ${checkpointPath} finished at ${existing.finishedAt}: there is nothing to resume.`,
      );
    const changed = existing.differences(planOf(config, asked, existing.plan.settings.partItems ?? PART_ITEMS));
    if (changed.length > 0) {
      throw new UsageError(
        `The interrupted seed cannot be resumed as configured now (${changed.join('; ')}): resume with the settings it started with, or ${startAgain(config, checkpointPath)}.`,
      );
    }
    const was = existing.plan.size;
    const other = (['users', 'follows', 'posts', 'likes', 'seed', 'days'] as const).filter(
      (k) => (values[k] !== undefined || values.size !== undefined) && asked[k] !== was[k],
    );
    if (other.length > 0)
      throw new UsageError(
        `The interrupted seed has ${other.map((k) => `${k} ${was[k]}`).join(', ')}: resume it without size flags, or ${startAgain(config, checkpointPath)}.`,
      );
    checkpoint = existing;
    size = was;
  } else if (existing && !existing.finishedAt) {
    const s = existing.plan.size;
    throw new UsageError(
      `An interrupted seed (${s.users} users, ${s.follows} follows, ${s.posts} posts, ${s.likes} likes, seed ${s.seed}, ${s.days} days of history; started ${existing.startedAt}) ` +
        `is recorded in ${checkpointPath}. Finish it with "npm run seed -- --resume", or ${startAgain(config, checkpointPath)}.`,
    );
  }

  const network = (() => {
    try {
      return generateNetwork(size);
    } catch (error) {
      if (error instanceof NetworkSizeError) throw new UsageError(error.message);
      throw error;
    }
  })();
  const logger = createLogger('warn');
  const opened = await openStores({ config, logger, bulkWrites: !throughService });
  const resumeHint = () =>
    checkpoint
      ? `"npm run seed -- --resume" goes on from the last checkpoint (${checkpointPath}); or ${startAgain(config, checkpointPath)}.`
      : '';
  const interrupted = () => {
    console.error(`\nInterrupted. ${resumeHint()}`);
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    if (throughService) {
      printSummary(network, await seedThroughService(opened.stores, network, config, createProgress(), logger), false);
      return;
    }
    const resuming = checkpoint !== null;
    checkpoint ??= CheckpointFile.begin(
      checkpointPath,
      planOf(config, size, wholeNumber('checkpoint-items', values['checkpoint-items'], PART_ITEMS)),
    );
    if (resuming) console.error(`resuming the seed started ${checkpoint.startedAt} (${checkpointPath})`);
    const summary = await seedNetwork(opened.stores, network, config, createProgress(), {
      checkpoint,
      resuming,
      partItems: checkpoint.plan.settings.partItems,
    }).catch((error: unknown) => {
      // A store that held the network before this seed started: not this seed's to resume.
      if (error instanceof AlreadySeededError && !resuming) checkpoint?.remove();
      else console.error(`The seed stopped: ${resumeHint()}`);
      throw error;
    });
    checkpoint.finish();
    printSummary(network, summary, resuming);
    console.error(`done in ${clock(summary.totalMs)}`);
  } finally {
    await opened.close();
  }
}

try {
  await main();
} catch (error) {
  const known = error instanceof ConfigError || error instanceof AlreadySeededError || error instanceof UsageError;
  console.error(known ? (error as Error).message : error);
  process.exitCode = 1;
}
