/**
 * `npm run migrate`: creates the table against the configured DynamoDB (real AWS with
 * AWS_REGION, or DYNAMODB_ENDPOINT). Idempotent; the service does the same at start.
 */
import { ConfigError, loadConfig, usesEmbeddedDynamo } from '../src/config.js';
import { createDocumentClient, dynamoTimeoutsOf } from '../src/stores/dynamo/client.js';
import { tableName } from '../src/stores/dynamo/keys.js';
import { ensureTable } from '../src/stores/dynamo/tables.js';

try {
  const config = loadConfig();
  if (usesEmbeddedDynamo(config)) {
    console.error(
      'Set AWS_REGION (real DynamoDB) or DYNAMODB_ENDPOINT: the embedded engine creates its table at start.',
    );
    process.exit(1);
  }
  const table = tableName(config.tablePrefix);
  const client = createDocumentClient({
    endpoint: config.dynamodbEndpoint || undefined,
    region: config.awsRegion || undefined,
    tableName: table,
    timeouts: dynamoTimeoutsOf(config),
  });
  await ensureTable(client, table);
  client.destroy();
  console.log(`table ${table} is ready`);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
