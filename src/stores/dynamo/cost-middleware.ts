import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { recordDynamoRequest, recordGraphRequest, startStoreRequest } from '../../observability/cost.js';
import { observeStoreRequest, recordConsumedCapacity } from '../../observability/store-requests.js';

interface ConsumedCapacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

/** Commands that can report consumed capacity. */
const REPORTING = new Set([
  'GetItemCommand',
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'QueryCommand',
  'ScanCommand',
  'BatchGetItemCommand',
  'BatchWriteItemCommand',
  'TransactGetItemsCommand',
  'TransactWriteItemsCommand',
]);

const WRITES = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
]);

function sumCapacity(
  consumed: ConsumedCapacity | ConsumedCapacity[] | undefined,
  write: boolean,
): { read: number; write: number } {
  const list = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  let read = 0;
  let written = 0;
  for (const c of list) {
    // Some engines report only the total; it belongs to the kind of operation that ran.
    const total = c.CapacityUnits ?? 0;
    read += c.ReadCapacityUnits ?? (write ? 0 : total);
    written += c.WriteCapacityUnits ?? (write ? total : 0);
  }
  return { read, write: written };
}

/**
 * Records every DynamoDB request, its wave and consumed capacity in the cost meter, metrics and traces; a
 * graph backend's client counts as graph requests.
 */
export function addCostMiddleware(client: DynamoDBClient, countAs: 'dynamodb' | 'graph'): void {
  const record = (read: number, write: number) =>
    countAs === 'graph' ? recordGraphRequest() : recordDynamoRequest(read, write);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? '';
      const input = args.input as Record<string, unknown>;
      if (REPORTING.has(command) && input.ReturnConsumedCapacity === undefined) input.ReturnConsumedCapacity = 'TOTAL';
      const operation = command.replace(/Command$/, '') || 'unknown';
      const answered = startStoreRequest();
      return observeStoreRequest(countAs, 'aws.dynamodb', operation, async (span) => {
        try {
          const result = await next(args);
          answered();
          const output = result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] };
          const { read, write } = sumCapacity(output.ConsumedCapacity, WRITES.has(command));
          record(read, write);
          recordConsumedCapacity(countAs, operation, span, read, write);
          return result;
        } catch (error) {
          answered();
          record(0, 0);
          throw error;
        }
      });
    },
    { step: 'initialize', name: 'costMeter' },
  );
}
