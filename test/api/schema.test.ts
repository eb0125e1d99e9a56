import { buildClientSchema, buildSchema, getIntrospectionQuery, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadTypeDefs } from '../../src/app.js';
import { startTestApp } from '../helpers/app.js';

describe('schema', () => {
  it('matches the reviewed snapshot (any change to the public API shows up here)', async () => {
    await expect(printSchema(buildSchema(loadTypeDefs()))).toMatchFileSnapshot('../__snapshots__/schema.graphql.snap');
  });

  it('is served as written: introspection shows every description of schema.graphql, DateTime’s too', async () => {
    const t = await startTestApp({ WORKER_ENABLED: 'false' });
    try {
      const result = await t.gql(getIntrospectionQuery({ descriptions: true, schemaDescription: true, specifiedByUrl: true, inputValueDeprecation: true }));
      expect(result.errors).toBeUndefined();
      const served = buildClientSchema(result.data as Parameters<typeof buildClientSchema>[0]);
      expect(served.getType('DateTime')!.description).toBe('An ISO-8601 date and time in UTC, e.g. 2026-11-21T12:00:00.000Z.');
      expect(printSchema(served)).toBe(printSchema(buildSchema(loadTypeDefs())));
    } finally {
      await t.stop();
    }
  });
});
