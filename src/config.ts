import type { LogLevel } from './logger.js';
import { type Env, fail } from './config/setting-kinds.js';
import { SETTINGS, TRENDS_READ_MAX_QUERIES } from './config/settings.js';

export { ConfigError } from './config/setting-kinds.js';
export {
  type CacheMode,
  DYNAMO_TIMEOUT_DEFAULTS,
  SETTINGS,
  TRENDS_READ_MAX_QUERIES,
  type WriteApi,
} from './config/settings.js';

type Settings = typeof SETTINGS;
/** The service's configuration: read from environment variables only, each declared once in SETTINGS. */
export type Config = { [K in keyof Settings]: ReturnType<Settings[K]['parse']> };

export function loadConfig(env: Env = process.env): Config {
  const config = {} as Record<string, unknown>;
  for (const [key, setting] of Object.entries(SETTINGS)) {
    config[key] = setting.parse(env[setting.name], env);
  }
  if (Number(config.maxQueryCost) > Number(config.rateLimitPoints))
    fail('MAX_QUERY_COST', 'must not be more than RATE_LIMIT_POINTS: an operation that costs more could never run');
  // Each day a window spans is a partition per shard, read with one Query at least.
  const trendDays = Math.ceil((Number(config.trendsWindowHours) - 1) / 24) + 1;
  if (trendDays * Number(config.trendsShards) > TRENDS_READ_MAX_QUERIES)
    fail(
      'TRENDS_SHARDS',
      `(${config.trendsShards}) times the days a TRENDS_WINDOW_HOURS window spans (${trendDays}) must be at most ${TRENDS_READ_MAX_QUERIES}, the Queries one computation of trendingTags sends`,
    );
  const oidc = [SETTINGS.oidcIssuer, SETTINGS.oidcAudience, SETTINGS.oidcJwksUri];
  const oidcSet = oidc.filter((setting) => (env[setting.name] ?? '') !== '');
  if (oidcSet.length > 0 && oidcSet.length < oidc.length) {
    const missing = oidc.find((setting) => !oidcSet.includes(setting))!;
    fail(missing.name, `must be set with ${oidcSet.map((setting) => setting.name).join(' and ')}`);
  }
  return config as Config;
}

export function logLevelOf(config: Config): LogLevel {
  return config.logLevel as LogLevel;
}

/** DynamoDB is "configured" when an endpoint or a region is given; otherwise the service embeds one. */
export function usesEmbeddedDynamo(config: Config): boolean {
  return config.dynamodbEndpoint === '' && config.awsRegion === '';
}
