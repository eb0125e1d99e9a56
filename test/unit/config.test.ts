import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, SETTINGS, loadConfig, usesEmbeddedDynamo } from '../../src/config.js';

describe('configuration', () => {
  it('has working defaults on a fresh machine', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 4000, host: '127.0.0.1', dataDir: './.data', tablePrefix: 'social_' });
    expect(usesEmbeddedDynamo(config)).toBe(true);
  });

  it('switches to a configured DynamoDB when an endpoint or a region is set', () => {
    expect(usesEmbeddedDynamo(loadConfig({ DYNAMODB_ENDPOINT: 'http://localhost:8000' }))).toBe(false);
    expect(usesEmbeddedDynamo(loadConfig({ AWS_REGION: 'eu-west-1' }))).toBe(false);
  });

  it('writes home timelines with transactions on DynamoDB Local and with BatchWriteItem on DynamoDB, unless told', () => {
    expect(loadConfig({}).timelineWriteApi).toBe('transaction');
    expect(loadConfig({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' }).timelineWriteApi).toBe('transaction');
    expect(loadConfig({ AWS_REGION: 'eu-west-1' }).timelineWriteApi).toBe('batch');
    expect(loadConfig({ DYNAMODB_ENDPOINT: 'https://dynamodb.eu-west-1.amazonaws.com' }).timelineWriteApi).toBe('batch');
    expect(loadConfig({ TIMELINE_WRITE_API: 'batch' }).timelineWriteApi).toBe('batch');
    expect(loadConfig({ AWS_REGION: 'eu-west-1', TIMELINE_WRITE_API: 'transaction' }).timelineWriteApi).toBe('transaction');
  });

  it.each([
    [{ TIMELINE_WRITE_API: 'transact' }, 'TIMELINE_WRITE_API'],
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DYNAMODB_ENDPOINT: 'localhost:8000' }, 'DYNAMODB_ENDPOINT'],
    [{ NEO4J_URI: 'http://x' }, 'NEO4J_URI'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ NODE_ENV: 'production' }, 'JWT_SECRET'],
  ])('names the bad variable in %j', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(variable);
  });

  it('documents every variable in the README', () => {
    const readme = readFileSync('README.md', 'utf8');
    for (const setting of Object.values(SETTINGS)) expect(readme).toContain(`\`${setting.name}\``);
  });
});
