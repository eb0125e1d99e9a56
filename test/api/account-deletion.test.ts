import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { auditCounters } from '../../src/stores/dynamo/counter-audit.js';
import { tableName } from '../../src/stores/dynamo/keys.js';
import type { UserStore } from '../../src/stores/user-store.js';
import { createUseCases } from '../../src/usecases/use-cases.js';
import {
  TEST_PASSWORD,
  capturingLogger,
  errorCodes,
  startTestApp,
  uniqueHandle,
  type TestApp,
} from '../helpers/app.js';
import { scanTable } from '../helpers/table.js';
import { runScript } from '../helpers/scripts.js';
import { createPost, follow, homeIds, publicIds, tagIds } from '../helpers/posts.js';
import { runTaskNow, waitForQueueToDrain, WORKER_WAIT } from '../helpers/queue.js';
import { killWorkerProcesses, startWorkerProcess } from '../helpers/worker-process.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  killWorkerProcesses();
  await t.stop();
});

type Account = Awaited<ReturnType<TestApp['signUp']>>;

const DELETE_ACCOUNT = 'mutation($password: String) { deleteAccount(password: $password) { deletedUserId } }';

async function mutate(app: TestApp, token: string, query: string, variables: Record<string, unknown>): Promise<void> {
  const result = await app.gql(query, variables, token);
  if (result.errors) throw new Error(`${query}: ${JSON.stringify(result.errors)}`);
}

/** Everything other accounts can see of themselves and their posts: what deleting an account must leave exactly as it was. */
async function observe(app: TestApp, users: readonly Account[], postIds: readonly string[]) {
  const result = await app.gql(
    `query($users: [ID!]!) {
      users(ids: $users) { id followerCount followingCount postCount followers(first: 100) { totalCount edges { node { id } } } following(first: 100) { totalCount edges { node { id } } } }
    }`,
    { users: users.map((u) => u.id) },
  );
  if (result.errors) throw new Error(JSON.stringify(result.errors));
  const posts = [];
  for (const id of postIds) {
    const post = await app.gql(
      'query($id: ID!) { post(id: $id) { id likeCount viewCount commentCount reactionCounts { kind count } comments(first: 100) { edges { node { id author { id } } } } } }',
      { id },
    );
    posts.push(post.data!.post);
  }
  // Each account's unread notifications: the deleted account leaves none it was the only actor of.
  const unread = [];
  for (const user of users)
    unread.push(
      (await app.gql('query($id: ID!) { user(id: $id) { unreadNotificationCount } }', { id: user.id }, user.token))
        .data!.user,
    );
  return { users: result.data!.users, posts, unread };
}

