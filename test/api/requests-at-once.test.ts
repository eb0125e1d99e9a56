import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type TestApp, startTestApp } from '../helpers/app.js';
import { stallingProxy } from '../helpers/stalling-proxy.js';

const POLL = { timeout: 10_000, interval: 20 };

/** Three lists a post: a page of 12 is 36 list reads at once, past any slot count below. */
const LISTS = `query($first: Int!) { publicTimeline(first: $first) { edges { node {
  id likedBy(first: 1) { edges { node { id } } } repostedBy(first: 1) { edges { node { id } } }
  comments(first: 1) { edges { node { id text } } }
} } } }`;

let shared: TestApp;
let oneAtATime: TestApp;
beforeAll(async () => {
  shared = await startTestApp({ WORKER_ENABLED: 'false' });
  // The same table, one DynamoDB request of an operation in flight at a time.
  oneAtATime = await startTestApp({
    WORKER_ENABLED: 'false',
    TABLE_PREFIX: shared.tablePrefix,
    DYNAMODB_REQUESTS_AT_ONCE: '1',
  });
});
afterAll(async () => {
  await oneAtATime?.stop();
  await shared?.stop();
});

describe('DYNAMODB_REQUESTS_AT_ONCE', () => {
  it("changes when an operation's requests go, not what it answers or what extensions.cost says it cost", async () => {
    const author = await shared.signUp();
    const reader = await shared.signUp();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const created = await shared.gqlData<{ createPost: { post: { id: string } } }>(
        'mutation($text: String!) { createPost(input: { text: $text }) { post { id } } }',
        { text: `post ${i}` },
        author.token,
      );
      ids.push(created.createPost.post.id);
    }
    await shared.gqlData('mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: ids[3] }, reader.token);
    await shared.gqlData(
      'mutation($id: ID!) { addComment(postId: $id, text: "first") { comment { id } } }',
      { id: ids[5] },
      reader.token,
    );

    const answers = await Promise.all([shared, oneAtATime].map((app) => app.gql(LISTS, { first: 12 })));
    for (const answer of answers) expect(answer.errors).toBeUndefined();
    const [sharedAnswer, oneAnswer] = answers;
    expect(oneAnswer!.data).toEqual(sharedAnswer!.data);
    const liked = sharedAnswer!.data!.publicTimeline.edges.find((edge: any) => edge.node.id === ids[3]);
    expect(liked.node.likedBy.edges).toEqual([{ node: { id: reader.id } }]);
    const shape = (cost: any) => ({ dynamodb: cost.dynamodb.requests, graph: cost.graph.requests, waves: cost.waves });
    expect(shape(oneAnswer!.extensions!.cost)).toEqual(shape(sharedAnswer!.extensions!.cost));
    expect(sharedAnswer!.extensions!.cost.dynamodb.requests).toBeGreaterThan(36);
  });

  it("shares them among clients: one client's operations together hold at most three quarters", async () => {
    const proxy = await stallingProxy(inject('dynamodbEndpoint'));
    const quarter = await startTestApp(
      {
        WORKER_ENABLED: 'false',
        TABLE_PREFIX: shared.tablePrefix,
        DYNAMODB_REQUESTS_AT_ONCE: '4',
        CACHE: 'off',
        // The held requests outlast the test rather than time out and free their slots.
        DYNAMODB_ATTEMPT_TIMEOUT_MS: '30000',
        DYNAMODB_TIMEOUT_MS: '30000',
        OPERATION_TIMEOUT_MS: '30000',
      },
      { dynamodbEndpoint: proxy.endpoint },
    );
    try {
      const reader = await quarter.signUp();
      proxy.stall();
      const sent = proxy.targets.length;
      const held = () => proxy.targets.slice(sent);
      const page = '{ publicTimeline(first: 5) { edges { node { id } } } }';
      // Two anonymous pages from one address: each queries the public timeline's shards at once, four in all.
      const anonymous = [quarter.gql(page), quarter.gql(page)];
      await expect.poll(() => held().length, POLL).toBe(3);
      // Another client (the account) gets the fourth slot; the address's fourth Query still waits.
      const signedIn = quarter.gql('{ viewer { id } }', {}, reader.token);
      await expect.poll(() => held().length, POLL).toBe(4);
      expect(held()).toEqual(['Query', 'Query', 'Query', 'BatchGetItem']);
      proxy.resume();
      for (const answer of await Promise.all([...anonymous, signedIn])) expect(answer.errors).toBeUndefined();
    } finally {
      proxy.resume();
      await quarter.stop();
      proxy.close();
    }
  });
});
