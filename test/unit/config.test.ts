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

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DYNAMODB_ENDPOINT: 'localhost:8000' }, 'DYNAMODB_ENDPOINT'],
    [{ NEO4J_URI: 'http://x' }, 'NEO4J_URI'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ NODE_ENV: 'production' }, 'JWT_SECRET'],
    [{ HTTP_HEADERS_TIMEOUT_MS: '40000' }, 'HTTP_HEADERS_TIMEOUT_MS'],
    [{ HTTP_REQUEST_TIMEOUT_MS: '5000', HTTP_HEADERS_TIMEOUT_MS: '6000' }, 'HTTP_HEADERS_TIMEOUT_MS'],
  ])('names the bad variable in %j', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(variable);
  });

  it('documents every variable in the README', () => {
    const readme = readFileSync('README.md', 'utf8');
    for (const setting of Object.values(SETTINGS)) expect(readme).toContain(`\`${setting.name}\``);
  });
});
