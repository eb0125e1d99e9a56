import { buildSchema, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadTypeDefs } from '../../src/app.js';

describe('schema', () => {
  it('matches the reviewed snapshot (any change to the public API shows up here)', async () => {
    await expect(printSchema(buildSchema(loadTypeDefs()))).toMatchFileSnapshot('../__snapshots__/schema.graphql.snap');
  });
});
