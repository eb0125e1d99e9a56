import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './embedded-engine.js';

export interface DynamoTarget {
  /** Set for the embedded engine and for any other endpoint; unset means real AWS. */
  endpoint?: string;
  region?: string;
  tableName: string;
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
  return DynamoDBDocumentClient.from(new DynamoDBClient(config), {
    marshallOptions: { removeUndefinedValues: true },
  });
}
