import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { scanPages } from '../src/stores/dynamo/batch.js';
import { classifyKey } from '../src/stores/dynamo/keys.js';

/**
 * The users whose graph node matches `condition` (a filter on the node item), a page of the whole-table scan at a
 * time; read from the keys, since a node an old count update created alone has no `id`.
 */
export async function* graphNodesWhere(
  table: { client: DynamoDBDocumentClient; tableName: string },
  condition: { expression: string; names?: Record<string, string> },
): AsyncGenerator<string[]> {
  const pages = scanPages(table.client, table.tableName, {
    FilterExpression: `sk = :node AND (${condition.expression})`,
    ...(condition.names ? { ExpressionAttributeNames: condition.names } : {}),
    ExpressionAttributeValues: { ':node': 'NODE' },
    ProjectionExpression: 'pk, sk',
  });
  for await (const items of pages)
    yield items.flatMap((item) => {
      const node = classifyKey({ pk: String(item.pk), sk: String(item.sk) });
      return node?.kind === 'graphNode' ? [node.userId] : [];
    });
}
