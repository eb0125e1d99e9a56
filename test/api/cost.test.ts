import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

const HOME_PAGE = `query($id: ID!, $first: Int!) {
  user(id: $id) {
    timeline(first: $first) {
      edges { node {
        id text
        author { handle followerCount viewerFollows }
        likeCount viewerHasLiked reactionCounts { kind count } commentCount
      } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

let t: TestApp;
beforeAll(async () => {
  // The outbox registry is cached per process; a long TTL keeps the measured pages from paying for a refresh.
  t = await startTestApp({ OUTBOX_AUTHORS_TTL_MS: '600000' });
});
afterAll(async () => {
  await t.stop();
});

describe('per-request cost', () => {
  it('reads a home timeline page of 20 or 100 posts with the same few batched requests', async () => {
    const viewer = await t.signUp();
    const authors = await Promise.all(Array.from({ length: 12 }, () => t.signUp()));
    await Promise.all(authors.map((a) => t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: a.id }, viewer.token)));
    for (let round = 0; round < 10; round++) {
      await Promise.all(
        authors.map((a, i) => t.gql('mutation($text: String!) { createPost(input: { text: $text, tags: ["cost"] }) { post { id } } }', { text: `post ${round}/${i}` }, a.token)),
      );
    }
    // Some posts carry likes, reactions and comments, so every counter field has something to read.
    const page = await t.gql(HOME_PAGE, { id: viewer.id, first: 20 }, viewer.token);
    for (const edge of page.data!.user.timeline.edges.slice(0, 5)) {
      await t.gql('mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: edge.node.id }, viewer.token);
      await t.gql('mutation($id: ID!) { react(postId: $id, kind: "wow") { post { id } } }', { id: edge.node.id }, viewer.token);
      await t.gql('mutation($id: ID!) { addComment(postId: $id, text: "nice") { comment { id } } }', { id: edge.node.id }, viewer.token);
    }

    // Fan-out is asynchronous: wait until the whole timeline has arrived.
    const deadline = Date.now() + 30_000;
    let full = 0;
    while (Date.now() < deadline) {
      const count = await t.gql(HOME_PAGE, { id: viewer.id, first: 100 }, viewer.token);
      full = count.data!.user.timeline.edges.length;
      if (full === 100) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(full).toBe(100);

    const small = await t.gql(HOME_PAGE, { id: viewer.id, first: 20 }, viewer.token);
    const large = await t.gql(HOME_PAGE, { id: viewer.id, first: 100 }, viewer.token);
    expect(small.errors).toBeUndefined();
    expect(large.errors).toBeUndefined();
    expect(small.data!.user.timeline.edges).toHaveLength(20);
    const liked = large.data!.user.timeline.edges.filter((e: any) => e.node.viewerHasLiked);
    expect(liked).toHaveLength(5);
    expect(liked.every((e: any) => e.node.likeCount === 1 && e.node.commentCount === 1 && e.node.reactionCounts[0].kind === 'wow')).toBe(true);
    expect(large.data!.user.timeline.edges.every((e: any) => e.node.author.viewerFollows && e.node.author.followerCount === 1)).toBe(true);

    const smallCost = small.extensions!.cost;
    const largeCost = large.extensions!.cost;
    expect(largeCost.dynamodb.requests).toBe(smallCost.dynamodb.requests);
    expect(largeCost.graph.requests).toBe(smallCost.graph.requests);
    expect(largeCost.dynamodb.requests).toBeLessThanOrEqual(6);
    expect(largeCost.graph.requests).toBeLessThanOrEqual(2);
    expect(largeCost.dynamodb.readCapacityUnits).toBeGreaterThan(smallCost.dynamodb.readCapacityUnits);
  });

  it('costs one request per field lookup with batching turned off (the naive baseline)', async () => {
    const naive = await startTestApp({ BATCHING: 'false', WORKER_ENABLED: 'false' });
    try {
      const viewer = await naive.signUp();
      const authors = await Promise.all(Array.from({ length: 3 }, () => naive.signUp()));
      await Promise.all(authors.map((a) => naive.gql('mutation { createPost(input: { text: "hi" }) { post { id } } }', {}, a.token)));
      const result = await naive.gql('{ publicTimeline(first: 3) { edges { node { author { handle followerCount viewerFollows } likeCount commentCount } } } }', {}, viewer.token);
      expect(result.data!.publicTimeline.edges).toHaveLength(3);
      // A viewer of the batched service's own: a token is only good where its account exists.
      const batched = await t.gql('{ publicTimeline(first: 3) { edges { node { author { handle followerCount viewerFollows } likeCount commentCount } } } }', {}, (await t.signUp()).token);
      expect(result.extensions!.cost.dynamodb.requests).toBeGreaterThan(batched.extensions!.cost.dynamodb.requests);
      // Three posts, each looked up alone: its author, its counters (read once per counter field) and the author's graph data.
      expect(result.extensions!.cost.graph.requests).toBe(6);
    } finally {
      await naive.stop();
    }
  });
});
