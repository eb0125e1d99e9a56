import type { AttributeValue, BatchGetItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { emptyCost, withCostMeter } from '../../src/observability/cost.js';
import { BatchReader } from '../../src/stores/dynamo/batch-reader.js';

/** A table in memory that records every BatchGetItem it answers, in attribute values as DynamoDB does. */
function recordingClient(table: string) {
  const items = new Map<string, Record<string, unknown>>();
  const calls: {
    keys: number;
    consistent: boolean;
    projection: string | undefined;
    names: Record<string, string> | undefined;
  }[] = [];
  const client = {
    // No translateConfig: as createDocumentClient leaves unmarshalling.
    config: {},
    async send(command: BatchGetItemCommand) {
      const request = command.input.RequestItems![table]!;
      const keys = request.Keys!.map(
        (k: Record<string, AttributeValue>) => unmarshall(k) as { pk: string; sk: string },
      );
      calls.push({
        keys: keys.length,
        consistent: request.ConsistentRead === true,
        projection: request.ProjectionExpression,
        names: request.ExpressionAttributeNames,
      });
      return {
        Responses: { [table]: keys.flatMap((k) => items.get(`${k.pk}/${k.sk}`) ?? []).map((i) => marshall(i)) },
      };
    },
  };
  const put = (item: Record<string, unknown>) => items.set(`${item.pk}/${item.sk}`, item);
  return { client: client as unknown as DynamoDBDocumentClient, calls, put };
}

const key = (pk: string, sk: string) => ({ pk, sk });

describe('BatchReader', () => {
  it("sends one tick's lookups of different kinds together, each caller getting its own items in order", async () => {
    const { client, calls, put } = recordingClient('t');
    put({ pk: 'POST#1', sk: 'POST', text: 'hi' });
    put({ pk: 'USER#a', sk: 'PROFILE', handle: 'ada' });
    put({ pk: 'POST#1', sk: 'COUNT#0', likeCount: 2 });
    const reader = new BatchReader(client, 't', true);
    const [posts, users, counters] = await Promise.all([
      reader.get([key('POST#1', 'POST'), key('POST#2', 'POST')], { attributes: ['text'] }),
      reader.get([key('USER#a', 'PROFILE')], { attributes: ['handle'] }),
      reader.get([key('POST#1', 'COUNT#0')], { attributes: ['likeCount', ['reactions', 'wow']] }),
    ]);
    expect(posts.map((item) => item?.text)).toEqual(['hi', undefined]);
    expect(users[0]?.handle).toBe('ada');
    expect(counters[0]?.likeCount).toBe(2);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.keys).toBe(4);
    // The union of the attributes asked, every name a placeholder.
    expect(calls[0]!.projection).toBe('pk, sk, #a0, #a1, #a2, #a3.#a4');
    expect(calls[0]!.names).toEqual({
      '#a0': 'text',
      '#a1': 'handle',
      '#a2': 'likeCount',
      '#a3': 'reactions',
      '#a4': 'wow',
    });
  });

  it('keeps apart what one call cannot hold: strong and eventual reads, projected and whole items, 100 keys', async () => {
    const { client, calls } = recordingClient('t');
    const reader = new BatchReader(client, 't', true);
    await Promise.all([
      reader.get([key('A', '1')], { attributes: [] }),
      reader.get([key('A', '2')], { attributes: [], consistent: true }),
      reader.get([key('A', '3')]),
      reader.get(
        Array.from({ length: 150 }, (_, i) => key('B', String(i))),
        { attributes: [] },
      ),
    ]);
    expect(calls.map((c) => [c.keys, c.consistent, c.projection ?? 'whole']).sort()).toEqual(
      [
        [100, false, 'pk, sk'],
        [51, false, 'pk, sk'],
        [1, true, 'pk, sk'],
        [1, false, 'whole'],
      ].sort(),
    );
  });

  it("never combines two operations' lookups, so that each one's cost counts its own", async () => {
    const { client, calls } = recordingClient('t');
    const reader = new BatchReader(client, 't', true);
    await Promise.all([
      withCostMeter(emptyCost(), () => reader.get([key('A', '1')], { attributes: [] })),
      withCostMeter(emptyCost(), () => reader.get([key('A', '2')], { attributes: [] })),
    ]);
    expect(calls).toHaveLength(2);
  });

  it('sends every lookup on its own when not coalescing (the naive baseline)', async () => {
    const { client, calls } = recordingClient('t');
    const reader = new BatchReader(client, 't', false);
    await Promise.all([
      reader.get([key('A', '1')], { attributes: [] }),
      reader.get([key('A', '2')], { attributes: [] }),
    ]);
    expect(calls).toHaveLength(2);
  });
});
