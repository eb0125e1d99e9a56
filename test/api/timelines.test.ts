import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { idTime } from '../../src/domain/ids.js';
import { type Key, keys, partitions, tableName } from '../../src/stores/dynamo/keys.js';
import { shardOf } from '../../src/stores/dynamo/shards.js';
import { errorCodes, startTestApp, type TestApp } from '../helpers/app.js';
import {
  createPost,
  follow,
  homeIds,
  newestFirst,
  publicIds,
  tagIds,
  unfollow,
  idsOfEveryPage,
} from '../helpers/posts.js';
import { waitForQueueToDrain, WORKER_WAIT } from '../helpers/queue.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ FOLLOW_BACKFILL_POSTS: '5', QUEUE_POLL_MS: '50' });
});
afterAll(async () => {
  await t.stop();
});

type User = Awaited<ReturnType<TestApp['signUp']>>;

async function signUpMany(app: TestApp, n: number): Promise<User[]> {
  return Promise.all(Array.from({ length: n }, () => app.signUp()));
}

/** How often `postId` appears in the home timeline of each user. */
async function occurrences(app: TestApp, users: readonly User[], postId: string): Promise<number[]> {
  return Promise.all(users.map(async (user) => (await homeIds(app, user)).filter((id) => id === postId).length));
}

