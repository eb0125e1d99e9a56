import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, SETTINGS, loadConfig, usesEmbeddedDynamo } from '../../src/config.js';

describe('configuration', () => {
  it('has working defaults on a fresh machine', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 4000, host: '127.0.0.1', dataDir: './.data', tablePrefix: 'social_' });
    expect(usesEmbeddedDynamo(config)).toBe(true);
  });

  it('bounds reactions to a short list of kinds by default', () => {
    expect(loadConfig({}).reactionKinds).toEqual(['like', 'love', 'laugh', 'wow', 'sad', 'clap']);
    expect(loadConfig({ REACTION_KINDS: ' up, down ' }).reactionKinds).toEqual(['up', 'down']);
  });

  it('issues access tokens for 15 minutes and refresh tokens for 30 days by default', () => {
    expect(loadConfig({})).toMatchObject({
      jwtTtlSeconds: 900,
      refreshTtlSeconds: 30 * 24 * 3600,
      signInMaxFailures: 10,
      signInWindowSeconds: 60,
      oidcIssuer: '',
    });
  });

  it('runs as many password hashes at once as there are cores, leaving libuv a thread for file and DNS work', () => {
    const cores = availableParallelism();
    expect(loadConfig({}).passwordHashConcurrency).toBe(Math.max(1, Math.min(cores, 3)));
    expect(loadConfig({ UV_THREADPOOL_SIZE: '2' }).passwordHashConcurrency).toBe(1);
    expect(loadConfig({ PASSWORD_HASH_CONCURRENCY: '8' }).passwordHashConcurrency).toBe(8);
    expect(loadConfig({})).toMatchObject({
      passwordChecksPerAddress: 20,
      passwordHashQueuePerAddress: 4,
      passwordHashQueueTimeoutMs: 5000,
    });
  });

  it('has no built-in JWT secret: without JWT_SECRET the service generates one at start', () => {
    expect(loadConfig({}).jwtSecret).toBe('');
  });

  it('switches to a configured DynamoDB when an endpoint or a region is set', () => {
    expect(usesEmbeddedDynamo(loadConfig({ DYNAMODB_ENDPOINT: 'http://localhost:8000' }))).toBe(false);
    expect(usesEmbeddedDynamo(loadConfig({ AWS_REGION: 'eu-west-1' }))).toBe(false);
  });

  it('writes many items at once with transactions on DynamoDB Local and with BatchWriteItem on DynamoDB, unless told', () => {
    expect(loadConfig({}).bulkWriteApi).toBe('transactWrite');
    expect(loadConfig({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' }).bulkWriteApi).toBe('transactWrite');
    expect(loadConfig({ AWS_REGION: 'eu-west-1' }).bulkWriteApi).toBe('batchWrite');
    expect(loadConfig({ DYNAMODB_ENDPOINT: 'https://dynamodb.eu-west-1.amazonaws.com' }).bulkWriteApi).toBe(
      'batchWrite',
    );
    expect(loadConfig({ BULK_WRITE_API: 'batchWrite' }).bulkWriteApi).toBe('batchWrite');
    expect(loadConfig({ AWS_REGION: 'eu-west-1', BULK_WRITE_API: 'transactWrite' }).bulkWriteApi).toBe('transactWrite');
  });

  it.each([
    [{ BULK_WRITE_API: 'batch' }, 'BULK_WRITE_API'],
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DYNAMODB_ENDPOINT: 'localhost:8000' }, 'DYNAMODB_ENDPOINT'],
    [{ NEO4J_URI: 'http://x' }, 'NEO4J_URI'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ NODE_ENV: 'production' }, 'JWT_SECRET'],
    [{ HTTP_HEADERS_TIMEOUT_MS: '40000' }, 'HTTP_HEADERS_TIMEOUT_MS'],
    [{ HTTP_REQUEST_TIMEOUT_MS: '5000', HTTP_HEADERS_TIMEOUT_MS: '6000' }, 'HTTP_HEADERS_TIMEOUT_MS'],
    [{ REACTION_KINDS: 'like,Love' }, 'REACTION_KINDS'],
    [{ REACTION_KINDS: 'like,,love' }, 'REACTION_KINDS'],
    [{ REACTION_KINDS: '__proto__' }, 'REACTION_KINDS'],
    [{ REACTION_KINDS: 'x'.repeat(21) }, 'REACTION_KINDS'],
    [{ REACTION_KINDS: 'like,love,like' }, 'REACTION_KINDS'],
    [{ OIDC_ISSUER: 'https://id.example.com/' }, 'OIDC_AUDIENCE'],
    [{ OIDC_ISSUER: 'https://id.example.com/', OIDC_AUDIENCE: 'api' }, 'OIDC_JWKS_URI'],
    [{ OIDC_JWKS_URI: 'https://id.example.com/jwks' }, 'OIDC_ISSUER'],
    [
      { OIDC_ISSUER: 'id.example.com', OIDC_AUDIENCE: 'api', OIDC_JWKS_URI: 'https://id.example.com/jwks' },
      'OIDC_ISSUER',
    ],
    [{ PASSWORD_SCRYPT_LOG2_N: '9' }, 'PASSWORD_SCRYPT_LOG2_N'],
    [{ JWT_TTL_SECONDS: '30' }, 'JWT_TTL_SECONDS'],
    [{ PASSWORD_HASH_CONCURRENCY: '0' }, 'PASSWORD_HASH_CONCURRENCY'],
    [{ TRENDS_WINDOW_HOURS: '168', TRENDS_SHARDS: '6' }, 'TRENDS_SHARDS'],
    [
      { REACTION_KINDS: Array.from({ length: 21 }, (_, i) => `kind_${'abcdefghijklmnopqrstu'[i]}`).join(',') },
      'REACTION_KINDS',
    ],
  ])('names the bad variable in %j', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(variable);
  });

  it("waits out two requests' deadlines and answers (the closing's, then one checked before it) before removing activity", () => {
    expect(loadConfig({}).accountDeletionWaitMs).toBe(26_000);
    expect(loadConfig({ OPERATION_TIMEOUT_MS: '2000', DYNAMODB_ATTEMPT_TIMEOUT_MS: '500' }).accountDeletionWaitMs).toBe(
      5_000,
    );
    expect(loadConfig({ OPERATION_TIMEOUT_MS: '2000', ACCOUNT_DELETION_WAIT_MS: '0' }).accountDeletionWaitMs).toBe(0);
    expect(() => loadConfig({ ACCOUNT_DELETION_WAIT_MS: 'soon' })).toThrow('ACCOUNT_DELETION_WAIT_MS');
  });

  it('allows a trending window whose partitions (days spanned × shards) one computation can read', () => {
    expect(loadConfig({ TRENDS_WINDOW_HOURS: '168', TRENDS_SHARDS: '5' })).toMatchObject({ trendsShards: 5 });
    expect(loadConfig({ TRENDS_SHARDS: '16' })).toMatchObject({ trendsWindowHours: 24, trendsShards: 16 });
  });

  it('documents every variable, with its default, in docs/reference/configuration.md (`npm run docs` writes it)', () => {
    const reference = readFileSync('docs/reference/configuration.md', 'utf8');
    for (const setting of Object.values(SETTINGS)) {
      expect(setting.description.trim()).not.toBe('');
      expect(reference).toMatch(new RegExp(`^\\| \`${setting.name}\` \\| .+ \\| .+ \\|$`, 'm'));
    }
  });
});
