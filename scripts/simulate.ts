import { ConfigError, loadConfig } from '../src/config.js';
import { FOLLOWING_SET_MAX } from '../src/stores/dynamo/graph/items.js';
import { measureItems } from '../src/simulate/items.js';
import { ON_DEMAND_US_EAST_1 } from '../src/simulate/dynamodb-capacity.js';
import { runModel } from '../src/simulate/model.js';
import type { ModelSettings, Workload } from '../src/simulate/model-types.js';
import { powerLawFollowers } from '../src/simulate/network.js';
import { formatReport } from '../src/simulate/report.js';
import { parseFlags } from './flags.js';

/**
 * `npm run simulate`: the cost and hot-spot model at 1M and 10M users (see docs/scaling.md).
 * The service's settings come from the environment as for `npm start` (on DynamoDB: BULK_WRITE_API
 * defaults to batchWrite), and each can be overridden by its flag.
 */
const flags = {
  users: { type: 'string', default: '1000000,10000000' },
  'follows-per-user': { type: 'string', default: '100' },
  exponent: { type: 'string', default: '1' },
  'uniform-share': { type: 'string', default: '0.5' },
  'active-share': { type: 'string', default: '0.2' },
  'posts-per-day': { type: 'string', default: '2' },
  'home-reads-per-day': { type: 'string', default: '30' },
  'likes-per-day': { type: 'string', default: '10' },
  'reposts-per-day': { type: 'string', default: '2' },
  'mentions-per-post': { type: 'string', default: '0.5' },
  'follows-per-day': { type: 'string', default: '0.5' },
  'tags-per-post': { type: 'string', default: '1' },
  'top-tag-share': { type: 'string', default: '0.05' },
  'post-chars': { type: 'string', default: '120' },
  'page-size': { type: 'string', default: '20' },
  peak: { type: 'string', default: '3' },
  'retention-days': { type: 'string', default: '365' },
  'api-instances': { type: 'string', default: '4' },
  'polling-workers': { type: 'string', default: '4' },
  'fanout-max-followers': { type: 'string' },
  'hot-author-followers': { type: 'string' },
  'counter-shards': { type: 'string' },
  'counter-shards-max': { type: 'string' },
  'counter-shard-writes-per-second': { type: 'string' },
  'home-retention-days': { type: 'string' },
  'timeline-shards': { type: 'string' },
  'queue-shards': { type: 'string' },
  'queue-poll-ms': { type: 'string' },
  help: { type: 'boolean', default: false },
} as const;

const { values } = parseFlags({ options: flags, strict: true });
if (values.help) {
  console.log(
    `npm run simulate -- [--flag value ...]\n${Object.entries(flags)
      .filter(([name]) => name !== 'help')
      .map(
        ([name, flag]) =>
          `  --${name}${'default' in flag ? ` (default ${flag.default})` : ' (default: the setting from the environment)'}`,
      )
      .join('\n')}`,
  );
  process.exit(0);
}

function number(name: keyof typeof flags, raw: string | boolean | undefined): number {
  const value = Number(raw);
  if (typeof raw !== 'string' || !Number.isFinite(value) || value < 0) {
    console.error(`--${name} must be a non-negative number, got "${String(raw)}"`);
    process.exit(1);
  }
  return value;
}

/** A setting from its flag when given (through the setting's own validation), else from the environment. */
const settingFlags = {
  FANOUT_MAX_FOLLOWERS: values['fanout-max-followers'],
  HOT_AUTHOR_FOLLOWERS: values['hot-author-followers'],
  COUNTER_SHARDS: values['counter-shards'],
  COUNTER_SHARDS_MAX: values['counter-shards-max'],
  COUNTER_SHARD_WRITES_PER_SECOND: values['counter-shard-writes-per-second'],
  HOME_RETENTION_DAYS: values['home-retention-days'],
  TIMELINE_SHARDS: values['timeline-shards'],
  QUEUE_SHARDS: values['queue-shards'],
  QUEUE_POLL_MS: values['queue-poll-ms'],
};
let config;
try {
  const given = Object.fromEntries(Object.entries(settingFlags).filter(([, value]) => value !== undefined));
  // The model is of a deployment on DynamoDB, not DynamoDB Local: that decides BULK_WRITE_API's default.
  config = loadConfig({ AWS_REGION: 'us-east-1', ...process.env, DYNAMODB_ENDPOINT: '', ...given });
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}

const settings: ModelSettings = {
  fanoutMaxFollowers: config.fanoutMaxFollowers,
  hotAuthorFollowers: config.hotAuthorFollowers,
  counterShards: config.counterShards,
  counterShardsMax: config.counterShardsMax,
  counterShardWritesPerSecond: config.counterShardWritesPerSecond,
  homeRetentionDays: config.homeRetentionDays,
  followBackfillPosts: config.followBackfillPosts,
  timelineShards: config.timelineShards,
  queueShards: config.queueShards,
  queuePollMs: config.queuePollMs,
  fanoutPageSize: config.fanoutPageSize,
  outboxAuthorsTtlMs: config.outboxAuthorsTtlMs,
  bulkWriteApi: config.bulkWriteApi,
};
const workload: Workload = {
  activeShare: number('active-share', values['active-share']),
  postsPerDay: number('posts-per-day', values['posts-per-day']),
  homeReadsPerDay: number('home-reads-per-day', values['home-reads-per-day']),
  likesPerDay: number('likes-per-day', values['likes-per-day']),
  repostsPerDay: number('reposts-per-day', values['reposts-per-day']),
  mentionsPerPost: number('mentions-per-post', values['mentions-per-post']),
  followsPerDay: number('follows-per-day', values['follows-per-day']),
  tagsPerPost: number('tags-per-post', values['tags-per-post']),
  topTagShare: number('top-tag-share', values['top-tag-share']),
  pageSize: number('page-size', values['page-size']),
  peakToAverage: number('peak', values.peak),
  retentionDays: number('retention-days', values['retention-days']),
  apiInstances: number('api-instances', values['api-instances']),
  pollingWorkers: number('polling-workers', values['polling-workers']),
};
const followsPerUser = number('follows-per-user', values['follows-per-user']);
const sizes = measureItems({
  postChars: number('post-chars', values['post-chars']),
  tagsPerPost: workload.tagsPerPost,
  mentionsPerPost: workload.mentionsPerPost,
  followsPerUser,
  followingSetMax: FOLLOWING_SET_MAX,
  reactionKinds: config.reactionKinds,
  counterShards: config.counterShards,
});

console.log(
  `Settings: ${Object.entries(settings)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ')}`,
);
console.log(
  `Item sizes (bytes, measured on the stores' own items): ${Object.entries(sizes)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ')}`,
);
console.log(
  `Prices: DynamoDB on-demand, ${ON_DEMAND_US_EAST_1.region}, Standard table class, as published on ${ON_DEMAND_US_EAST_1.asOf} (from memory of the public price list, not fetched: check https://aws.amazon.com/dynamodb/pricing/on-demand/).`,
);
for (const users of String(values.users)
  .split(',')
  .map((raw) => number('users', raw.trim()))) {
  const followers = powerLawFollowers({
    users,
    followsPerUser,
    exponent: number('exponent', values.exponent),
    uniformShare: number('uniform-share', values['uniform-share']),
  });
  const input = { followers, workload, settings, sizes, prices: ON_DEMAND_US_EAST_1 };
  console.log(`\n${formatReport(input, runModel(input))}`);
}