describe('home timeline', () => {
  // 52 sign-ups, 50 follows and their backfills before the post: slow on a loaded two-core machine.
  it(
    'delivers a post to every one of 50 followers exactly once, and to nobody else',
    { timeout: 120_000 },
    async () => {
      const author = await t.signUp();
      const followers = await signUpMany(t, 50);
      const stranger = await t.signUp();
      await Promise.all(followers.map((f) => follow(t, f.token, author.id)));
      const postId = await createPost(t, author.token, 'to all my followers');

      await expect
        .poll(() => occurrences(t, followers, postId), { ...WORKER_WAIT, timeout: 100_000 })
        .toEqual(followers.map(() => 1));
      await waitForQueueToDrain(t);
      expect(await homeIds(t, stranger)).toEqual([]);
      expect(await homeIds(t, author)).toEqual([postId]);
    },
  );

  it('is readable only by its owner; a refusal nulls the timeline alone, not the user', async () => {
    const owner = await t.signUp();
    const other = await t.signUp();
    const query = 'query($id: ID!) { user(id: $id) { timeline { edges { cursor } } } }';
    const forbidden = await t.gql(
      'query($id: ID!) { user(id: $id) { handle timeline { edges { cursor } } } }',
      { id: owner.id },
      other.token,
    );
    expect(errorCodes(forbidden)).toEqual(['FORBIDDEN']);
    expect(forbidden.errors![0]!.path).toEqual(['user', 'timeline']);
    expect(forbidden.data).toEqual({ user: { handle: owner.handle, timeline: null } });
    expect(errorCodes(await t.gql(query, { id: owner.id }))).toEqual(['UNAUTHENTICATED']);
    expect((await t.gql(query, { id: owner.id }, owner.token)).data!.user.timeline.edges).toEqual([]);
  });

  it('merges own posts and followed authors’ posts newest first', async () => {
    const [reader, a, b] = await signUpMany(t, 3);
    await follow(t, reader!.token, a!.id);
    await follow(t, reader!.token, b!.id);
    const ids: string[] = [];
    for (const user of [a!, reader!, b!, a!, b!]) ids.push(await createPost(t, user.token, `by ${user.handle}`));
    await expect.poll(() => homeIds(t, reader!, 2), WORKER_WAIT).toEqual(newestFirst(ids));
  });

  it('backfills the newest posts of a new followee (FOLLOW_BACKFILL_POSTS) and removes them on unfollow', async () => {
    const [reader, author, other] = await signUpMany(t, 3);
    const authored: string[] = [];
    for (let i = 0; i < 7; i++) authored.push(await createPost(t, author!.token, `old ${i}`));
    await follow(t, reader!.token, other!.id);
    const otherPost = await createPost(t, other!.token, 'stays');
    const ownPost = await createPost(t, reader!.token, 'mine');
    await expect.poll(() => homeIds(t, reader!), WORKER_WAIT).toEqual(newestFirst([otherPost, ownPost]));

    await follow(t, reader!.token, author!.id);
    const newest5 = newestFirst(authored).slice(0, 5);
    await expect.poll(() => homeIds(t, reader!), WORKER_WAIT).toEqual(newestFirst([...newest5, otherPost, ownPost]));

    await unfollow(t, reader!.token, author!.id);
    await waitForQueueToDrain(t);
    expect(await homeIds(t, reader!)).toEqual(newestFirst([otherPost, ownPost]));
  });

  it('backfills on a retried follow whose first attempt died between the graph write and the task', async () => {
    const [reader, author] = await signUpMany(t, 2);
    const post = await createPost(t, author!.token, 'worth seeing');
    // Once the queue is empty the post's fan-out is over and cannot reach the reader.
    await waitForQueueToDrain(t);
    // The first attempt's graph write, with no task after it: what a crash at that moment leaves.
    await t.app.stores.graph.follow(reader!.id, author!.id, new Date().toISOString());
    await waitForQueueToDrain(t);
    expect(await homeIds(t, reader!)).toEqual([]);

    await follow(t, reader!.token, author!.id);
    await expect.poll(() => homeIds(t, reader!), WORKER_WAIT).toEqual([post]);
    const counts = await t.gql('query($id: ID!) { user(id: $id) { followerCount } }', { id: author!.id });
    expect(counts.data!.user.followerCount).toBe(1);
  });

  it('removes a deleted post from every timeline it reached', async () => {
    const author = await t.signUp();
    const followers = await signUpMany(t, 5);
    await Promise.all(followers.map((f) => follow(t, f.token, author.id)));
    const kept = await createPost(t, author.token, 'kept', ['deletion_test']);
    const doomed = await createPost(t, author.token, 'doomed', ['deletion_test']);
    await expect.poll(() => occurrences(t, followers, doomed), WORKER_WAIT).toEqual(followers.map(() => 1));
    expect(await tagIds(t, 'deletion_test')).toEqual([doomed, kept]);

    await t.gql('mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }', { id: doomed }, author.token);
    await waitForQueueToDrain(t);
    expect(await occurrences(t, followers, doomed)).toEqual(followers.map(() => 0));
    expect(await occurrences(t, followers, kept)).toEqual(followers.map(() => 1));
    expect(await tagIds(t, 'deletion_test')).toEqual([kept]);
    expect(await publicIds(t)).not.toContain(doomed);
  });
});

