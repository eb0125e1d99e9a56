import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { tableName } from '../../src/stores/dynamo/keys.js';
import type { TestApp } from './app.js';

/** Every item of the app's table, read strongly consistent: for tests that check what a change left behind. */
export async function scanTable(app: TestApp): Promise<Record<string, unknown>[]> {
  const client = createDocumentClient({ endpoint: app.endpoint, tableName: tableName(app.tablePrefix) });
  try {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new ScanCommand({ TableName: tableName(app.tablePrefix), ConsistentRead: true, ExclusiveStartKey: start }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  } finally {
    client.destroy();
  }
}
