import { execFileSync } from 'node:child_process';
import { buildSchema, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadTypeDefs } from '../../src/app.js';

describe('schema', () => {
  it('matches the reviewed snapshot (any change to the public API shows up here)', async () => {
    await expect(printSchema(buildSchema(loadTypeDefs()))).toMatchFileSnapshot('../__snapshots__/schema.graphql.snap');
  });

  it('covers the shared minimum contract', () => {
    const output = execFileSync('node', ['../shared/tools/check-contract.mjs'], { encoding: 'utf8' });
    expect(output).toContain('schema.graphql covers the contract');
  });
});