/** Builds an account with posts, followers, follows, likes, views, reactions and comments among `others` and their posts. */
async function busyAccount(app: TestApp, others: Account[], otherPosts: string[], tag: string) {
  const [a, b, c] = others as [Account, Account, Account];
  const doomed = await app.signUp(uniqueHandle('doomed'));
  const own = [
    await createPost(app, doomed.token, 'first words', [tag]),
    await createPost(app, doomed.token, 'second words', [tag, 'other']),
    await createPost(app, doomed.token, 'third words'),
  ];
  for (const user of [a, b]) await follow(app, doomed.token, user.id);
  for (const user of [a, c]) await follow(app, user.token, doomed.id);
  await mutate(app, a.token, 'mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: own[0] });
  await mutate(app, c.token, 'mutation($id: ID!) { addComment(postId: $id, text: "nice") { comment { id } } }', {
    id: own[0],
  });
  await mutate(app, b.token, 'mutation($id: ID!) { react(postId: $id, kind: "wow") { post { id } } }', { id: own[1] });
  await mutate(app, doomed.token, 'mutation($id: ID!) { addComment(postId: $id, text: "my own") { comment { id } } }', {
    id: own[0],
  });
  for (const postId of otherPosts) {
    await mutate(app, doomed.token, 'mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: postId });
    await mutate(app, doomed.token, 'mutation($id: ID!) { viewPost(postId: $id) { post { id } } }', { id: postId });
    await mutate(app, doomed.token, 'mutation($id: ID!) { react(postId: $id, kind: "clap") { post { id } } }', {
      id: postId,
    });
    await mutate(app, doomed.token, 'mutation($id: ID!) { react(postId: $id, kind: "love") { post { id } } }', {
      id: postId,
    });
    await mutate(
      app,
      doomed.token,
      'mutation($id: ID!) { addComment(postId: $id, text: "from the doomed") { comment { id } } }',
      { id: postId },
    );
    await mutate(
      app,
      doomed.token,
      'mutation($id: ID!) { addComment(postId: $id, text: "and again") { comment { id } } }',
      { id: postId },
    );
  }
  return { doomed, own };
}

/** Three accounts that follow, like, react to and comment on each other's posts. */
async function neighbourhood(app: TestApp) {
  const others = await Promise.all([
    app.signUp(uniqueHandle('a')),
    app.signUp(uniqueHandle('b')),
    app.signUp(uniqueHandle('c')),
  ]);
  const [a, b, c] = others;
  await follow(app, a.token, b.id);
  await follow(app, c.token, a.id);
  const posts = [await createPost(app, a.token, 'by a', ['shared']), await createPost(app, b.token, 'by b')];
  await mutate(app, b.token, 'mutation($id: ID!) { likePost(postId: $id) { post { id } } }', { id: posts[0] });
  await mutate(app, c.token, 'mutation($id: ID!) { react(postId: $id, kind: "clap") { post { id } } }', {
    id: posts[0],
  });
  await mutate(app, c.token, 'mutation($id: ID!) { addComment(postId: $id, text: "hello") { comment { id } } }', {
    id: posts[1],
  });
  return { others, posts };
}

/**
 * The deletion's own handler on the app's stores, run outside its queue and held when it checkpoints its profile
 * step: by then the account's notifications, as recipient and as actor, are gone.
 */
async function deletionHeldAtProfile(app: TestApp, doomed: Account) {
  let reachedProfile!: () => void;
  let resume!: () => void;
  const atProfile = new Promise<void>((resolve) => (reachedProfile = resolve));
  const resumed = new Promise<void>((resolve) => (resume = resolve));
  const steps: string[] = [];
  const deletion = runTaskNow(
    app,
    { kind: 'deleteAccount', userId: doomed.id, handle: doomed.handle },
    async (step) => {
      steps.push(step);
      if (step === 'profile') {
        reachedProfile();
        await resumed;
      }
      return true;
    },
  );
  deletion.catch(() => {});
  await atProfile;
  return { deletion, resume, steps };
}

/** `body` against an app of its own with no worker, so that tasks run only when the test runs them: a closed account stays closed. */
async function withoutWorker(body: (app: TestApp) => Promise<void>): Promise<void> {
  const app = await startTestApp({ WORKER_ENABLED: 'false' });
  try {
    await body(app);
  } finally {
    await app.stop();
  }
}

/**
 * `verb` from `viewer` to `other` through the service's use cases on the app's own stores, but the first profile read
 * (the check before the write) waits after answering: a request held up between its check and its write.
 */
async function heldBetweenCheckAndWrite(
  app: TestApp,
  verb: 'follow' | 'block' | 'mute',
  viewer: Account,
  other: Account,
) {
  let checked!: () => void;
  let release!: () => void;
  const checkAnswered = new Promise<void>((resolve) => (checked = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  let first = true;
  const stores = app.app.stores;
  const heldUsers: UserStore = Object.assign(Object.create(stores.users) as UserStore, {
    getMany: async (ids: readonly string[], options?: { consistent?: boolean }) => {
      const found = await stores.users.getMany(ids, options);
      if (first) {
        first = false;
        checked();
        await released;
      }
      return found;
    },
  });
  const useCases = createUseCases({ ...stores, users: heldUsers }, app.app.config, capturingLogger());
  const write =
    verb === 'follow'
      ? useCases.follows.follow(viewer.id, other.id)
      : verb === 'block'
        ? useCases.relationships.block(viewer.id, other.id)
        : useCases.relationships.mute(viewer.id, other.id);
  write.catch(() => {});
  await checkAnswered;
  return { write, release };
}

/** The account is gone and every trace with it; everything of the others is as it was before it existed. */
async function expectGone(
  app: TestApp,
  doomed: Account,
  own: string[],
  before: Awaited<ReturnType<typeof observe>>,
  others: Account[],
  otherPosts: string[],
  tag: string,
) {
  await expect
    .poll(
      async () => (await app.gql('query($id: ID!) { user(id: $id) { id } }', { id: doomed.id })).data!.user,
      WORKER_WAIT,
    )
    .toBeNull();
  await waitForQueueToDrain(app);
  expect(await observe(app, others, otherPosts)).toEqual(before);
  for (const postId of own)
    expect((await app.gql('query($id: ID!) { post(id: $id) { id } }', { id: postId })).data!.post).toBeNull();
  expect((await publicIds(app)).filter((id) => own.includes(id))).toEqual([]);
  expect(await tagIds(app, tag)).toEqual([]);
  for (const user of others) expect((await homeIds(app, user)).filter((id) => own.includes(id))).toEqual([]);

  const client = createDocumentClient({ endpoint: app.endpoint, tableName: tableName(app.tablePrefix) });
  try {
    expect(
      await auditCounters(client, tableName(app.tablePrefix), {
        includeGraph: app.app.stores.graph.backend === 'dynamodb',
      }),
    ).toEqual({ drift: [], mismatches: [] });
  } finally {
    client.destroy();
  }
  // Nothing names the account any more but its used refresh tokens' hashes, which DynamoDB's TTL deletes:
  // not even the groups of other accounts that it acted in.
  const left = (await scanTable(app)).filter((item) => JSON.stringify(item).includes(doomed.id));
  expect(left.filter((item) => !String(item.pk).startsWith('REFRESH#'))).toEqual([]);
  for (const item of left) expect(Number(item.expiresAt)).toBeGreaterThan(Date.now() / 1000);

  // The handle is free.
  expect((await app.signUp(doomed.handle)).id).not.toBe(doomed.id);
}

describe('deleteAccount', () => {
  it('needs the right password, counted like a sign-in, and changes nothing without it', async () => {
    const user = await t.signUp(uniqueHandle('keep'));
    for (const password of [undefined, 'not my password at all']) {
      const result = await t.gql(DELETE_ACCOUNT, { password }, user.token);
      expect({ codes: errorCodes(result), field: result.errors![0]!.extensions!.field }).toEqual({
        codes: ['BAD_USER_INPUT'],
        field: 'password',
      });
    }
    expect(errorCodes(await t.gql(DELETE_ACCOUNT, { password: TEST_PASSWORD }))).toEqual(['UNAUTHENTICATED']);
    expect((await t.gql('{ viewer { id } }', {}, user.token)).data!.viewer).toEqual({ id: user.id });
  });
});

describe('stored items: deleteAccount', () => {
  it(
    'removes the account and everything it wrote; every count of every other account is as it was before it existed',
    { timeout: 120_000 },
    async () => {
      const { others, posts } = await neighbourhood(t);
      await waitForQueueToDrain(t);
      const before = await observe(t, others, posts);
      const tag = `gone_${Date.now()}`;
      const { doomed, own } = await busyAccount(t, others, posts, tag);
      await waitForQueueToDrain(t);
      expect(await observe(t, others, posts)).not.toEqual(before);
      expect((await homeIds(t, others[0]!)).filter((id) => own.includes(id))).toHaveLength(own.length);

      const deleted = await t.gql(DELETE_ACCOUNT, { password: TEST_PASSWORD }, doomed.token);
      expect(deleted.data).toEqual({ deleteAccount: { deletedUserId: doomed.id } });
      // Every way in is closed at once.
      for (const query of [
        '{ viewer { id } }',
        'mutation { createPost(input: { text: "still here?" }) { post { id } } }',
      ]) {
        const result = await t.gql(query, {}, doomed.token);
        expect({ status: result.status, codes: errorCodes(result) }).toEqual({
          status: 401,
          codes: ['UNAUTHENTICATED'],
        });
      }
      expect(
        errorCodes(
          await t.gql('mutation($r: String!) { refreshSession(refreshToken: $r) { token } }', {
            r: doomed.refreshToken,
          }),
        ),
      ).toEqual(['UNAUTHENTICATED']);
      expect(
        errorCodes(
          await t.gql('mutation($h: String!, $p: String!) { signIn(input: { handle: $h, password: $p }) { token } }', {
            h: doomed.handle,
            p: TEST_PASSWORD,
          }),
        ),
      ).toEqual(['UNAUTHENTICATED']);

      await expectGone(t, doomed, own, before, others, posts, tag);
    },
  );
});

/** Who makes the relationship racing the account's end, whose account it is, and how the write then fails. */
const RACES = [
  ['follow', 'the other', 'NOT_FOUND'],
  ['block', 'the other', 'NOT_FOUND'],
  ['mute', 'the other', 'NOT_FOUND'],
  ['follow', "the viewer's own", 'UNAUTHENTICATED'],
] as const;

describe('stored items: a follow, block or mute racing the deletion of an account it is about', () => {
  it.each(RACES)(
    'a %s checked before the deletion of %s account and written after it: %s, and nothing of the account is left behind',
    { timeout: 60_000 },
    async (verb, deleted, code) => {
      const viewer = await t.signUp(uniqueHandle('racer'));
      const other = await t.signUp(uniqueHandle('other'));
      const [doomed, stays] = deleted === 'the other' ? [other, viewer] : [viewer, other];
      const { write, release } = await heldBetweenCheckAndWrite(t, verb, viewer, other);

      expect((await t.gql(DELETE_ACCOUNT, { password: TEST_PASSWORD }, doomed.token)).data).toEqual({
        deleteAccount: { deletedUserId: doomed.id },
      });
      await expect
        .poll(
          async () => (await t.gql('query($id: ID!) { user(id: $id) { id } }', { id: doomed.id })).data!.user,
          WORKER_WAIT,
        )
        .toBeNull();
      await waitForQueueToDrain(t);
      release();
      await expect(write).rejects.toMatchObject({ code });
      await waitForQueueToDrain(t);

      const seen = await t.gql(
        '{ viewer { followerCount followingCount following(first: 10) { totalCount } followers(first: 10) { totalCount } blockedUsers(first: 10) { totalCount } mutedUsers(first: 10) { totalCount } } }',
        {},
        stays.token,
      );
      expect(seen.data!.viewer).toEqual({
        followerCount: 0,
        followingCount: 0,
        following: { totalCount: 0 },
        followers: { totalCount: 0 },
        blockedUsers: { totalCount: 0 },
        mutedUsers: { totalCount: 0 },
      });
      // Neither its graph node (which the write's count changes recreated) nor an edge, list entry or notification names it.
      const left = (await scanTable(t)).filter((item) => JSON.stringify(item).includes(doomed.id));
      expect(left.filter((item) => !String(item.pk).startsWith('REFRESH#'))).toEqual([]);
      const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
      try {
        expect(
          await auditCounters(client, tableName(t.tablePrefix), {
            includeGraph: t.app.stores.graph.backend === 'dynamodb',
          }),
        ).toEqual({ drift: [], mismatches: [] });
      } finally {
        client.destroy();
      }
    },
  );
});

describe('a follow, block or mute racing the closing of an account it is about', () => {
  it.each(RACES)(
    'a %s checked before %s account was closed and written after it, its deletion yet to run: %s, and taken back',
    { timeout: 60_000 },
    async (verb, closed, code) => {
      await withoutWorker(async (app) => {
        const viewer = await app.signUp(uniqueHandle('racer'));
        const other = await app.signUp(uniqueHandle('other'));
        const [leaving, stays] = closed === 'the other' ? [other, viewer] : [viewer, other];
        const { write, release } = await heldBetweenCheckAndWrite(app, verb, viewer, other);
        expect((await app.gql(DELETE_ACCOUNT, { password: TEST_PASSWORD }, leaving.token)).data).toEqual({
          deleteAccount: { deletedUserId: leaving.id },
        });
        release();
        await expect(write).rejects.toMatchObject({ code });

        const seen = await app.gql(
          'query($id: ID!) { user(id: $id) { followerCount followingCount viewerFollows followsViewer viewerBlocks blocksViewer viewerMutes } }',
          { id: leaving.id },
          stays.token,
        );
        expect(seen.data!.user).toEqual({
          followerCount: 0,
          followingCount: 0,
          viewerFollows: false,
          followsViewer: false,
          viewerBlocks: false,
          blocksViewer: false,
          viewerMutes: false,
        });
      });
    },
  );
});

describe("an account's own write racing its closing", () => {
  it(
    'a post or a profile edit checked before the closing and written after it is refused, and search stays without it',
    { timeout: 60_000 },
    async () => {
      await withoutWorker(async (app) => {
        const doomed = await app.signUp(uniqueHandle('quitter'));
        expect((await app.gql(DELETE_ACCOUNT, { password: TEST_PASSWORD }, doomed.token)).data).toEqual({
          deleteAccount: { deletedUserId: doomed.id },
        });
        // Requests whose account check passed before the closing: the service's use cases, past that check.
        const { posts, users } = createUseCases(app.app.stores, app.app.config, capturingLogger());
        await expect(posts.create(doomed.id, { text: 'one last word' })).rejects.toMatchObject({
          code: 'UNAUTHENTICATED',
        });
        // A display name's edit reads the profile first; any other is a conditioned write alone.
        for (const input of [{ displayName: 'Renamed Quitter' }, { bio: 'one last bio' }])
          await expect(users.updateProfile(doomed.id, input)).rejects.toMatchObject({ code: 'NOT_FOUND' });
        // The migration that writes search entries from profiles passes over a closed one.
        expect((await runScript(app, 'search-index')).code).toBe(0);

        const seen = await app.gql(
          'query($id: ID!) { user(id: $id) { postCount displayName bio posts(first: 5) { edges { node { id } } } } }',
          { id: doomed.id },
        );
        expect(seen.data!.user).toEqual({ postCount: 0, displayName: null, bio: null, posts: { edges: [] } });
        for (const query of [doomed.handle, 'renamed'])
          expect(
            (await app.gql('query($q: String!) { searchUsers(query: $q) { edges { node { id } } } }', { q: query }))
              .data,
          ).toEqual({
            searchUsers: { edges: [] },
          });
        const left = (await scanTable(app)).filter((item) => JSON.stringify(item).includes(doomed.id));
        expect(
          left.map((item) => String(item.pk).split('#')[0]).filter((kind) => kind === 'SEARCH' || kind === 'POST'),
        ).toEqual([]);
      });
    },
  );
});

describe("stored items: an account's own activity racing its closing", () => {
  it(
    'a like, view, reaction, comment and repost checked before the closing and written after it go with the account',
    { timeout: 120_000 },
    async () => {
      // Long enough for the writes below to land after the posts step, well within the wait, on a loaded machine.
      const app = await startTestApp({ ACCOUNT_DELETION_WAIT_MS: '15000' });
      try {
        const { others, posts } = await neighbourhood(app);
        await waitForQueueToDrain(app);
        const before = await observe(app, others, posts);
        const tag = `late_${Date.now()}`;
        const doomed = await app.signUp(uniqueHandle('late'));
        const own = [await createPost(app, doomed.token, 'soon gone', [tag])];
        await waitForQueueToDrain(app);

        expect((await app.gql(DELETE_ACCOUNT, { password: TEST_PASSWORD }, doomed.token)).data).toEqual({
          deleteAccount: { deletedUserId: doomed.id },
        });
        // The deletion takes its posts at once, then waits before its activity step.
        await expect
          .poll(
            async () => (await app.gql('query($id: ID!) { post(id: $id) { id } }', { id: own[0] })).data!.post,
            WORKER_WAIT,
          )
          .toBeNull();
        // Requests whose account check passed before the closing, writing only now: the use cases, past that check.
        const { counters, comments, reposts } = createUseCases(app.app.stores, app.app.config, capturingLogger());
        const target = posts[0]!;
        await counters.likePost(doomed.id, target);
        await counters.viewPost(doomed.id, target);
        await counters.react(doomed.id, target, 'wow');
        await comments.add(doomed.id, target, 'just in time');
        await reposts.repost(doomed.id, target);
        const was = before.posts[0]!;
        await expect
          .poll(
            async () =>
              (
                await app.gql('query($id: ID!) { post(id: $id) { likeCount viewCount commentCount repostCount } }', {
                  id: target,
                })
              ).data!.post,
            WORKER_WAIT,
          )
          .toEqual({
            likeCount: was.likeCount + 1,
            viewCount: was.viewCount + 1,
            commentCount: was.commentCount + 1,
            repostCount: 1,
          });

        await expectGone(app, doomed, own, before, others, posts, tag);
      } finally {
        await app.stop();
      }
    },
  );
});

describe('stored items: what reaches an account while it is being deleted', () => {
  it(
    "a follow's notification that arrives after the account's remnants went is swept once its graph node is gone",
    { timeout: 60_000 },
    async () => {
      const doomed = await t.signUp(uniqueHandle('closing'));
      const late = await t.signUp(uniqueHandle('late'));
      const { deletion, resume, steps } = await deletionHeldAtProfile(t, doomed);

      // The account was never closed here: it stands for one whose follow's tasks ran after the remnants went (the
      // follow checked before the closing, or its process dead before taking it back). The worker gives it a group.
      await follow(t, late.token, doomed.id);
      const notifications = async () => (await scanTable(t)).filter((item) => item.pk === `NOTIFS#${doomed.id}`);
      await expect.poll(async () => (await notifications()).length, { timeout: 20_000 }).toBeGreaterThan(0);

      resume();
      expect(await deletion).toBe('done');
      expect(steps.slice(-2)).toEqual(['profile', 'leftovers']);
      await waitForQueueToDrain(t);
      expect(await notifications()).toEqual([]);
      const seen = await t.gql('{ viewer { followingCount following(first: 10) { totalCount } } }', {}, late.token);
      expect(seen.data!.viewer).toEqual({ followingCount: 0, following: { totalCount: 0 } });
    },
  );

  it(
    "a mention's notification task that runs after the deletion finished writes nothing: the post outlives the account it names",
    { timeout: 60_000 },
    async () => {
      const doomed = await t.signUp(uniqueHandle('named'));
      const author = await t.signUp(uniqueHandle('namer'));
      const postId = await createPost(t, author.token, `hello @${doomed.handle}`);
      const notifications = async () => (await scanTable(t)).filter((item) => item.pk === `NOTIFS#${doomed.id}`);
      await expect.poll(async () => (await notifications()).length, { timeout: 20_000 }).toBeGreaterThan(0);

      expect((await t.gql(DELETE_ACCOUNT, { password: TEST_PASSWORD }, doomed.token)).data).toEqual({
        deleteAccount: { deletedUserId: doomed.id },
      });
      await expect
        .poll(
          async () => (await t.gql('query($id: ID!) { user(id: $id) { id } }', { id: doomed.id })).data!.user,
          WORKER_WAIT,
        )
        .toBeNull();
      await waitForQueueToDrain(t);
      expect(await notifications()).toEqual([]);

      // The mention's task delivered late (a retry, a backlog): the post is still there, its recipient is not.
      const mention = { kind: 'MENTION' as const, recipientId: doomed.id, actorId: author.id, postId };
      expect(await runTaskNow(t, { kind: 'notify', cause: mention, atMs: Date.now() })).toBe('done');
      expect(
        (await t.gql('query($id: ID!) { post(id: $id) { id mentions { id } } }', { id: postId })).data!.post,
      ).toEqual({ id: postId, mentions: [] });
      expect(await notifications()).toEqual([]);
      // The post keeps the id it was written with (its mentions are those that still exist); nothing else names the account.
      const left = (await scanTable(t)).filter((item) => JSON.stringify(item).includes(doomed.id));
      expect(left.filter((item) => !String(item.pk).startsWith('REFRESH#') && item.pk !== `POST#${postId}`)).toEqual(
        [],
      );
    },
  );
  it(
    "a comment's notification task delivered while the deletion is past its notifications leaves the account out",
    { timeout: 60_000 },
    async () => {
      await withoutWorker(async (app) => {
        const doomed = await app.signUp(uniqueHandle('leaving'));
        const author = await app.signUp(uniqueHandle('author'));
        const postId = await createPost(app, author.token, 'comments welcome');
        await mutate(
          app,
          doomed.token,
          'mutation($id: ID!) { addComment(postId: $id, text: "bye") { comment { id } } }',
          {
            id: postId,
          },
        );
        expect((await app.gql(DELETE_ACCOUNT, { password: TEST_PASSWORD }, doomed.token)).data).toEqual({
          deleteAccount: { deletedUserId: doomed.id },
        });
        const { deletion, resume } = await deletionHeldAtProfile(app, doomed);

        // The closed account's profile is still there, and so is the post its deleted comment was on.
        const comment = { kind: 'COMMENT' as const, recipientId: author.id, actorId: doomed.id, postId };
        expect(await runTaskNow(app, { kind: 'notify', cause: comment, atMs: Date.now() })).toBe('done');
        resume();
        expect(await deletion).toBe('done');

        const seen = await app.gql(
          '{ viewer { unreadNotificationCount notifications(first: 10) { edges { node { id } } } } }',
          {},
          author.token,
        );
        expect(seen.data!.viewer).toEqual({ unreadNotificationCount: 0, notifications: { edges: [] } });
        const left = (await scanTable(app)).filter((item) => JSON.stringify(item).includes(doomed.id));
        // The task that closing the account enqueued, which this test ran itself, is left in the queue.
        expect(
          left.filter((item) => !String(item.pk).startsWith('REFRESH#') && !String(item.pk).startsWith('QUEUE#')),
        ).toEqual([]);
      });
    },
  );
  it(
    "closed accounts leave others' suggestions at once, and the next candidates take their place",
    { timeout: 60_000 },
    async () => {
      await withoutWorker(async (app) => {
        const [viewer, friend, another, next, last] = await Promise.all([
          app.signUp(uniqueHandle('seeker')),
          app.signUp(uniqueHandle('friend')),
          app.signUp(uniqueHandle('friend')),
          app.signUp(uniqueHandle('next')),
          app.signUp(uniqueHandle('last')),
        ]);
        // More than a page's spare candidates: the page reads on past them.
        const doomed = await Promise.all(Array.from({ length: 5 }, () => app.signUp(uniqueHandle('closing'))));
        await follow(app, viewer.token, friend.id);
        await follow(app, viewer.token, another.id);
        // Both friends follow the closing accounts, one the next two: those rank first.
        for (const account of doomed) {
          await follow(app, friend.token, account.id);
          await follow(app, another.token, account.id);
        }
        await follow(app, friend.token, next.id);
        await follow(app, friend.token, last.id);
        const [nextId, lastId] = [next.id, last.id].sort();
        const doomedIds = doomed.map((account) => account.id).sort();
        const suggested = async (first: number) =>
          (
            await app.gqlData<{ suggestedFollows: { user: { id: string } }[] }>(
              'query($first: Int) { suggestedFollows(first: $first) { user { id } } }',
              { first },
              viewer.token,
            )
          ).suggestedFollows.map((suggestion) => suggestion.user.id);
        expect(await suggested(10)).toEqual([...doomedIds, nextId, lastId]);
        expect(await suggested(1)).toEqual([doomedIds[0]]);
        for (const account of doomed)
          expect((await app.gql(DELETE_ACCOUNT, { password: TEST_PASSWORD }, account.token)).data).toEqual({
            deleteAccount: { deletedUserId: account.id },
          });
        // The follows that make them friends of friends are still there: their deletions have not run.
        expect(await suggested(10)).toEqual([nextId, lastId]);
        expect(await suggested(1)).toEqual([nextId]);
        expect(await suggested(2)).toEqual([nextId, lastId]);
      });
    },
  );

  it(
    'a closed account takes no new follow, block or mute, and can still be unfollowed, unblocked and unmuted',
    { timeout: 60_000 },
    async () => {
      await withoutWorker(async (app) => {
        const doomed = await app.signUp(uniqueHandle('closed'));
        const fan = await app.signUp(uniqueHandle('fan'));
        const late = await app.signUp(uniqueHandle('late'));
        const wary = await app.signUp(uniqueHandle('wary'));
        await follow(app, fan.token, doomed.id);
        for (const verb of ['block', 'mute'])
          await mutate(app, wary.token, `mutation($id: ID!) { ${verb}(userId: $id) { viewer { id } } }`, {
            id: doomed.id,
          });
        expect((await app.gql(DELETE_ACCOUNT, { password: TEST_PASSWORD }, doomed.token)).data).toEqual({
          deleteAccount: { deletedUserId: doomed.id },
        });

        for (const verb of ['follow', 'block', 'mute'])
          expect(
            errorCodes(
              await app.gql(
                `mutation($id: ID!) { ${verb}(userId: $id) { viewer { id } } }`,
                { id: doomed.id },
                late.token,
              ),
            ),
          ).toEqual(['NOT_FOUND']);
        const unfollowed = await app.gql(
          'mutation($id: ID!) { unfollow(userId: $id) { user { id viewerFollows } viewer { followingCount } } }',
          { id: doomed.id },
          fan.token,
        );
        expect(unfollowed.data).toEqual({
          unfollow: { user: { id: doomed.id, viewerFollows: false }, viewer: { followingCount: 0 } },
        });
        for (const verb of ['unblock', 'unmute'])
          await mutate(app, wary.token, `mutation($id: ID!) { ${verb}(userId: $id) { viewer { id } } }`, {
            id: doomed.id,
          });
        for (const viewer of [late, wary]) {
          const seen = await app.gql(
            'query($id: ID!) { user(id: $id) { followerCount viewerBlocks viewerMutes viewerFollows } }',
            { id: doomed.id },
            viewer.token,
          );
          expect(seen.data!.user).toEqual({
            followerCount: 0,
            viewerBlocks: false,
            viewerMutes: false,
            viewerFollows: false,
          });
        }
      });
    },
  );
});

describe('stored items: deleteAccount with its worker killed mid-way', () => {
  it('finishes from its checkpoint in the next worker, exactly', { timeout: 240_000 }, async () => {
    const app = await startTestApp({ WORKER_ENABLED: 'false' });
    try {
      let running = startWorker(app);
      const { others, posts } = await neighbourhood(app);
      await waitForQueueToDrain(app);
      const before = await observe(app, others, posts);
      const tag = `crash_${Date.now()}`;
      const { doomed, own } = await busyAccount(app, others, posts, tag);
      await waitForQueueToDrain(app);

      // Batches of two records (FANOUT_PAGE_SIZE): the deletion checkpoints many times; the worker dies as it starts on the activities.
      expect((await app.gql(DELETE_ACCOUNT, { password: TEST_PASSWORD }, doomed.token)).data).toEqual({
        deleteAccount: { deletedUserId: doomed.id },
      });
      const checkpoint = await running.logLine(
        (entry) =>
          entry.msg === 'task checkpoint' &&
          entry.kind === 'deleteAccount' &&
          entry.checkpoint === 'activity' &&
          entry.held === true,
      );
      running.child.kill('SIGKILL');
      await running.exited;
      expect(checkpoint.held).toBe(true);

      running = startWorker(app);
      await expectGone(app, doomed, own, before, others, posts, tag);
      running.child.kill('SIGKILL');
    } finally {
      await app.stop();
    }
  });
});

/** `npm run worker`'s entry point as its own process against the app's table, with small batches and a short lease. */
function startWorker(app: TestApp) {
  return startWorkerProcess(app, { FANOUT_PAGE_SIZE: '2', QUEUE_LEASE_MS: '1000', QUEUE_POLL_MS: '50' });
}
