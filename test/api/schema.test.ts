import { type GraphQLScalarType, buildClientSchema, buildSchema, getIntrospectionQuery, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadTypeDefs } from '../../src/graphql/apollo.js';
import { startTestApp } from '../helpers/app.js';

describe('schema', () => {
  it('matches the reviewed snapshot (any change to the public API shows up here)', async () => {
    await expect(printSchema(buildSchema(loadTypeDefs()))).toMatchFileSnapshot('../__snapshots__/schema.graphql.snap');
  });

  it('is served as written: introspection shows every description of schema.graphql, DateTime’s too', async () => {
    const t = await startTestApp({ WORKER_ENABLED: 'false' });
    try {
      const result = await t.gql(
        getIntrospectionQuery({
          descriptions: true,
          schemaDescription: true,
          specifiedByUrl: true,
          inputValueDeprecation: true,
        }),
      );
      expect(result.errors).toBeUndefined();
      const served = buildClientSchema(result.data as Parameters<typeof buildClientSchema>[0]);
      expect(served.getType('DateTime')!.description).toBe(
        'An ISO-8601 date and time in UTC, e.g. 2026-11-21T12:00:00.000Z.',
      );
      expect(printSchema(served)).toBe(printSchema(buildSchema(loadTypeDefs())));
    } finally {
      await t.stop();
    }
  });

  it('is published as written at /schema.graphql, costs included, in production too where introspection is off', async () => {
    const t = await startTestApp({
      WORKER_ENABLED: 'false',
      NODE_ENV: 'production',
      JWT_SECRET: 'a-production-secret-of-at-least-32-chars',
    });
    try {
      const response = await fetch(`${t.url}/schema.graphql`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      const published = await response.text();
      expect(published).toBe(loadTypeDefs());
      expect(published).toContain('@cost(weight: 20)');
      expect((buildSchema(published).getType('DateTime') as GraphQLScalarType).specifiedByURL).toBe(
        'https://scalars.graphql.org/andimarek/date-time',
      );
      expect((await t.gql('{ __schema { queryType { name } } }')).errors![0]!.extensions!.code).toBe(
        'GRAPHQL_VALIDATION_FAILED',
      );
    } finally {
      await t.stop();
    }
  });
});