describe('paging', () => {
  it('walks every timeline kind page by page while new posts arrive, returning each earlier post exactly once, in order', async () => {
    const [reader, author] = await signUpMany(t, 2);
    await follow(t, reader!.token, author!.id);
    const tag = `walk_${Date.now()}`;
    const existing: string[] = [];
    for (let i = 0; i < 23; i++) existing.push(await createPost(t, (i % 3 ? author : reader)!.token, `p${i}`, [tag]));
    await expect.poll(() => homeIds(t, reader!), WORKER_WAIT).toHaveLength(23);

    const walks: Record<string, (after: string | null) => Promise<any>> = {
      home: async (after) =>
        (
          await t.gql(
            'query($id: ID!, $after: String) { user(id: $id) { timeline(first: 4, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } } }',
            { id: reader!.id, after },
            reader!.token,
          )
        ).data!.user.timeline,
      tag: async (after) =>
        (
          await t.gql(
            'query($tag: String!, $after: String) { tagTimeline(tag: $tag, first: 4, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }',
            { tag, after },
          )
        ).data!.tagTimeline,
      author: async (after) =>
        (
          await t.gql(
            'query($id: ID!, $after: String) { user(id: $id) { posts(first: 4, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } } }',
            {
              id: author!.id,
              after,
            },
          )
        ).data!.user.posts,
    };
    for (const [name, fetchPage] of Object.entries(walks)) {
      const before = await idsOfEveryPage(fetchPage);
      expect(
        before.filter((id) => existing.includes(id)),
        name,
      ).toEqual(name === 'author' ? newestFirst(existing.filter((_, i) => i % 3)) : newestFirst(existing));
      const during: string[] = [];
      const pages: string[][] = [];
      await idsOfEveryPage(async (after) => {
        // A new post before every page: newer than the walk's position, so never part of the rest of the walk.
        during.push(
          await createPost(t, (during.length % 2 ? author : reader)!.token, `during ${name} ${during.length}`, [tag]),
        );
        const page = await fetchPage(after);
        pages.push(page.edges.map((edge: { node: { id: string } }) => edge.node.id));
        return page;
      });
      const seen = pages.flat();
      expect(
        seen.filter((id) => !during.includes(id)),
        name,
      ).toEqual(before);
      // A post created during the walk can only show up on the first page, ahead of everything the walk started with.
      expect(
        pages
          .slice(1)
          .flat()
          .filter((id) => during.includes(id)),
        name,
      ).toEqual([]);
    }
  });

  it('defaults to 20 per page and allows 1-100', async () => {
    const author = await t.signUp();
    for (let i = 0; i < 21; i++) await createPost(t, author.token, `n${i}`);
    const page = await t.gql(
      'query($id: ID!) { user(id: $id) { posts { edges { cursor } pageInfo { hasNextPage } } } }',
      { id: author.id },
    );
    expect(page.data!.user.posts.edges).toHaveLength(20);
    expect(page.data!.user.posts.pageInfo.hasNextPage).toBe(true);
    for (const first of [0, 101]) {
      const bad = await t.gql('query($first: Int) { publicTimeline(first: $first) { edges { cursor } } }', { first });
      expect(errorCodes(bad)).toEqual(['BAD_USER_INPUT']);
    }
  });
});

describe('tag and public timelines', () => {
  it('lists posts by tag, case-insensitively, and every post publicly, newest first across shards', async () => {
    const [a, b] = await signUpMany(t, 2);
    const tag = `topic_${Date.now()}`;
    const tagged: string[] = [];
    const all: string[] = [];
    for (let i = 0; i < 12; i++) {
      const withTag = i % 2 === 0;
      const id = await createPost(
        t,
        (i % 3 ? a : b)!.token,
        `post ${i}`,
        withTag ? [tag.toUpperCase(), 'other'] : ['other'],
      );
      all.push(id);
      if (withTag) tagged.push(id);
    }
    expect(await tagIds(t, tag, 1)).toEqual(newestFirst(tagged));
    expect(await tagIds(t, tag.toUpperCase(), 5)).toEqual(newestFirst(tagged));
    const everything = await publicIds(t, 7);
    expect(new Set(everything).size).toBe(everything.length);
    expect(everything).toEqual(newestFirst(everything));
    expect(everything.slice(0, 12)).toEqual(newestFirst(all));
  });

  it('reads a page with the same few backend requests whatever its size', async () => {
    const authors = await signUpMany(t, 10);
    const tag = `cost_${Date.now()}`;
    for (let i = 0; i < 30; i++) await createPost(t, authors[i % 10]!.token, `cost ${i}`, [tag]);
    const requests = async (first: number) => {
      const result = await t.gql(
        'query($tag: String!, $first: Int) { tagTimeline(tag: $tag, first: $first) { edges { node { id text author { handle } } } } }',
        { tag, first },
      );
      expect(result.data!.tagTimeline.edges).toHaveLength(first);
      return result.extensions!.cost.dynamodb.requests as number;
    };
    const small = await requests(2);
    expect(await requests(30)).toBe(small);
  });

  it('refuses a malformed tag', async () => {
    const result = await t.gql('{ tagTimeline(tag: "no spaces") { edges { cursor } } }');
    expect(errorCodes(result)).toEqual(['BAD_USER_INPUT']);
  });
});

