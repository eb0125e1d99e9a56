import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../helpers/app.js';
import { createPost } from '../helpers/posts.js';

/**
 * Post.fanOut's record, moved on by fan-out steps: no worker runs here (WORKER_ENABLED=false), so
 * the test plays the steps itself, repeating them as a worker resumed after a crash or a lost
 * lease would, and reads the outcome through the API.
 */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ WORKER_ENABLED: 'false' });
});
afterAll(async () => {
  await t.stop();
});

const status = async (token: string, postId: string) =>
  (await t.gql('query($id: ID!) { post(id: $id) { fanOut { state delivered total } } }', { id: postId }, token)).data!
    .post?.fanOut;

describe('fan-out progress', () => {
  it('counts each step once however often it is repeated, and ends DONE with what was reached', async () => {
    const author = await t.signUp();
    const postId = await createPost(t, author.token, 'counted once');
    expect(await status(author.token, postId)).toEqual({ state: 'PENDING', delivered: 0, total: 0 });
    const progress = t.app.stores.fanOutProgress;
    await progress.advance(postId, null, 'page-1', 3);
    await progress.advance(postId, null, 'page-1', 3);
    expect(await status(author.token, postId)).toEqual({ state: 'RUNNING', delivered: 3, total: 0 });
    await progress.advance(postId, 'page-1', null, 2);
    await progress.advance(postId, 'page-1', null, 2);
    await progress.advance(postId, null, 'page-1', 3);
    expect(await status(author.token, postId)).toEqual({ state: 'DONE', delivered: 5, total: 5 });
  });
});
