import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PASSWORD, errorCodes, startTestApp, type TestApp } from '../helpers/app.js';
import { follow } from '../helpers/posts.js';
import { waitForQueueToDrain } from '../helpers/queue.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
});

/** A word no other test uses: eight letters a-z, so that each test finds only its own accounts. */
function word(): string {
  return Array.from(randomBytes(8), (byte) => String.fromCharCode(97 + (byte % 26))).join('');
}

const SEARCH =
  'query($q: String!, $first: Int, $after: String) { searchUsers(query: $q, first: $first, after: $after) { totalCount edges { cursor node { id handle } } pageInfo { hasNextPage endCursor } } }';

async function search(query: string, token?: string, first?: number, after?: string) {
  const result = await t.gql(SEARCH, { q: query, first, after }, token);
  expect(result.errors).toBeUndefined();
  return result.data!.searchUsers as {
    totalCount: number;
    edges: { cursor: string; node: { id: string; handle: string } }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
}

const ids = async (query: string, token?: string) => (await search(query, token)).edges.map((edge) => edge.node.id);

describe('searchUsers', () => {
  it('finds by handle prefix and by display-name word prefix, with accents and case folded', async () => {
    const w = word();
    const byHandle = await t.signUp(`${w}_handle`, { displayName: 'Someone Else' });
    const byName = await t.signUp(`x${w}`.slice(0, 30), { displayName: `Zoë ${w.toUpperCase()}Ünïcode` });
    expect(new Set(await ids(w))).toEqual(new Set([byHandle.id, byName.id]));
    expect(await ids(`${w}_h`)).toEqual([byHandle.id]);
    expect(await ids(`${w.toUpperCase()}UN`)).toEqual([byName.id]);
    expect(await ids(`${w}ÜNÏ`)).toEqual([byName.id]);
    // Every word of the query starts a term: "zoë" and the name's other word.
    expect(await ids(`ZOE ${w}u`)).toEqual([byName.id]);
    expect(await ids(`zoë ${w}_h`)).toEqual([]);
    expect(await ids(`${w}x`)).toEqual([]);
  });

  it('ranks the exact handle first, then the accounts the viewer follows, then by follower count', async () => {
    const w = word();
    const [exact, popular, followed, plain, viewer] = await Promise.all([
      t.signUp(w),
      t.signUp(`${w}_pop`),
      t.signUp(`${w}_fol`),
      t.signUp(`${w}_abc`),
      t.signUp(`v${word()}`),
    ]);
    const fans = await Promise.all([t.signUp(), t.signUp(), t.signUp()]);
    for (const fan of fans) await follow(t, fan.token, popular.id);
    await follow(t, fans[0]!.token, plain.id);
    await follow(t, viewer.token, followed.id);
    expect(await ids(w, viewer.token)).toEqual([exact.id, followed.id, popular.id, plain.id]);
    expect(await ids(w)).toEqual([exact.id, popular.id, plain.id, followed.id]);
    // The exact handle is matched in any case; without it, followed accounts lead.
    expect((await ids(w.toUpperCase(), viewer.token))[0]).toBe(exact.id);
    expect(await ids(`${w}_`, viewer.token)).toEqual([followed.id, popular.id, plain.id]);
  });

  it('pages through the ranking with cursors', async () => {
    const w = word();
    const users = await Promise.all(Array.from({ length: 5 }, (_, i) => t.signUp(`${w}_${i}`)));
    const seen: string[] = [];
    let after: string | undefined;
    for (let page = 0; page < 3; page++) {
      const result = await search(w, undefined, 2, after);
      expect(result.totalCount).toBe(5);
      seen.push(...result.edges.map((edge) => edge.node.id));
      expect(result.pageInfo.hasNextPage).toBe(page < 2);
      after = result.pageInfo.endCursor ?? undefined;
    }
    expect(seen.sort()).toEqual(users.map((user) => user.id).sort());
  });

  it('reads any page in two waves, and no more requests for 12 users than for 2', async () => {
    // Two sets of twelve, so that each page is read cold (the cache would answer the second read of a set).
    const [w, v] = [word(), word()];
    const [viewer] = await Promise.all([
      t.signUp(`v${word()}`),
      ...Array.from({ length: 12 }, (_, i) => t.signUp(`${w}_${i}`)),
      ...Array.from({ length: 12 }, (_, i) => t.signUp(`${v}_${i}`)),
    ]);
    const page = (query: string, first: number) =>
      t.gql(
        'query($q: String!, $first: Int) { searchUsers(query: $q, first: $first) { edges { node { id handle followerCount viewerFollows } } } }',
        { q: query, first },
        viewer.token,
      );
    const [small, whole] = [await page(w, 2), await page(v, 12)];
    expect(small.data!.searchUsers.edges).toHaveLength(2);
    expect(whole.data!.searchUsers.edges).toHaveLength(12);
    expect(small.extensions!.cost.waves).toBe(2);
    expect(whole.extensions!.cost.waves).toBe(2);
    // The first page also reads the viewer's account, which the second finds in the cache.
    expect(whole.extensions!.cost.requests).toBeLessThanOrEqual(small.extensions!.cost.requests);
  });

  it('never shows an account in a block with the viewer, either way', async () => {
    const w = word();
    const [viewer, blocked, blocker, other] = await Promise.all([
      t.signUp(`v${word()}`),
      t.signUp(`${w}_1`),
      t.signUp(`${w}_2`),
      t.signUp(`${w}_3`),
    ]);
    const block = (token: string, id: string) =>
      t.gql('mutation($id: ID!) { block(userId: $id) { user { id } } }', { id }, token);
    expect((await block(viewer.token, blocked.id)).errors).toBeUndefined();
    expect((await block(blocker.token, viewer.id)).errors).toBeUndefined();
    expect(await ids(w, viewer.token)).toEqual([other.id]);
    expect(new Set(await ids(w))).toEqual(new Set([blocked.id, blocker.id, other.id]));
  });

  it('drops a deleted account at once, and finds the next holder of its handle', async () => {
    const w = word();
    const gone = await t.signUp(w);
    expect(await ids(w)).toEqual([gone.id]);
    const deleted = await t.gql(
      `mutation { deleteAccount(password: "${TEST_PASSWORD}") { deletedUserId } }`,
      {},
      gone.token,
    );
    expect(deleted.errors).toBeUndefined();
    expect(await ids(w)).toEqual([]);
    await waitForQueueToDrain(t);
    const next = await t.signUp(w);
    expect(await ids(w)).toEqual([next.id]);
  });

  it('follows a display-name change: the old words stop finding the user, the new ones find it', async () => {
    const [w, v] = [word(), word()];
    const user = await t.signUp(`h${word()}`, { displayName: `Ada ${w}` });
    expect(await ids(w)).toEqual([user.id]);
    const rename = (displayName: string | null) =>
      t.gql(
        'mutation($n: String) { updateProfile(input: { displayName: $n }) { displayName } }',
        { n: displayName },
        user.token,
      );
    expect((await rename(`Ada ${v}Ö`)).data!.updateProfile.displayName).toBe(`Ada ${v}Ö`);
    expect(await ids(w)).toEqual([]);
    expect(await ids(`${v}o`)).toEqual([user.id]);
    // A change to another field leaves the index alone; clearing the name takes its words out.
    await t.gql('mutation { updateProfile(input: { bio: "hi" }) { id } }', {}, user.token);
    expect(await ids(v)).toEqual([user.id]);
    await rename(null);
    expect(await ids(v)).toEqual([]);
    expect(await ids(user.handle)).toEqual([user.id]);
    // A name given again after it was cleared, and a first name for an account that signed up without one.
    await rename(`Ada ${w}`);
    expect(await ids(w)).toEqual([user.id]);
    const nameless = await t.signUp(`h${word()}`);
    expect(
      (
        await t.gql(
          'mutation { updateProfile(input: { displayName: "Named Now" }) { displayName } }',
          {},
          nameless.token,
        )
      ).errors,
    ).toBeUndefined();
    expect(await ids(`${w} ada`)).toEqual([user.id]);
    expect(await ids(`named ${nameless.handle.slice(0, 4)}`)).toEqual([nameless.id]);
  });

  it('indexes and finds a word that folding makes longer than a key can hold (㌖ folds to キロメートル)', async () => {
    const w = word();
    // 63 characters, 998 bytes once folded: a sort key of it and an id would be past DynamoDB's 1,024.
    const user = await t.signUp(`h${word()}`, { displayName: `${w}${'㌖'.repeat(55)}` });
    expect(await ids(w)).toEqual([user.id]);
    expect(await ids(`${w}${'㌖'.repeat(56)}`)).toEqual([user.id]);
    const renamed = await t.gql(
      'mutation($n: String) { updateProfile(input: { displayName: $n }) { displayName } }',
      { n: `${w} ${'㌖'.repeat(55)}` },
      user.token,
    );
    expect(renamed.errors).toBeUndefined();
    expect(await ids(`${w} ${'㌖'.repeat(55)}`)).toEqual([user.id]);
    expect(await ids('㌖'.repeat(20))).toContain(user.id);
    // Longer, once folded, than any term: it finds nobody, and says so without an error.
    expect(await ids('㌖'.repeat(64))).toEqual([]);
  });

  it('refuses an empty, blank, symbol-only or too long query with BAD_USER_INPUT', async () => {
    for (const query of ['', '   ', '!!', 'a'.repeat(65)]) {
      const result = await t.gql(SEARCH, { q: query });
      expect(errorCodes(result), JSON.stringify(query)).toEqual(['BAD_USER_INPUT']);
      expect(result.data!.searchUsers).toBeNull();
    }
    expect(errorCodes(await t.gql(SEARCH, { q: 'abc', first: 0 }))).toEqual(['BAD_USER_INPUT']);
    expect(errorCodes(await t.gql(SEARCH, { q: 'abc', after: 'nope' }))).toEqual(['BAD_USER_INPUT']);
    // One character is enough.
    expect((await t.gql(SEARCH, { q: 'q' })).errors).toBeUndefined();
  });
});