describe('home timeline retention', () => {
  const DAY_MS = 24 * 3600 * 1000;
  const EDGES = 'edges { cursor node { id } repostedBy { id } } pageInfo { hasNextPage hasPreviousPage startCursor }';
  type Page = {
    edges: { cursor: string; node: { id: string }; repostedBy: { id: string } | null }[];
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null };
  };

  it('shows posts from the last HOME_RETENTION_DAYS only, paging forwards and backwards, outboxes too', async () => {
    // The app's clock, moved instead of waiting: null is the real time.
    let frozen: number | null = null;
    const app = await startTestApp(
      { HOME_RETENTION_DAYS: '1', FANOUT_MAX_FOLLOWERS: '1', FOLLOW_BACKFILL_POSTS: '10', QUEUE_POLL_MS: '50' },
      { clock: () => frozen ?? Date.now() },
    );
    const client = createDocumentClient({ endpoint: app.endpoint, tableName: tableName(app.tablePrefix) });
    try {
      const [reader, author, celebrity, fan, reposter, late] = await signUpMany(app, 6);
      // The celebrity has two followers, past FANOUT_MAX_FOLLOWERS: their posts are merged from their outbox.
      for (const followee of [author!, celebrity!, reposter!]) await follow(app, reader!.token, followee.id);
      await follow(app, fan!.token, celebrity!.id);
      const page = async (args: { first: number; after?: string } | { last: number; before: string }) => {
        const slice = 'last' in args ? 'last: $n, before: $cursor' : 'first: $n, after: $cursor';
        const result = await app.gql(
          `query($id: ID!, $n: Int, $cursor: String) { user(id: $id) { timeline(${slice}) { ${EDGES} } } }`,
          {
            id: reader!.id,
            n: 'last' in args ? args.last : args.first,
            cursor: 'last' in args ? args.before : (args.after ?? null),
          },
          reader!.token,
        );
        expect(result.errors).toBeUndefined();
        return result.data!.user.timeline as Page;
      };
      const ids = (p: Page) => p.edges.map((edge) => edge.node.id);

      const old = [
        await createPost(app, author!.token, 'old 1'),
        await createPost(app, celebrity!.token, 'old outbox'),
        await createPost(app, reader!.token, 'old own'),
        await createPost(app, author!.token, 'old 2'),
      ];
      await waitForQueueToDrain(app);
      const before = await page({ first: 10 });
      expect(ids(before)).toEqual(newestFirst(old));
      const oldestCursor = before.edges.at(-1)!.cursor;
      // The horizon will fall between the old posts and the new ones.
      await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(idTime(old.at(-1)!)));
      const horizon = Date.now();
      const fresh = [
        await createPost(app, author!.token, 'new 1'),
        await createPost(app, celebrity!.token, 'new outbox'),
        await createPost(app, reader!.token, 'new own'),
        await createPost(app, author!.token, 'new 2'),
      ];
      await waitForQueueToDrain(app);
      expect(ids(await page({ first: 20 }))).toEqual(newestFirst([...fresh, ...old]));

      // A day later to the millisecond. The old posts' entries are still stored: their expiry is a real day away.
      frozen = horizon + DAY_MS;
      const stored = async (userId: string) =>
        (
          await client.send(
            new QueryCommand({
              TableName: tableName(app.tablePrefix),
              KeyConditionExpression: 'pk = :pk',
              ExpressionAttributeValues: { ':pk': partitions.home(userId) },
            }),
          )
        ).Items!.map((item) => item.sk as string);
      expect(await stored(reader!.id)).toEqual(expect.arrayContaining([old[0], old[2], old[3]]));
      const newest = newestFirst(fresh);
      expect(await homeIds(app, reader!)).toEqual(newest);
      expect(await homeIds(app, reader!, 1)).toEqual(newest);
      const full = await page({ first: 4 });
      expect(ids(full)).toEqual(newest);
      expect(full.pageInfo.hasNextPage).toBe(false);
      const onwards = await page({ first: 10, after: full.edges.at(-1)!.cursor });
      expect(onwards.edges).toEqual([]);
      expect(onwards.pageInfo.hasNextPage).toBe(false);
      // Backwards from the oldest entry: what is newer than it, within the retention, oldest first.
      const newer = await page({ last: 2, before: oldestCursor });
      expect(ids(newer)).toEqual(newestFirst(fresh).slice(2));
      expect(newer.pageInfo.hasPreviousPage).toBe(true);
      const newerStill = await page({ last: 10, before: newer.pageInfo.startCursor! });
      expect(ids(newerStill)).toEqual(newest.slice(0, 2));
      expect(newerStill.pageInfo.hasPreviousPage).toBe(false);

      // A repost of an old post is new: it shows at the top, though the post's old entry is still stored.
      await app.gql('mutation($id: ID!) { repost(postId: $id) { post { id } } }', { id: old[0] }, reposter!.token);
      await waitForQueueToDrain(app);
      const reposted = await page({ first: 10 });
      expect(ids(reposted)).toEqual([old[0], ...newest]);
      expect(reposted.edges[0]!.repostedBy).toEqual({ id: reposter!.id });

      // A follow copies only the followee's posts within the retention.
      await follow(app, late!.token, author!.id);
      await waitForQueueToDrain(app);
      expect(await homeIds(app, late!)).toEqual([fresh[3], fresh[0]]);
      expect(await stored(late!.id)).toEqual([fresh[0], fresh[3]]);
    } finally {
      client.destroy();
      await app.stop();
    }
  });
});

