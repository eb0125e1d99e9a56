import type { TestProject } from 'vitest/node';
import { createLogger } from '../../src/logger.js';
import { startEmbeddedEngine } from '../../src/stores/dynamo/embedded-engine.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}

/** One in-memory DynamoDB Local for the whole run; each test file uses its own table. */
export default async function setup(project: TestProject) {
  const engine = await startEmbeddedEngine({ logger: createLogger('warn') });
  project.provide('dynamodbEndpoint', engine.endpoint);
  return async () => {
    await engine.stop();
  };
}
