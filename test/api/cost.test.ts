import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { keys, tableName } from '../../src/stores/dynamo/keys.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { scriptOutput } from '../helpers/scripts.js';

const HOME_PAGE = `query($id: ID!, $first: Int!) {
  user(id: $id) {
    timeline(first: $first) {
      edges {
        node {
          id text
          author { handle followerCount viewerFollows }
          likeCount viewerHasLiked reactionCounts { kind count } commentCount repostCount viewerHasReposted
        }
        repostedBy { handle followerCount viewerFollows }
      }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

let t: TestApp;
beforeAll(async () => {
  // The outbox registry is cached per process; a long TTL keeps the measured pages from paying for a refresh.
  // A post's comments with replies two levels deep nest 12 fields.
  t = await startTestApp({ OUTBOX_AUTHORS_TTL_MS: '600000', CACHE: 'off', MAX_QUERY_DEPTH: '12' });
});
afterAll(async () => {
  await t.stop();
});

describe('per-request cost', () => {
  // 20 sign-ups, 123 posts and 3 reposts fanned out and 19 mutations before the pages: slow on a loaded two-core machine.
  it(
    'reads a home timeline page of 20 or 100 posts, reposts among them, in two waves of a few batched requests, blocks and mutes included',
    { timeout: 120_000 },
    async () => {
      const viewer = await t.signUp();
      const authors = await Promise.all(Array.from({ length: 12 }, () => t.signUp()));
      // Blocks and mutes either way, of accounts whose posts are not in the timeline: the rules look them up for every author.
      const [blocked, blocker, muted, muter] = await Promise.all(Array.from({ length: 4 }, () => t.signUp()));
      await t.gql('mutation($id: ID!) { block(userId: $id) { user { id } } }', { id: blocked!.id }, viewer.token);
      await t.gql('mutation($id: ID!) { block(userId: $id) { user { id } } }', { id: viewer.id }, blocker!.token);
      await t.gql('mutation($id: ID!) { mute(userId: $id) { user { id } } }', { id: muted!.id }, viewer.token);
      await t.gql('mutation($id: ID!) { mute(userId: $id) { user { id } } }', { id: viewer.id }, muter!.token);
      await Promise.all(
        authors.map((a) =>
          t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: a.id }, viewer.token),
        ),
      );
      for (let round = 0; round < 10; round++) {
        await Promise.all(
          authors.map((a, i) =>
            t.gql(
              'mutation($text: String!) { createPost(input: { text: $text, tags: ["cost"] }) { post { id } } }',
              { text: `post ${round}/${i}` },
              a.token,
            ),
          ),
        );
      }
      // Three followed accounts that post nothing repost a post each of an account the viewer does not follow: the
      // newest entries carry a reason, and the reposters are users that only hydrating the reasons reads.
      const outsider = await t.signUp();
      const sharers = await Promise.all(Array.from({ length: 3 }, () => t.signUp()));
      for (const sharer of sharers) {
        await t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: sharer.id }, viewer.token);
        const post = await t.gql(
          'mutation { createPost(input: { text: "from outside" }) { post { id } } }',
          {},
          outsider.token,
        );
        await t.gql(
          'mutation($id: ID!) { repost(postId: $id) { post { id } } }',
          { id: post.data!.createPost.post.id },
          sharer.token,
        );
      }
      // Fan-out is asynchronous: wait until the whole timeline has arrived.
      const homeLength = async () =>
        (await t.gql(HOME_PAGE, { id: viewer.id, first: 100 }, viewer.token)).data!.user.timeline.edges.length;
      await expect.poll(homeLength, { timeout: 90_000, interval: 200 }).toBe(100);

      // Some of the newest posts carry likes, reactions and comments, so every counter field has something to read.
      const page = await t.gql(HOME_PAGE, { id: viewer.id, first: 20 }, viewer.token);
      for (const edge of page.data!.user.timeline.edges.slice(0, 5)) {
        await t.gql('mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: edge.node.id }, viewer.token);
        await t.gql(
          'mutation($id: ID!) { react(postId: $id, kind: "wow") { post { id } } }',
          { id: edge.node.id },
          viewer.token,
        );
        await t.gql(
          'mutation($id: ID!) { addComment(postId: $id, text: "nice") { comment { id } } }',
          { id: edge.node.id },
          viewer.token,
        );
      }

      const small = await t.gql(HOME_PAGE, { id: viewer.id, first: 20 }, viewer.token);
      const large = await t.gql(HOME_PAGE, { id: viewer.id, first: 100 }, viewer.token);
      expect(small.errors).toBeUndefined();
      expect(large.errors).toBeUndefined();
      expect(small.data!.user.timeline.edges).toHaveLength(20);
      const liked = large.data!.user.timeline.edges.filter((e: any) => e.node.viewerHasLiked);
      expect(liked).toHaveLength(5);
      expect(
        liked.every(
          (e: any) => e.node.likeCount === 1 && e.node.commentCount === 1 && e.node.reactionCounts[0].kind === 'wow',
        ),
      ).toBe(true);
      const [reposted, original] = [
        large.data!.user.timeline.edges.filter((e: any) => e.repostedBy),
        large.data!.user.timeline.edges.filter((e: any) => !e.repostedBy),
      ];
      expect(reposted.map((e: any) => e.repostedBy.handle).sort()).toEqual(sharers.map((a) => a.handle).sort());
      expect(
        reposted.every(
          (e: any) =>
            e.repostedBy.viewerFollows &&
            e.repostedBy.followerCount === 1 &&
            e.node.repostCount === 1 &&
            e.node.author.handle === outsider.handle &&
            !e.node.author.viewerFollows,
        ),
      ).toBe(true);
      expect(original.every((e: any) => e.node.author.viewerFollows && e.node.author.followerCount === 1)).toBe(true);
      expect(small.data!.user.timeline.edges.filter((e: any) => e.repostedBy)).toHaveLength(3);

      const smallCost = small.extensions!.cost;
      const largeCost = large.extensions!.cost;
      const requests = (cost: typeof smallCost) => cost.dynamodb.requests + cost.graph.requests;
      // The goal for a home page of 20: the account check beside the skeleton Query, then one wave of
      // hydration (posts, authors, reposters, their follow counts, counters, likes and reposts in BatchGetItem;
      // the viewer's node for the flags and the rules in the graph).
      expect(smallCost.waves).toBeLessThanOrEqual(2);
      expect(requests(smallCost)).toBeLessThanOrEqual(5);
      // Constant in page size: as many waves for 100 posts as for 20. Requests grow only where the
      // hydration's keys (a post with its counts, and the authors' and reposters' profiles with their follow counts)
      // pass BatchGetItem's 100-key limit: 100 posts need ceil((100 + 16) / 100) = 2 calls. The viewer's likes and
      // reposts are one Query of their activity beside it, whatever the size.
      expect(largeCost.waves).toBe(smallCost.waves);
      const hydrationCalls = (page: typeof small) => {
        const edges = page.data!.user.timeline.edges;
        const users = new Set(
          edges.flatMap((e: any) => [e.node.author.handle, ...(e.repostedBy ? [e.repostedBy.handle] : [])]),
        ).size;
        return Math.ceil((edges.length + users) / 100);
      };
      expect(requests(largeCost) - requests(smallCost)).toBe(hydrationCalls(large) - hydrationCalls(small));
      expect(largeCost.graph.requests).toBe(smallCost.graph.requests);
      // The graph's part is one call in the hydration wave: the viewer's node, whose sets answer the follow flags and
      // the rules' blocks either way and mutes of every author (4 × 15 lookups) at once. The follow counts are on
      // the profiles, read in the hydration's BatchGetItem.
      expect(smallCost.graph.requests).toBe(1);
      expect(largeCost.dynamodb.readCapacityUnits).toBeGreaterThan(smallCost.dynamodb.readCapacityUnits);
      // Showing each author's follower count costs no read unit more: the profile holds it.
      const countless = await t.gql(
        HOME_PAGE.replaceAll(' followerCount', ''),
        { id: viewer.id, first: 20 },
        viewer.token,
      );
      expect(countless.errors).toBeUndefined();
      expect(countless.extensions!.cost.dynamodb.readCapacityUnits).toBe(smallCost.dynamodb.readCapacityUnits);

      // A mute that leaves posts out of the page: it reads one skeleton more (and hydrates it), and stays full.
      await t.gql('mutation($id: ID!) { mute(userId: $id) { user { id } } }', { id: authors[0]!.id }, viewer.token);
      const filled = await t.gql(HOME_PAGE, { id: viewer.id, first: 20 }, viewer.token);
      expect(filled.errors).toBeUndefined();
      const filledEdges = filled.data!.user.timeline.edges;
      expect(filledEdges).toHaveLength(20);
      expect(filledEdges.some((e: any) => e.node.author.handle === authors[0]!.handle)).toBe(false);
      expect(filled.extensions!.cost.waves).toBeLessThanOrEqual(smallCost.waves + 2);
    },
  );

  it("reads the outboxes of authors not fanned out in the first wave, beside one lookup of the viewer's following set", async () => {
    // No worker: what the viewer sees of the outbox authors is merged at read time.
    const hybrid = await startTestApp({
      FANOUT_MAX_FOLLOWERS: '1',
      WORKER_ENABLED: 'false',
      OUTBOX_AUTHORS_TTL_MS: '600000',
      CACHE: 'off',
    });
    try {
      const [viewer, fan, ...celebrities] = await Promise.all(Array.from({ length: 5 }, () => hybrid.signUp()));
      // Three outbox authors (two followers each), of which the viewer follows two.
      for (const celebrity of celebrities)
        await hybrid.gql(
          'mutation($id: ID!) { follow(userId: $id) { user { id } } }',
          { id: celebrity.id },
          fan!.token,
        );
      for (const celebrity of celebrities)
        await hybrid.gql(
          'mutation($id: ID!) { follow(userId: $id) { user { id } } }',
          { id: celebrity.id },
          (await hybrid.signUp()).token,
        );
      for (const celebrity of celebrities.slice(0, 2))
        await hybrid.gql(
          'mutation($id: ID!) { follow(userId: $id) { user { id } } }',
          { id: celebrity.id },
          viewer!.token,
        );
      for (const celebrity of celebrities)
        await hybrid.gql('mutation { createPost(input: { text: "famous" }) { post { id } } }', {}, celebrity.token);
      await hybrid.gql('mutation { createPost(input: { text: "own" }) { post { id } } }', {}, viewer!.token);
      await hybrid.gql(HOME_PAGE, { id: viewer!.id, first: 20 }, viewer!.token);
      const page = await hybrid.gql(HOME_PAGE, { id: viewer!.id, first: 20 }, viewer!.token);
      expect(page.errors).toBeUndefined();
      expect(page.data!.user.timeline.edges.map((e: any) => e.node.author.handle).sort()).toEqual(
        [viewer!.handle, celebrities[0]!.handle, celebrities[1]!.handle].sort(),
      );
      const cost = page.extensions!.cost;
      expect(cost.waves).toBe(2);
      // First wave: the account check, the home Query, a Query per outbox (3), and the viewer's graph node, whose
      // following set tells which outboxes to merge. Second: the hydration's BatchGetItem (the follow counts in it)
      // and its graph call (the viewer's node for the flags and the rules).
      expect(cost.dynamodb.requests + cost.graph.requests).toBe(2 + 3 + 1 + 2);
      expect(cost.graph.requests).toBe(2);
    } finally {
      await hybrid.stop();
    }
  });

  describe('stored items: graph nodes written before the relation sets, or whose following set fell behind', () => {
    it(
      'reads the edges of a viewer whose graph node is from before the relation sets, one wave later once and then beside the node, until the migration writes them',
      { timeout: 60_000 },
      async () => {
        const [viewer, author, blocker] = [await t.signUp(), await t.signUp(), await t.signUp()];
        await t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: author.id }, viewer.token);
        await t.gql('mutation($id: ID!) { block(userId: $id) { user { id } } }', { id: viewer.id }, blocker.token);
        const tag = `old${Date.now()}`;
        const post =
          'mutation($text: String!, $tag: String!) { createPost(input: { text: $text, tags: [$tag] }) { post { id } } }';
        await t.gql(post, { text: 'hello', tag }, author.token);
        await t.gql(post, { text: 'hidden', tag }, blocker.token);
        const page = () =>
          t.gql(
            'query($tag: String!) { tagTimeline(tag: $tag, first: 20) { edges { node { text author { handle viewerFollows } } } } }',
            { tag },
            viewer.token,
          );
        const shows = (result: Awaited<ReturnType<typeof page>>) => {
          const edges = result.data!.tagTimeline.edges as {
            node: { text: string; author: { handle: string; viewerFollows: boolean } };
          }[];
          return {
            hello: edges.find((e) => e.node.author.handle === author.handle)?.node.author.viewerFollows,
            hidden: edges.some((e) => e.node.author.handle === blocker.handle),
          };
        };
        const complete = await page();
        expect(shows(complete)).toEqual({ hello: true, hidden: false });
        expect(complete.extensions!.cost.waves).toBe(2);

        // As a node written before the relation sets existed: no mark, no sets.
        const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
        await client.send(
          new UpdateCommand({
            TableName: tableName(t.tablePrefix),
            Key: keys.graphNode(viewer.id),
            UpdateExpression: 'REMOVE relationSetsComplete, blockedByIds',
          }),
        );
        client.destroy();
        const old = await page();
        expect(shows(old)).toEqual({ hello: true, hidden: false });
        expect(old.extensions!.cost.waves).toBe(3);
        // This process now knows the node cannot answer: the next pages read the edges in the node's call.
        const known = await page();
        expect(shows(known)).toEqual({ hello: true, hidden: false });
        expect(known.extensions!.cost.waves).toBe(2);

        const output = await scriptOutput(t, 'graph-relation-sets');
        expect(output).toMatch(/^relation sets written on 1 graph nodes$/m);
        const migrated = await page();
        expect(shows(migrated)).toEqual({ hello: true, hidden: false });
        expect(migrated.extensions!.cost.waves).toBe(2);
      },
    );

    it(
      "reads the follow flags of a viewer whose following set cannot answer beside the viewer's node, from the second page on",
      { timeout: 60_000 },
      async () => {
        const [viewer, author, friend, other] = [
          await t.signUp(),
          await t.signUp(),
          await t.signUp(),
          await t.signUp(),
        ];
        const follow = (id: string) =>
          t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id }, viewer.token);
        await follow(author.id);
        await follow(friend.id);
        const tag = `past${Date.now()}`;
        const post =
          'mutation($text: String!, $tag: String!) { createPost(input: { text: $text, tags: [$tag] }) { post { id } } }';
        // Three authors: the viewer's node is read for the flags once they are at least three.
        for (const user of [author, friend, other]) await t.gql(post, { text: 'tagged', tag }, user.token);
        const page = () =>
          t.gql(
            'query($tag: String!) { tagTimeline(tag: $tag, first: 20) { edges { node { author { handle viewerFollows } } } } }',
            { tag },
            viewer.token,
          );
        const flags = (result: Awaited<ReturnType<typeof page>>) =>
          Object.fromEntries(
            (result.data!.tagTimeline.edges as { node: { author: { handle: string; viewerFollows: boolean } } }[]).map(
              (e) => [e.node.author.handle, e.node.author.viewerFollows],
            ),
          );
        const expected = { [author.handle]: true, [friend.handle]: true, [other.handle]: false };
        const complete = await page();
        expect(flags(complete)).toEqual(expected);
        expect(complete.extensions!.cost.waves).toBe(2);

        // As a node whose set fell behind its count, like one following more accounts than the set holds (FOLLOWING_SET_MAX).
        const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
        await client.send(
          new UpdateCommand({
            TableName: tableName(t.tablePrefix),
            Key: keys.graphNode(viewer.id),
            UpdateExpression: 'REMOVE followingIds',
          }),
        );
        client.destroy();
        const first = await page();
        expect(flags(first)).toEqual(expected);
        expect(first.extensions!.cost.waves).toBe(3);
        const next = await page();
        expect(flags(next)).toEqual(expected);
        expect(next.extensions!.cost.waves).toBe(2);
        // A follow made since (added to the set, which still falls short of the count) shows on the next page.
        await follow(other.id);
        const after = await page();
        expect(flags(after)).toEqual({ ...expected, [other.handle]: true });
        expect(after.extensions!.cost.waves).toBe(2);
      },
    );
  });

  it('reads an author page, a tag timeline and the public timeline in two waves and as many requests, whatever their size', async () => {
    const viewer = await t.signUp();
    const author = await t.signUp();
    await t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: author.id }, viewer.token);
    const tag = `wave${Date.now()}`;
    for (let i = 0; i < 25; i++)
      await t.gql(
        'mutation($text: String!, $tag: String!) { createPost(input: { text: $text, tags: [$tag] }) { post { id } } }',
        { text: `p${i}`, tag },
        author.token,
      );
    const node = 'edges { node { id author { handle followerCount viewerFollows } likeCount viewerHasLiked } }';
    const pages = {
      author: `query($id: ID!, $first: Int!) { user(id: $id) { posts(first: $first) { ${node} } } }`,
      tag: `query($tag: String!, $first: Int!) { tagTimeline(tag: $tag, first: $first) { ${node} } }`,
      public: `query($first: Int!) { publicTimeline(first: $first) { ${node} } }`,
    };
    // DynamoDB: the account check (with the author, on an author page), the skeleton (its posts and reposts, one Query each; a Query per each of the
    // 4 timeline shards) and the hydration (a BatchGetItem, and a Query of the viewer's activity for viewerHasLiked). Graph: an author page's flag and blocks are 3 edges, one call; a tag or
    // public page's rules add the viewer's mute, and 3 lookups about the viewer read its node, beside the flag's edge.
    const requests = {
      author: { dynamodb: 5, graph: 1 },
      tag: { dynamodb: 7, graph: 2 },
      public: { dynamodb: 7, graph: 2 },
    };
    for (const [name, query] of Object.entries(pages)) {
      for (const first of [5, 25]) {
        const result = await t.gql(query, { id: author.id, tag, first }, viewer.token);
        expect(result.errors, name).toBeUndefined();
        const cost = result.extensions!.cost;
        expect(
          { dynamodb: cost.dynamodb.requests, graph: cost.graph.requests, waves: cost.waves },
          `${name}, ${first} posts`,
        ).toEqual({
          ...requests[name as keyof typeof pages],
          waves: 2,
        });
      }
    }
    const authorPage = await t.gql(pages.author, { id: author.id, first: 25 }, viewer.token);
    const edges = authorPage.data!.user.posts.edges;
    expect(edges).toHaveLength(25);
    expect(
      edges.every(
        (e: any) =>
          e.node.author.handle === author.handle &&
          e.node.author.followerCount === 1 &&
          e.node.author.viewerFollows &&
          e.node.likeCount === 0,
      ),
    ).toBe(true);
  });

  it("reads a profile's counts and flags beside the user's own lookup, and a follow's payload in one wave after the write", async () => {
    const [viewer, author, fan] = await Promise.all([t.signUp(), t.signUp(), t.signUp()]);
    await t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: author.id }, fan.token);
    const profile =
      'user(id: $id) { handle followerCount followingCount viewerFollows followsViewer viewerBlocks viewerMutes }';
    const byId = await t.gql(`query($id: ID!) { ${profile} }`, { id: author.id }, viewer.token);
    const shape = (answer: typeof byId) => ({
      dynamodb: answer.extensions!.cost.dynamodb.requests,
      graph: answer.extensions!.cost.graph.requests,
      waves: answer.extensions!.cost.waves,
    });
    expect(byId.errors).toBeUndefined();
    expect(byId.data!.user).toMatchObject({
      handle: author.handle,
      followerCount: 1,
      followingCount: 0,
      viewerFollows: false,
      followsViewer: false,
    });
    // One wave: the account check and the user with its counts are one BatchGetItem; the flags
    // and the viewer's block and mute of the user (only the directions selected) are one graph request beside it.
    expect(shape(byId)).toEqual({ dynamodb: 1, graph: 1, waves: 1 });
    const anonymous = await t.gql(`query($id: ID!) { ${profile} }`, { id: author.id });
    const own = await t.gql('{ viewer { handle followerCount viewerFollows viewerBlocks } }', {}, viewer.token);
    const byHandle = await t.gql(
      'query($handle: String!) { user(handle: $handle) { followerCount viewerFollows } }',
      { handle: author.handle },
      viewer.token,
    );
    // Anonymous: the flags are false without a lookup, so the user and its counts are the one request.
    expect(anonymous.data!.user).toMatchObject({ followerCount: 1, viewerFollows: false, viewerBlocks: false });
    expect(shape(anonymous)).toEqual({ dynamodb: 1, graph: 0, waves: 1 });
    // The viewer's own profile: the account check is the user's lookup, its counts join it; no block lookup about oneself.
    expect(own.data!.viewer).toMatchObject({ followerCount: 0, viewerFollows: false, viewerBlocks: false });
    expect(shape(own)).toEqual({ dynamodb: 1, graph: 1, waves: 1 });
    // By handle: the handle's claim first, then the same single wave.
    expect(byHandle.data!.user).toEqual({ followerCount: 1, viewerFollows: false });
    expect(shape(byHandle)).toEqual({ dynamodb: 2, graph: 1, waves: 2 });
    // What @skip or @include leaves out is not looked ahead for: no counts, no graph request.
    const skipped = await t.gql(
      'query($id: ID!, $show: Boolean!) { user(id: $id) { handle followerCount @skip(if: true) ... on User @include(if: $show) { viewerFollows viewerMutes } } }',
      { id: author.id, show: false },
      viewer.token,
    );
    expect(skipped.errors).toBeUndefined();
    expect(skipped.data!.user).toEqual({ handle: author.handle });
    expect(shape(skipped)).toEqual({ dynamodb: 1, graph: 0, waves: 1 });
    expect(skipped.extensions!.cost.dynamodb.readCapacityUnits).toBe(1);

    // A follow's payload after the write: the two users, then their counts and the flags, strongly consistent, in one
    // graph request — one request and one wave more than a payload that shows none of them.
    const other = await t.signUp();
    const plain = await t.gql(
      'mutation($id: ID!) { follow(userId: $id) { user { id } viewer { id } } }',
      { id: other.id },
      viewer.token,
    );
    const followed = await t.gql(
      'mutation($id: ID!) { follow(userId: $id) { user { followerCount viewerFollows followsViewer } viewer { followingCount } } }',
      { id: author.id },
      viewer.token,
    );
    expect(followed.data!.follow).toEqual({
      user: { followerCount: 2, viewerFollows: true, followsViewer: false },
      viewer: { followingCount: 2 },
    });
    const [before, after] = [plain, followed].map(shape);
    expect({
      dynamodb: after!.dynamodb - before!.dynamodb,
      graph: after!.graph - before!.graph,
      waves: after!.waves - before!.waves,
    }).toEqual({
      dynamodb: 0,
      graph: 1,
      waves: 1,
    });
  });

  it(
    "reads a post's comments with their replies two levels deep in a wave per level, and a comment's ancestors in one batch, whatever the page size",
    { timeout: 120_000 },
    async () => {
      const [author, ...repliers] = await Promise.all(Array.from({ length: 4 }, () => t.signUp()));
      const post = (
        await t.gql('mutation { createPost(input: { text: "thread" }) { post { id } } }', {}, author!.token)
      ).data!.createPost.post.id;
      const add = async (token: string, text: string, replyTo?: string) => {
        const added = await t.gql(
          'mutation($p: ID!, $t: String!, $r: ID) { addComment(postId: $p, text: $t, replyTo: $r) { comment { id } } }',
          { p: post, t: text, r: replyTo },
          token,
        );
        return added.data!.addComment.comment.id as string;
      };
      const tops: string[] = [];
      for (let i = 0; i < 12; i++) tops.push(await add(repliers[i % 3]!.token, `top ${i}`));
      // Two replies to each, and one reply to each of those: 60 comments in all, by four authors.
      const seconds = (
        await Promise.all(
          tops.map((top, i) =>
            Promise.all([add(repliers[(i + 1) % 3]!.token, 'r', top), add(author!.token, 'r', top)]),
          ),
        )
      ).flat();
      const thirds = await Promise.all(seconds.map((second, i) => add(repliers[i % 3]!.token, 'rr', second)));

      const node = 'id text createdAt replyCount author { handle }';
      const page = (first: number) =>
        t.gql(
          `query($id: ID!, $first: Int!) { post(id: $id) { commentCount comments(first: $first) { edges { node { ${node} replies(first: 2) { edges { node { ${node} replies(first: 2) { edges { node { ${node} } } } } } } } } } } }`,
          { id: post, first },
          repliers[0]!.token,
        );
      const [small, large] = [await page(4), await page(12)];
      expect(small.errors).toBeUndefined();
      expect(large.errors).toBeUndefined();
      expect(large.data!.post.commentCount).toBe(60);
      const edges = large.data!.post.comments.edges;
      expect(edges).toHaveLength(12);
      expect(
        edges.every(
          (e: any) =>
            e.node.replies.edges.length === 2 &&
            e.node.replies.edges.every((r: any) => r.node.replies.edges.length === 1),
        ),
      ).toBe(true);
      const requests = (cost: any) => cost.dynamodb.requests + cost.graph.requests;
      const [smallCost, largeCost] = [small.extensions!.cost, large.extensions!.cost];
      // The account check beside the post; its top-level comments beside the viewer's blocks (one graph read, which the
      // rules of every level use); each level's replies (one Query for the whole page) beside the authors of the level
      // above; the last level's authors.
      expect(smallCost.waves).toBe(4);
      expect(largeCost.waves).toBe(smallCost.waves);
      expect(requests(largeCost)).toBe(requests(smallCost));
      expect(requests(smallCost)).toBeLessThanOrEqual(8);
      expect(smallCost.graph.requests).toBe(1);

      // A reply two levels down with its ancestors and post: the comment beside the viewer's blocks, then the whole chain
      // and the post in one batch, then their authors.
      const context = await t.gql(
        'query($id: ID!) { comment(id: $id) { id text parent { id text author { handle } parent { id text author { handle } } } post { id text } } }',
        { id: thirds[0] },
        repliers[0]!.token,
      );
      expect(context.errors).toBeUndefined();
      expect(context.data!.comment.parent.parent.id).toBe(tops[0]);
      expect(context.extensions!.cost.waves).toBeLessThanOrEqual(3);
    },
  );

  it('costs one request per field lookup with batching turned off (the naive baseline)', async () => {
    const naive = await startTestApp({ BATCHING: 'false', WORKER_ENABLED: 'false', CACHE: 'off' });
    try {
      const viewer = await naive.signUp();
      const authors = await Promise.all(Array.from({ length: 3 }, () => naive.signUp()));
      await Promise.all(
        authors.map((a) => naive.gql('mutation { createPost(input: { text: "hi" }) { post { id } } }', {}, a.token)),
      );
      const result = await naive.gql(
        '{ publicTimeline(first: 3) { edges { node { author { handle followerCount viewerFollows } likeCount commentCount } } } }',
        {},
        viewer.token,
      );
      expect(result.errors).toBeUndefined();
      expect(result.data!.publicTimeline.edges).toHaveLength(3);
      // A viewer of the batched service's own: a token is only good where its account exists.
      const batched = await t.gql(
        '{ publicTimeline(first: 3) { edges { node { author { handle followerCount viewerFollows } likeCount commentCount } } } }',
        {},
        (await t.signUp()).token,
      );
      expect(result.extensions!.cost.dynamodb.requests).toBeGreaterThan(batched.extensions!.cost.dynamodb.requests);
      // Three posts, each looked up alone: its author, its counters (read once per counter field), the author's follow
      // counts (a DynamoDB read, as in the batched service) and the viewer's follow of the author (1 graph request), and
      // for the rules the blocks both ways and the viewer's mute of each author (3).
      expect(result.extensions!.cost.graph.requests).toBe(3 * (1 + 3));
    } finally {
      await naive.stop();
    }
  });
});
