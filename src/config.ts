import type { LogLevel } from './logger.js';

/**
 * Configuration comes from environment variables only. Every variable is declared once
 * in SETTINGS (name, default, meaning), so validation, the README table and the tests
 * all read the same list.
 */
export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`Invalid configuration: ${variable} ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

interface Setting<T> {
  name: string;
  default: string;
  description: string;
  parse(raw: string | undefined, env: Env): T;
}

function fail(name: string, message: string): never {
  throw new ConfigError(name, message);
}

function int(name: string, fallback: number, min: number, max: number, description: string): Setting<number> {
  return {
    name,
    default: String(fallback),
    description,
    parse(raw) {
      if (raw === undefined || raw === '') return fallback;
      if (!/^\d+$/.test(raw)) fail(name, `must be a whole number, got "${raw}"`);
      const value = Number(raw);
      if (value < min || value > max) fail(name, `must be between ${min} and ${max}, got ${value}`);
      return value;
    },
  };
}

function bool(name: string, fallback: (env: Env) => boolean, shownDefault: string, description: string): Setting<boolean> {
  return {
    name,
    default: shownDefault,
    description,
    parse(raw, env) {
      if (raw === undefined || raw === '') return fallback(env);
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      fail(name, `must be true or false, got "${raw}"`);
    },
  };
}

function text(name: string, fallback: string, description: string, check?: (value: string) => string | null): Setting<string> {
  return {
    name,
    default: fallback === '' ? '(unset)' : fallback,
    description,
    parse(raw) {
      const value = raw === undefined || raw === '' ? fallback : raw;
      const problem = value !== '' && check ? check(value) : null;
      if (problem) fail(name, problem);
      return value;
    },
  };
}

const isProduction = (env: Env) => env.NODE_ENV === 'production';
const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'];
const DEV_JWT_SECRET = 'development-only-secret-do-not-use-in-production';

export const SETTINGS = {
  nodeEnv: text('NODE_ENV', 'development', '`production` turns off the development defaults below.'),
  port: int('PORT', 4000, 0, 65535, 'HTTP port.'),
  host: text('HOST', '127.0.0.1', 'Address to listen on.'),
  dataDir: text('DATA_DIR', './.data', 'Where the embedded DynamoDB keeps its data between restarts.'),
  dynamodbEndpoint: text('DYNAMODB_ENDPOINT', '', 'Use the DynamoDB at this URL instead of the embedded one.', (v) =>
    /^https?:\/\/.+/.test(v) ? null : `must be an http(s) URL, got "${v}"`,
  ),
  awsRegion: text('AWS_REGION', '', 'Use real DynamoDB in this region (credentials from the usual AWS variables).'),
  tablePrefix: text('TABLE_PREFIX', 'social_', 'Prefix of the DynamoDB table name.', (v) =>
    /^[A-Za-z0-9_.-]{0,200}$/.test(v) ? null : 'may only contain letters, digits, _ . -',
  ),
  neo4jUri: text('NEO4J_URI', '', 'Keep the follow graph in Neo4j (e.g. neo4j://localhost:7687) instead of DynamoDB.', (v) =>
    /^(neo4j|bolt)(\+s|\+ssc)?:\/\/.+/.test(v) ? null : `must be a neo4j:// or bolt:// URI, got "${v}"`,
  ),
  neo4jUser: text('NEO4J_USER', 'neo4j', 'Neo4j user.'),
  neo4jPassword: text('NEO4J_PASSWORD', '', 'Neo4j password.'),
  jwtSecret: {
    name: 'JWT_SECRET',
    default: '(development default)',
    description: 'HS256 signing secret, at least 32 characters. Required when NODE_ENV=production.',
    parse(raw: string | undefined, env: Env): string {
      if (raw === undefined || raw === '') {
        if (isProduction(env)) fail('JWT_SECRET', 'must be set when NODE_ENV=production');
        return DEV_JWT_SECRET;
      }
      if (raw.length < 32) fail('JWT_SECRET', 'must be at least 32 characters');
      return raw;
    },
  } satisfies Setting<string>,
  jwtTtlSeconds: int('JWT_TTL_SECONDS', 7 * 24 * 3600, 60, 365 * 24 * 3600, 'How long a token stays valid.'),
  introspection: bool('INTROSPECTION', (env) => !isProduction(env), 'on, off in production', 'Allow schema introspection.'),
  graphiql: bool('GRAPHIQL', (env) => !isProduction(env), 'on, off in production', 'Serve GraphiQL at /graphiql.'),
  costExtensions: bool('COST_EXTENSIONS', (env) => !isProduction(env), 'on, off in production', 'Add `extensions.cost` (backend requests and capacity) to every response.'),
  logLevel: text('LOG_LEVEL', 'info', 'debug, info, warn, error or silent.', (v) =>
    LOG_LEVELS.includes(v) ? null : `must be one of ${LOG_LEVELS.join(', ')}`,
  ),
} as const;

type Settings = typeof SETTINGS;
export type Config = { [K in keyof Settings]: ReturnType<Settings[K]['parse']> };

export function loadConfig(env: Env = process.env): Config {
  const config = {} as Record<string, unknown>;
  for (const [key, setting] of Object.entries(SETTINGS)) {
    config[key] = setting.parse(env[setting.name], env);
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
