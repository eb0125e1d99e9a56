import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Node loads graphql's CommonJS build for Apollo Server; tests must use the same copy, or
  // graphql's instanceof checks fail between the two ("from another module or realm").
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two cores: a few files at once keeps DynamoDB Local busy without starving it.
    maxWorkers: 3,
  },
});
