import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two cores: a few files at once keeps DynamoDB Local busy without starving it.
    maxWorkers: 3,
    minWorkers: 1,
  },
});
