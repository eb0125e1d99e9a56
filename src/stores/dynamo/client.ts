import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { addCostMiddleware } from './cost-middleware.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './embedded-engine.js';

export interface DynamoTarget {
  /** Set for the embedded engine and for any other endpoint; unset means real AWS. */
  endpoint?: string;
  region?: string;
  tableName: string;
  /** Which figure of `extensions.cost` this client's requests count towards. */
  countAs?: 'dynamodb' | 'graph';
}

export function createDocumentClient(target: DynamoTarget): DynamoDBDocumentClient {
  const config: DynamoDBClientConfig = { maxAttempts: 5 };
  if (target.endpoint) {
    config.endpoint = target.endpoint;
    config.region = target.region || LOCAL_REGION;
    // A local endpoint accepts any credentials; real AWS uses the default provider chain.
    if (!process.env.AWS_ACCESS_KEY_ID) config.credentials = LOCAL_CREDENTIALS;
  } else if (target.region) {
    config.region = target.region;
  }
  const client = new DynamoDBClient(config);
  // The SDK's logger step copies every input and output through its sensitive-field filter to hand it
  // to a logger, even the no-op one we leave in place: a few percent of the service's CPU per page, for nothing.
  client.middlewareStack.remove('loggerMiddleware');
  addCostMiddleware(client, target.countAs ?? 'dynamodb');
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
}
