import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodes, startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startTestApp({ WORKER_ENABLED: 'false' });
  ({ token } = await t.signUp());
});
afterAll(async () => {
  await t.stop();
});

describe('an error stays on its own field', () => {
  it('a root query field that fails leaves its siblings their data', async () => {
    const result = await t.gql(
      '{ tagTimeline(tag: "partial", first: 500) { pageInfo { hasNextPage } } publicTimeline(first: 1) { pageInfo { hasNextPage } } viewer { id } }',
      {},
      token,
    );
    expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
    expect(result.errors![0]!.path).toEqual(['tagTimeline']);
    expect(result.data!.tagTimeline).toBeNull();
    expect(result.data!.publicTimeline).toEqual({ pageInfo: { hasNextPage: expect.any(Boolean) } });
    expect(result.data!.viewer.id).toMatch(/^usr_/);
  });

  it('a mutation that fails leaves the payloads of the others', async () => {
    const result = await t.gql(
      `mutation {
        missing: likePost(postId: "pst_01JD0000000000000000000000") { post { id } }
        created: createPost(input: { text: "still posted" }) { post { id text } }
      }`,
      {},
      token,
    );
    expect(errorCodes(result)).toEqual(['NOT_FOUND']);
    expect(result.errors![0]!.path).toEqual(['missing']);
    expect(result.data!.missing).toBeNull();
    expect(result.data!.created.post).toEqual({ id: expect.stringMatching(/^pst_/), text: 'still posted' });
  });
});