describe('stored items: home entries', () => {
  it('carry their expiry (expiresAt, epoch seconds): their position + HOME_RETENTION_DAYS, markers as their entry', async () => {
    const [reader, author, reposter] = await signUpMany(t, 3);
    await follow(t, reader!.token, author!.id);
    await follow(t, reader!.token, reposter!.id);
    const posts = [await createPost(t, author!.token, 'expiring'), await createPost(t, author!.token, 'reposted')];
    // The reader has the post already (the repost adds a reason); the reposter's own timeline gets an entry and a marker.
    await t.gql('mutation($id: ID!) { repost(postId: $id) { post { id } } }', { id: posts[1] }, reposter!.token);
    await waitForQueueToDrain(t);
    const retentionMs = t.app.config.homeRetentionDays * 24 * 3600 * 1000;
    const due = (position: string) => Math.ceil((idTime(position) + retentionMs) / 1000);
    const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
    const items = async (pk: string) =>
      (
        await client.send(
          new QueryCommand({
            TableName: tableName(t.tablePrefix),
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': pk },
          }),
        )
      ).Items!;
    try {
      for (const user of [reader!, author!]) {
        expect((await items(partitions.home(user.id))).map((item) => [item.sk, item.expiresAt])).toEqual(
          posts.map((id) => [id, due(id)]),
        );
      }
      const [entry, ...moreEntries] = await items(partitions.home(reposter!.id));
      const [marker, ...moreMarkers] = await items(partitions.homeMarkers(reposter!.id));
      expect([moreEntries, moreMarkers]).toEqual([[], []]);
      expect(entry!.sk).not.toBe(posts[1]);
      expect(marker).toMatchObject({ sk: posts[1], position: entry!.sk, expiresAt: due(entry!.sk as string) });
      expect(entry!.expiresAt).toBe(due(entry!.sk as string));
    } finally {
      client.destroy();
    }
  });
});

