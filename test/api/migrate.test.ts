import { randomBytes } from 'node:crypto';
import { DescribeTableCommand, DescribeTimeToLiveCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/stores/dynamo/embedded-engine.js';
import { runScriptWith } from '../helpers/scripts.js';

async function migrate(settings: Record<string, string>): Promise<{ code: number; out: string }> {
  const { code, output, errors } = await runScriptWith(settings, 'migrate');
  return { code, out: output + errors };
}

describe('stored items: npm run migrate', () => {
  it('creates the table (with TTL on expiresAt) on the configured DynamoDB, and again changes nothing', async () => {
    const endpoint = inject('dynamodbEndpoint');
    const prefix = `m${randomBytes(4).toString('hex')}_`;
    const first = await migrate({ DYNAMODB_ENDPOINT: endpoint, TABLE_PREFIX: prefix });
    expect(first).toMatchObject({ code: 0, out: expect.stringContaining(`table ${prefix}main is ready`) });
    expect((await migrate({ DYNAMODB_ENDPOINT: endpoint, TABLE_PREFIX: prefix })).code).toBe(0);

    const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    const table = await client.send(new DescribeTableCommand({ TableName: `${prefix}main` }));
    expect(table.Table!.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: `${prefix}main` }));
    expect(ttl.TimeToLiveDescription?.AttributeName).toBe('expiresAt');
    client.destroy();
  });

  it('refuses to run without a DynamoDB to migrate, naming what to set', async () => {
    const result = await migrate({});
    expect(result.code).toBe(1);
    expect(result.out).toContain('AWS_REGION');
  });
});
