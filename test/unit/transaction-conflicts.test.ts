import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConditionalCheckFailedException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';

/** A loopback endpoint that answers DynamoDB's JSON protocol with each of `answers` in turn, then the last again. */
async function endpointAnswering(answers: readonly (string | null)[]) {
  const targets: string[] = [];
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      targets.push(String(request.headers['x-amz-target']));
      const error = answers[Math.min(targets.length, answers.length) - 1];
      response.writeHead(error ? 400 : 200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(
        JSON.stringify(error ? { __type: `com.amazonaws.dynamodb.v20120810#${error}`, message: error } : {}),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, targets };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

const update = new UpdateCommand({
  TableName: 't',
  Key: { pk: 'HOME#usr_a', sk: 'pst_1' },
  UpdateExpression: 'SET original = :true',
  ConditionExpression: 'attribute_exists(pk)',
  ExpressionAttributeValues: { ':true': true },
});
const timeouts = { connectMs: 1_000, attemptMs: 1_000, maxAttempts: 3, totalMs: 5_000 };

describe('a single write that meets a transaction on its item', () => {
  it('is tried again, as the item is unchanged', async () => {
    const { endpoint, targets } = await endpointAnswering(['TransactionConflictException', null]);
    const client = createDocumentClient({ endpoint, tableName: 't', timeouts });
    await expect(client.send(update)).resolves.toBeDefined();
    expect(targets).toEqual(['DynamoDB_20120810.UpdateItem', 'DynamoDB_20120810.UpdateItem']);
    client.destroy();
  });

  it('fails with the conflict once the call has used its attempts', async () => {
    const { endpoint, targets } = await endpointAnswering(['TransactionConflictException']);
    const client = createDocumentClient({ endpoint, tableName: 't', timeouts });
    await expect(client.send(update)).rejects.toThrow(TransactionConflictException);
    expect(targets).toHaveLength(3);
    client.destroy();
  });

  it('is not tried again when its condition failed', async () => {
    const { endpoint, targets } = await endpointAnswering(['ConditionalCheckFailedException']);
    const client = createDocumentClient({ endpoint, tableName: 't', timeouts });
    await expect(client.send(update)).rejects.toThrow(ConditionalCheckFailedException);
    expect(targets).toHaveLength(1);
    client.destroy();
  });
});