describe('hybrid fan-out', () => {
  it('merges posts of authors over FANOUT_MAX_FOLLOWERS at read time, in the same order and pages', async () => {
    // No worker: whatever a follower sees at once was merged at read time, not fanned out.
    const hybrid = await startTestApp({ FANOUT_MAX_FOLLOWERS: '2', WORKER_ENABLED: 'false' });
    try {
      const [reader, celebrity, stranger, ...fans] = await signUpMany(hybrid, 5);
      for (const fan of [reader!, ...fans]) await follow(hybrid, fan.token, celebrity!.id);
      const own: string[] = [];
      const famous: string[] = [];
      for (let i = 0; i < 4; i++) {
        famous.push(await createPost(hybrid, celebrity!.token, `famous ${i}`));
        own.push(await createPost(hybrid, reader!.token, `own ${i}`));
      }
      const expected = newestFirst([...famous, ...own]);
      expect(await homeIds(hybrid, reader!)).toEqual(expected);
      expect(await homeIds(hybrid, reader!, 3)).toEqual(expected);
      // The outboxes are read beside the check of which of their authors the reader follows: still two waves.
      const page = await hybrid.gql(
        'query($id: ID!) { user(id: $id) { timeline { edges { node { text author { handle } } } } } }',
        { id: reader!.id },
        reader!.token,
      );
      expect(page.data!.user.timeline.edges).toHaveLength(8);
      expect(page.extensions!.cost.waves).toBe(2);
      expect(await homeIds(hybrid, fans[0]!)).toEqual(newestFirst(famous));
      expect(await homeIds(hybrid, stranger!)).toEqual([]);
      expect(await homeIds(hybrid, celebrity!)).toEqual(newestFirst(famous));
      // A follow shows the outbox on the very next page, and an unfollow hides it: the check reads the follower's following set strongly consistent.
      await follow(hybrid, stranger!.token, celebrity!.id);
      expect(await homeIds(hybrid, stranger!)).toEqual(newestFirst(famous));
      await unfollow(hybrid, stranger!.token, celebrity!.id);
      expect(await homeIds(hybrid, stranger!)).toEqual([]);

      await unfollow(hybrid, reader!.token, celebrity!.id);
      expect(await homeIds(hybrid, reader!)).toEqual(newestFirst(own));

      await hybrid.gql(
        'mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }',
        { id: famous[0] },
        celebrity!.token,
      );
      expect(await homeIds(hybrid, fans[0]!)).toEqual(newestFirst(famous.slice(1)));
    } finally {
      await hybrid.stop();
    }
  });
});

describe('pages that lose entries', () => {
  it('read further to stay full, and still lead on when more entries than the extra reads cover were deleted before the cleanup ran', async () => {
    // No worker: the deleted posts' public entries stay until a cleanup would remove them.
    const quiet = await startTestApp({ WORKER_ENABLED: 'false' });
    try {
      const [author] = await signUpMany(quiet, 1);
      const older = await createPost(quiet, author!.token, 'older');
      const middle = await createPost(quiet, author!.token, 'middle');
      // A page of 1 reads 1 + 3 entries at most: these four fill all of them.
      const deleted = [];
      for (let i = 0; i < 4; i++) deleted.push(await createPost(quiet, author!.token, `deleted ${i}`));
      const newest = await createPost(quiet, author!.token, 'newest');
      deleted.push(await createPost(quiet, author!.token, 'deleted newest'));
      for (const id of deleted)
        await quiet.gql('mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }', { id }, author!.token);

      const PAGE =
        'query($after: String) { publicTimeline(first: 1, after: $after) { edges { node { id } } pageInfo { hasNextPage endCursor } } }';
      const page = async (after: string | null) => (await quiet.gql(PAGE, { after })).data!.publicTimeline;
      // One deleted entry: the page reads one more and is full.
      const first = await page(null);
      expect(first.edges).toEqual([{ node: { id: newest } }]);
      expect(first.pageInfo.hasNextPage).toBe(true);
      // Four deleted entries: the extra reads run out, and the empty page leads on past them.
      const second = await page(first.pageInfo.endCursor);
      expect(second.edges).toEqual([]);
      expect(second.pageInfo.hasNextPage).toBe(true);
      expect(second.pageInfo.endCursor).toEqual(expect.any(String));
      const third = await page(second.pageInfo.endCursor);
      expect(third.edges).toEqual([{ node: { id: middle } }]);
      const fourth = await page(third.pageInfo.endCursor);
      expect(fourth.edges).toEqual([{ node: { id: older } }]);
      expect(fourth.pageInfo.hasNextPage).toBe(false);
    } finally {
      await quiet.stop();
    }
  });
});

