import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { partitions, tableName } from '../../src/stores/dynamo/keys.js';
import type { TaskPayload } from '../../src/domain/tasks.js';
import { newId } from '../../src/domain/ids.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createPost, follow, homeIds } from '../helpers/posts.js';
import { waitForQueueToDrain, WORKER_WAIT } from '../helpers/queue.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ QUEUE_MAX_ATTEMPTS: '2', QUEUE_POLL_MS: '50' });
});
afterAll(async () => {
  await t.stop();
});

describe('stored items: a task that keeps failing', () => {
  it('is moved to the dead-letter list after QUEUE_MAX_ATTEMPTS runs, and the queue goes on', async () => {
    const poison = { id: newId('tsk'), payload: { kind: 'fromTheFuture', postId: 'pst_x' } as unknown as TaskPayload };
    await t.app.stores.tasks.enqueue(poison);

    const [reader, author] = await Promise.all([t.signUp(), t.signUp()]);
    await follow(t, reader.token, author.id);
    const post = await createPost(t, author.token, 'still delivered');
    await expect.poll(() => homeIds(t, reader), WORKER_WAIT).toEqual([post]);

    await waitForQueueToDrain(t);
    const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
    const dead = await client.send(
      new QueryCommand({
        TableName: tableName(t.tablePrefix),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': partitions.deadLetter() },
      }),
    );
    client.destroy();
    expect(dead.Items).toEqual([
      expect.objectContaining({
        id: poison.id,
        failures: 2,
        payload: poison.payload,
        error: expect.stringContaining('unknown task kind "fromTheFuture"'),
      }),
    ]);
  });
});