describe('stored items: entries written before they carried their author and counter shards', () => {
  it('read as before, their post looked up first', async () => {
    const author = await t.signUp();
    const reader = await t.signUp();
    await follow(t, reader.token, author.id);
    const tag = `legacy${Date.now()}`;
    const [old, current] = [
      await createPost(t, author.token, 'old', [tag]),
      await createPost(t, author.token, 'current', [tag]),
    ];
    await t.gql('mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: old }, reader.token);
    await expect.poll(() => homeIds(t, reader), WORKER_WAIT).toEqual([current, old]);

    // As entries were stored before: the post id and (not every kind) the author, no counter shards.
    const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
    const strip = (key: Key, attributes: string) =>
      client.send(
        new UpdateCommand({ TableName: tableName(t.tablePrefix), Key: key, UpdateExpression: `REMOVE ${attributes}` }),
      );
    try {
      await strip(keys.homeEntry(reader.id, old), 'counterShards');
      await strip(keys.authorPost(author.id, old), 'counterShards, authorId');
      await strip(keys.tagEntry(tag, shardOf(old, t.app.config.timelineShards), old), 'counterShards, authorId');
    } finally {
      client.destroy();
    }

    const node = 'edges { node { text likeCount viewerHasLiked author { handle followerCount viewerFollows } } }';
    const expected = [
      {
        text: 'current',
        likeCount: 0,
        viewerHasLiked: false,
        author: { handle: author.handle, followerCount: 1, viewerFollows: true },
      },
      {
        text: 'old',
        likeCount: 1,
        viewerHasLiked: true,
        author: { handle: author.handle, followerCount: 1, viewerFollows: true },
      },
    ];
    // Read through an instance without the cache, which would answer the post lookup without a wave
    // (after one read that fills its list of authors not fanned out, which a new instance reads first).
    const uncached = await startTestApp({ CACHE: 'off', TABLE_PREFIX: t.tablePrefix, WORKER_ENABLED: 'false' });
    const [home, posts, tagged] = await (async () => {
      try {
        await homeIds(uncached, reader);
        return [
          await uncached.gql(
            `query($id: ID!) { user(id: $id) { timeline { ${node} } } }`,
            { id: reader.id },
            reader.token,
          ),
          await uncached.gql(
            `query($id: ID!) { user(id: $id) { posts { ${node} } } }`,
            { id: author.id },
            reader.token,
          ),
          await uncached.gql(`query($tag: String!) { tagTimeline(tag: $tag) { ${node} } }`, { tag }, reader.token),
        ];
      } finally {
        await uncached.stop();
      }
    })();
    expect(home.data!.user.timeline.edges.map((e: any) => e.node)).toEqual(expected);
    expect(posts.data!.user.posts.edges.map((e: any) => e.node)).toEqual(expected);
    expect(tagged.data!.tagTimeline.edges.map((e: any) => e.node)).toEqual(expected);
    // The lookup of what the entry lacks is the one wave more that storing it on the entry saves.
    for (const result of [home, posts, tagged]) expect(result.extensions!.cost.waves).toBe(3);
  });
});
