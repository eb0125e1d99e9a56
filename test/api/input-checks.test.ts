import {
  buildSchema,
  getNamedType,
  isInputObjectType,
  isLeafType,
  isNonNullType,
  isObjectType,
  type GraphQLArgument,
  type GraphQLField,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTypeDefs } from '../../src/graphql/apollo.js';
import { encodeCursor } from '../../src/domain/cursor.js';
import { TEST_PASSWORD, errorCodes, startTestApp, type GraphQLResponse, type TestApp } from '../helpers/app.js';
import { createPost } from '../helpers/posts.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
});

const schema = buildSchema(loadTypeDefs());
/** Far over DynamoDB's 2,048-byte limit for a partition key. */
const HUGE_ID = `usr_${'é'.repeat(1100)}`;
const UNKNOWN_USER = 'usr_00000000000000000000000000';

function storeRequests(result: GraphQLResponse): number {
  const { dynamodb, graph } = result.extensions!.cost;
  return dynamodb.requests + graph.requests;
}

function refusal(result: GraphQLResponse): { code: string; field: unknown } {
  expect(result.errors).toHaveLength(1);
  return { code: errorCodes(result)[0]!, field: result.errors![0]!.extensions!.field };
}

/** A value of the argument's type that passes on its own, so that the id under test is the only bad input. */
function plausible(argument: GraphQLArgument): unknown {
  const type = getNamedType(argument.type).name;
  const value = type === 'ID' ? UNKNOWN_USER : type === 'Int' ? 1 : 'x';
  return String(argument.type).startsWith('[') ? [value] : value;
}

/** Every root field that takes an ID argument, with that argument. */
function idArguments(): [string, GraphQLField<unknown, unknown>, GraphQLArgument][] {
  const cases: [string, GraphQLField<unknown, unknown>, GraphQLArgument][] = [];
  for (const root of [schema.getQueryType()!, schema.getMutationType()!]) {
    for (const field of Object.values(root.getFields())) {
      for (const argument of field.args) {
        const named = getNamedType(argument.type);
        expect(
          isInputObjectType(named) && Object.values(named.getFields()).some((f) => getNamedType(f.type).name === 'ID'),
        ).toBe(false);
        if (named.name === 'ID') cases.push([root.name === 'Query' ? 'query' : 'mutation', field, argument]);
      }
    }
  }
  return cases;
}

describe('ids', () => {
  const cases = idArguments();

  it('finds the ID arguments of the schema', () => {
    expect(cases.map(([, field, argument]) => `${field.name}(${argument.name})`)).toEqual(
      expect.arrayContaining([
        'user(id)',
        'users(ids)',
        'node(id)',
        'post(id)',
        'follow(userId)',
        'degreesOfSeparation(to)',
        'network(userId)',
        'likePost(postId)',
      ]),
    );
  });

  it.each(cases.map(([kind, field, argument]) => [`${field.name}(${argument.name})`, kind, field, argument] as const))(
    '%s: an id over 2,048 bytes is BAD_USER_INPUT and reaches no store',
    async (_name, kind, field, tested) => {
      const required = field.args.filter((a) => a === tested || isNonNullType(a.type));
      const variables = Object.fromEntries(required.map((a) => [a.name, plausible(a)]));
      variables[tested.name] = String(tested.type).startsWith('[') ? [UNKNOWN_USER, HUGE_ID] : HUGE_ID;
      const definitions = required.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
      const call = required.map((a) => `${a.name}: $${a.name}`).join(', ');
      const selection = isLeafType(getNamedType(field.type)) ? '' : '{ __typename }';
      // Anonymous: a store request could only come from the argument itself.
      const result = await t.gql(`${kind}(${definitions}) { ${field.name}(${call}) ${selection} }`, variables);
      expect(refusal(result)).toEqual({ code: 'BAD_USER_INPUT', field: tested.name });
      expect(result.status).toBe(400);
      expect(storeRequests(result)).toBe(0);
    },
  );

  it('checks ids written into the document and in fragments, at any depth', async () => {
    const inline = await t.gql(`{ viewer { id } user(id: "${'x'.repeat(101)}") { id } }`);
    expect(refusal(inline)).toEqual({ code: 'BAD_USER_INPUT', field: 'id' });
    const spreading =
      'query($id: ID!) { ...Outer } fragment Outer on Query { viewer { id } ...Inner } fragment Inner on Query { post(id: $id) { id } }';
    // Passed once with a short id, the same document is still checked: what is remembered of it is only that it has ids.
    expect((await t.gql(spreading, { id: UNKNOWN_USER })).errors).toBeUndefined();
    const spread = await t.gql(spreading, { id: HUGE_ID });
    expect(refusal(spread)).toEqual({ code: 'BAD_USER_INPUT', field: 'id' });
    // One document, two operations: the one without ids, chosen first, does not exempt the other.
    const twoOperations = 'query Plain { viewer { id } } query ById($id: ID!) { post(id: $id) { id } }';
    expect((await t.gql(twoOperations, {}, undefined, 'Plain')).errors).toBeUndefined();
    const byId = await t.gql(twoOperations, { id: HUGE_ID }, undefined, 'ById');
    expect(refusal(byId)).toEqual({ code: 'BAD_USER_INPUT', field: 'id' });
  });

  it('answers a short id of another shape as naming nothing, without a lookup', async () => {
    const user = await t.signUp();
    const lookups = await t.gql(
      'query($ids: [ID!]!) { user(id: "nope") { id } users(ids: $ids) { id } node(id: "usr_") { id } post(id: "usr_x") { id } }',
      {
        ids: ['nope', 'x'.repeat(100), user.id, 'pst_00000000000000000000000000'],
      },
    );
    expect(lookups.errors).toBeUndefined();
    expect(lookups.data).toEqual({ user: null, users: [null, null, { id: user.id }, null], node: null, post: null });
    expect(lookups.extensions!.cost.dynamodb.requests).toBe(1);

    const unknownUser = await t.gql('{ user(id: "nope") { id } }');
    expect(unknownUser.data).toEqual({ user: null });
    expect(storeRequests(unknownUser)).toBe(0);
  });

  it('refuses a short id of another shape where something must exist, naming the argument', async () => {
    const user = await t.signUp();
    const cases: [string, Record<string, unknown>, string][] = [
      ['mutation { follow(userId: "pst_00000000000000000000000000") { user { id } } }', {}, 'userId'],
      ['mutation { unfollow(userId: "nope") { user { id } } }', {}, 'userId'],
      ['query($a: ID!) { degreesOfSeparation(from: $a, to: "nope") { degrees } }', { a: user.id }, 'to'],
      ['query($a: ID!) { degreesOfSeparation(from: "nope", to: $a) { degrees } }', { a: user.id }, 'from'],
      ['{ network(userId: "nope") { totalCount } }', {}, 'userId'],
      ['mutation { likePost(postId: "nope") { post { id } } }', {}, 'postId'],
      ['mutation { addComment(postId: "nope", text: "hi") { comment { id } } }', {}, 'postId'],
      ['mutation { repost(postId: "usr_00000000000000000000000000") { post { id } } }', {}, 'postId'],
      ['mutation { unrepost(postId: "nope") { post { id } } }', {}, 'postId'],
    ];
    for (const [query, variables, field] of cases) {
      expect(refusal(await t.gql(query, variables, user.token))).toEqual({ code: 'BAD_USER_INPUT', field });
    }
  });
});

describe('words', () => {
  it('checks handles, tags, reaction kinds and idempotency keys before any lookup, however long', async () => {
    const user = await t.signUp();
    const huge = 'x'.repeat(3000);
    const cases: [string, Record<string, unknown>, string][] = [
      ['query($h: String!) { user(handle: $h) { id } }', { h: huge }, 'handle'],
      ['query($tag: String!) { tagTimeline(tag: $tag) { edges { cursor } } }', { tag: huge }, 'tag'],
      [
        'mutation($kind: String!) { react(postId: "pst_00000000000000000000000000", kind: $kind) { post { id } } }',
        { kind: huge },
        'kind',
      ],
      [
        'mutation($key: String!) { createPost(input: { text: "hi", idempotencyKey: $key }) { post { id } } }',
        { key: huge },
        'input.idempotencyKey',
      ],
    ];
    for (const [query, variables, field] of cases) {
      expect(refusal(await t.gql(query, variables, user.token))).toEqual({ code: 'BAD_USER_INPUT', field });
    }
  });
});

describe('cursors', () => {
  /** Decodes to a string under 1,024 characters but over 1,024 bytes, in the embedded graph backend's position format. */
  const HUGE_CURSOR = encodeCursor(`000000000000000#${'é'.repeat(900)}`);

  /** Every list of the schema and each of its cursor arguments, as a query with `cursor` in that argument. */
  function cursorArguments(
    userId: string,
    postId: string,
    commentId = '',
  ): [string, string, (cursor: string) => string][] {
    return [
      ['Query.tagTimeline', 'after', (c) => `{ tagTimeline(tag: "x", after: "${c}") { edges { cursor } } }`],
      ['Query.tagTimeline', 'before', (c) => `{ tagTimeline(tag: "x", last: 5, before: "${c}") { edges { cursor } } }`],
      ['Query.publicTimeline', 'after', (c) => `{ publicTimeline(after: "${c}") { edges { cursor } } }`],
      ['Query.publicTimeline', 'before', (c) => `{ publicTimeline(last: 5, before: "${c}") { edges { cursor } } }`],
      ['Query.network', 'after', (c) => `{ network(userId: "${userId}", after: "${c}") { totalCount } }`],
      ['Query.searchUsers', 'after', (c) => `{ searchUsers(query: "a", after: "${c}") { edges { cursor } } }`],
      ['User.followers', 'after', (c) => `{ user(id: "${userId}") { followers(after: "${c}") { totalCount } } }`],
      [
        'User.followers',
        'before',
        (c) => `{ user(id: "${userId}") { followers(last: 5, before: "${c}") { totalCount } } }`,
      ],
      ['User.following', 'after', (c) => `{ user(id: "${userId}") { following(after: "${c}") { totalCount } } }`],
      [
        'User.following',
        'before',
        (c) => `{ user(id: "${userId}") { following(last: 5, before: "${c}") { totalCount } } }`,
      ],
      [
        'User.knownFollowers',
        'after',
        (c) => `{ user(id: "${userId}") { knownFollowers(after: "${c}") { totalCount } } }`,
      ],
      ['User.mutuals', 'after', (c) => `{ user(id: "${userId}") { mutuals(after: "${c}") { totalCount } } }`],
      ['User.posts', 'after', (c) => `{ user(id: "${userId}") { posts(after: "${c}") { edges { cursor } } } }`],
      [
        'User.posts',
        'before',
        (c) => `{ user(id: "${userId}") { posts(last: 5, before: "${c}") { edges { cursor } } } }`,
      ],
      ['User.timeline', 'after', (c) => `{ viewer { timeline(after: "${c}") { edges { cursor } } } }`],
      ['User.timeline', 'before', (c) => `{ viewer { timeline(last: 5, before: "${c}") { edges { cursor } } } }`],
      ['Post.comments', 'after', (c) => `{ post(id: "${postId}") { comments(after: "${c}") { edges { cursor } } } }`],
      [
        'Post.comments',
        'before',
        (c) => `{ post(id: "${postId}") { comments(last: 5, before: "${c}") { edges { cursor } } } }`,
      ],
      [
        'Comment.replies',
        'after',
        (c) => `{ comment(id: "${commentId}") { replies(after: "${c}") { edges { cursor } } } }`,
      ],
      [
        'Comment.replies',
        'before',
        (c) => `{ comment(id: "${commentId}") { replies(last: 5, before: "${c}") { edges { cursor } } } }`,
      ],
      ['User.blockedUsers', 'after', (c) => `{ viewer { blockedUsers(after: "${c}") { totalCount } } }`],
      ['User.blockedUsers', 'before', (c) => `{ viewer { blockedUsers(last: 5, before: "${c}") { totalCount } } }`],
      ['User.mutedUsers', 'after', (c) => `{ viewer { mutedUsers(after: "${c}") { totalCount } } }`],
      ['User.mutedUsers', 'before', (c) => `{ viewer { mutedUsers(last: 5, before: "${c}") { totalCount } } }`],
      ['User.notifications', 'after', (c) => `{ viewer { notifications(after: "${c}") { edges { cursor } } } }`],
      [
        'User.notifications',
        'before',
        (c) => `{ viewer { notifications(last: 5, before: "${c}") { edges { cursor } } } }`,
      ],
      ['Post.likedBy', 'after', (c) => `{ post(id: "${postId}") { likedBy(after: "${c}") { totalCount } } }`],
      [
        'Post.likedBy',
        'before',
        (c) => `{ post(id: "${postId}") { likedBy(last: 5, before: "${c}") { totalCount } } }`,
      ],
      ['Post.repostedBy', 'after', (c) => `{ post(id: "${postId}") { repostedBy(after: "${c}") { totalCount } } }`],
      [
        'Post.repostedBy',
        'before',
        (c) => `{ post(id: "${postId}") { repostedBy(last: 5, before: "${c}") { totalCount } } }`,
      ],
    ];
  }

  it('knows every cursor argument of the schema', () => {
    // A new list must be added to cursorArguments.
    const withCursor = Object.values(schema.getTypeMap())
      .filter(isObjectType)
      .flatMap((type) =>
        Object.values(type.getFields()).flatMap((f) =>
          f.args
            .filter((a) => a.name === 'after' || a.name === 'before')
            .map((a) => `${type.name}.${f.name}(${a.name})`),
        ),
      );
    expect(
      cursorArguments('', '')
        .map(([name, argument]) => `${name}(${argument})`)
        .sort(),
    ).toEqual(withCursor.sort());
  });

  async function refusedEverywhere(cursors: string[]) {
    const user = await t.signUp();
    const postId = await createPost(t, user.token, 'a post');
    const commented = await t.gql<{ addComment: { comment: { id: string } } }>(
      'mutation($id: ID!) { addComment(postId: $id, text: "a comment") { comment { id } } }',
      { id: postId },
      user.token,
    );
    const commentId = commented.data!.addComment.comment.id;
    const answered: string[] = [];
    for (const [name, argument, query] of cursorArguments(user.id, postId, commentId)) {
      for (const cursor of cursors) {
        const result = await t.gql(query(cursor), {}, user.token);
        const fields = (result.errors ?? []).map((e) => e.extensions?.field);
        if (errorCodes(result).join() !== 'BAD_USER_INPUT' || fields.join() !== argument)
          answered.push(`${name}(${argument}: ${cursor}): ${JSON.stringify(result.errors ?? result.data)}`);
      }
    }
    expect(answered).toEqual([]);
  }

  it('refuses a cursor over 1,024 bytes on every list with BAD_USER_INPUT, before it reaches a store', async () => {
    await refusedEverywhere([HUGE_CURSOR, 'A'.repeat(513), 'not a cursor!']);
  });

  it('refuses a cursor that decodes to no position the API gives out, on every list and in both directions', async () => {
    // Each almost the shape of one list's positions: "AT#~~" once sorted past the end of the notifications range (a DynamoDB ValidationException).
    const positions: unknown[] = [
      'AT#~~',
      'AT#',
      `AT#000000000000000#FOLLOW#~`,
      '~',
      '000000000000000#~',
      '000000000000000#usr_~',
      '1:~',
      'pst_~',
      `pst_${'0'.repeat(26)}#~`,
      '2026-01-01T00:00:00.000Z|~',
      // A number past any offset searchUsers gives out (its cursors are offsets into at most 100 candidates).
      101,
      ['pst_00000000000000000000000000'],
      null,
    ];
    await refusedEverywhere(positions.map(encodeCursor));
  });
});

describe('text', () => {
  const SIGN_UP = 'mutation($input: SignUpInput!) { signUp(input: $input) { user { id displayName bio } } }';
  const UPDATE = 'mutation($input: UpdateProfileInput!) { updateProfile(input: $input) { displayName bio } }';
  const CREATE_POST = 'mutation($input: CreatePostInput!) { createPost(input: $input) { post { id text } } }';
  const ADD_COMMENT =
    'mutation($postId: ID!, $text: String!) { addComment(postId: $postId, text: $text) { comment { id text } } }';

  const REFUSED: [string, string][] = [
    ['empty', ''],
    ['zero-width characters only', '\u200B\u200C\u200D\u2060\uFEFF'],
    ['spaces and zero-width characters', ' \u200B \u00A0\u3000\n\t'],
    ['a NUL', 'a\u0000b'],
    ['a bell', 'ring\u0007'],
    ['an escape sequence', '\u001B[31mred'],
    ['DEL', 'a\u007F'],
    ['a C1 control', 'a\u0085b'],
    ['a lone high surrogate', 'a\uD83Db'],
    ['a lone low surrogate', '\uDE00b'],
  ];

  async function fieldsRefuse(send: (value: string) => Promise<GraphQLResponse>, field: string) {
    for (const [what, value] of REFUSED) {
      const result = await send(value);
      expect({ what, ...refusal(result) }).toEqual({ what, code: 'BAD_USER_INPUT', field });
    }
  }

  it('refuses blank text, control characters and lone surrogates in posts and comments, and creates nothing', async () => {
    const author = await t.signUp();
    await fieldsRefuse((text) => t.gql(CREATE_POST, { input: { text } }, author.token), 'input.text');
    const posts = await t.gql('query($id: ID!) { user(id: $id) { postCount posts { edges { cursor } } } }', {
      id: author.id,
    });
    expect(posts.data!.user).toEqual({ postCount: 0, posts: { edges: [] } });

    const postId = await createPost(t, author.token, 'a post');
    await fieldsRefuse((text) => t.gql(ADD_COMMENT, { postId, text }, author.token), 'text');
    const comments = await t.gql('query($id: ID!) { post(id: $id) { commentCount comments { edges { cursor } } } }', {
      id: postId,
    });
    expect(comments.data!.post).toEqual({ commentCount: 0, comments: { edges: [] } });
  });

  it('refuses them in display names and bios at sign-up and on update, and changes nothing', async () => {
    for (const field of ['displayName', 'bio']) {
      await fieldsRefuse(async (value) => {
        const handle = `t_${Math.random().toString(36).slice(2, 12)}`;
        const result = await t.gql(SIGN_UP, { input: { handle, password: TEST_PASSWORD, [field]: value } });
        expect((await t.gql(`{ user(handle: "${handle}") { id } }`)).data!.user).toBeNull();
        return result;
      }, `input.${field}`);
    }
    const user = await t.signUp(undefined, { displayName: 'Kept', bio: 'kept' });
    for (const field of ['displayName', 'bio']) {
      await fieldsRefuse((value) => t.gql(UPDATE, { input: { [field]: value } }, user.token), `input.${field}`);
    }
    expect((await t.gql('{ viewer { displayName bio } }', {}, user.token)).data!.viewer).toEqual({
      displayName: 'Kept',
      bio: 'kept',
    });
  });

  it('keeps newlines, tabs, emoji sequences and zero-width joiners within text, and stores it NFC-normalized', async () => {
    // "é" written as e + combining acute accent; a CRLF line break.
    const decomposed = 'Cafe\u0301\r\nline\ttab 👩‍💻 \u200Bx';
    const stored = 'Caf\u00E9\nline\ttab 👩‍💻 \u200Bx';
    const signedUp = await t.gql(SIGN_UP, {
      input: {
        handle: `t_${Math.random().toString(36).slice(2, 12)}`,
        displayName: 'Zoe\u0308',
        bio: decomposed,
        password: TEST_PASSWORD,
      },
    });
    expect(signedUp.data!.signUp.user).toMatchObject({ displayName: 'Zo\u00EB', bio: stored });
    const user = await t.signUp();
    const updated = await t.gql(UPDATE, { input: { displayName: 'A\u030A', bio: decomposed } }, user.token);
    expect(updated.data!.updateProfile).toEqual({ displayName: '\u00C5', bio: stored });

    const post = await t.gql(CREATE_POST, { input: { text: decomposed } }, user.token);
    expect(post.data!.createPost.post.text).toBe(stored);
    const comment = await t.gql(ADD_COMMENT, { postId: post.data!.createPost.post.id, text: decomposed }, user.token);
    expect(comment.data!.addComment.comment.text).toBe(stored);
    const reread = await t.gql('query($id: ID!) { post(id: $id) { text comments { edges { node { text } } } } }', {
      id: post.data!.createPost.post.id,
    });
    expect(reread.data!.post).toEqual({ text: stored, comments: { edges: [{ node: { text: stored } }] } });
  });

  it('counts length after normalization, in characters', async () => {
    const user = await t.signUp();
    // 64 characters once composed, 128 code units as sent.
    const result = await t.gql(UPDATE, { input: { displayName: 'e\u0301'.repeat(64) } }, user.token);
    expect(result.data!.updateProfile.displayName).toBe('\u00E9'.repeat(64));
    expect(refusal(await t.gql(UPDATE, { input: { displayName: '😀'.repeat(65) } }, user.token))).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'input.displayName',
    });
  });

  it('refuses bidirectional overrides, isolates and line separators in handles and display names, and changes nothing', async () => {
    // Each reorders or breaks what is shown around it: "x\u202Eevil" reads "xlive".
    const spoofing = [
      '\u202A',
      '\u202B',
      '\u202C',
      '\u202D',
      '\u202E',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\u2028',
      '\u2029',
    ];
    for (const character of spoofing) {
      const handle = `t_${Math.random().toString(36).slice(2, 12)}`;
      for (const [input, field] of [
        [{ handle: `${handle}${character}` }, 'input.handle'],
        [{ handle: `${character}${handle}` }, 'input.handle'],
        [{ handle, displayName: `x${character}evil` }, 'input.displayName'],
      ] as const) {
        const result = await t.gql(SIGN_UP, { input: { password: TEST_PASSWORD, ...input } });
        expect({ character, ...refusal(result) }).toEqual({ character, code: 'BAD_USER_INPUT', field });
      }
      expect((await t.gql(`{ user(handle: "${handle}") { id } }`)).data!.user).toBeNull();
    }
    // Lower-casing is ASCII's: the Kelvin sign is no "k".
    expect(
      refusal(await t.gql(SIGN_UP, { input: { handle: `\u212Aelvin_${Date.now()}`, password: TEST_PASSWORD } })),
    ).toEqual({ code: 'BAD_USER_INPUT', field: 'input.handle' });

    const user = await t.signUp(undefined, { displayName: 'Kept' });
    for (const character of [...spoofing, '\n']) {
      expect({
        character,
        ...refusal(await t.gql(UPDATE, { input: { displayName: `x${character}evil` } }, user.token)),
      }).toEqual({
        character,
        code: 'BAD_USER_INPUT',
        field: 'input.displayName',
      });
    }
    expect((await t.gql('{ viewer { displayName } }', {}, user.token)).data!.viewer).toEqual({ displayName: 'Kept' });
    // Bios are free text, as posts: right-to-left marks and isolates have their uses there.
    expect(
      (await t.gql(UPDATE, { input: { bio: 'مرحبا \u2067@ada\u2069!' } }, user.token)).data!.updateProfile.bio,
    ).toBe('مرحبا \u2067@ada\u2069!');
  });

  it('validates network(interest:) like interests', async () => {
    const user = await t.signUp(undefined, { interests: ['chess'] });
    for (const interest of ['not ok', '', 'x'.repeat(41), 'ch\u0000ess', '\u200B']) {
      const result = await t.gql(
        'query($id: ID!, $interest: String) { network(userId: $id, interest: $interest) { totalCount } }',
        { id: user.id, interest },
      );
      expect({ interest, ...refusal(result) }).toEqual({ interest, code: 'BAD_USER_INPUT', field: 'interest' });
    }
    const fine = await t.gql('query($id: ID!) { network(userId: $id, interest: " Chess ") { totalCount } }', {
      id: user.id,
    });
    expect(fine.data!.network).toEqual({ totalCount: 0 });
  });
});

describe('dates', () => {
  it('refuses a DateTime that names no moment instead of rolling it over, and takes every real one', async () => {
    const user = await t.signUp();
    const MARK = 'mutation($until: DateTime) { markNotificationsRead(until: $until) { id } }';
    for (const until of [
      '2026-02-31T00:00:00Z',
      '2026-02-29T12:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T23:60:00Z',
      '2026-01-01T00:00:00+24:00',
    ]) {
      const result = await t.gql(MARK, { until }, user.token);
      expect({ until, codes: errorCodes(result) }).toEqual({ until, codes: ['BAD_USER_INPUT'] });
    }
    const literal = await t.gql(
      'mutation { markNotificationsRead(until: "2026-02-31T00:00:00Z") { id } }',
      {},
      user.token,
    );
    expect(errorCodes(literal)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    for (const until of ['2028-02-29T12:00:00Z', '2000-02-29T00:00:00.5+02:00', '2026-12-31T23:59:59.999Z'])
      expect((await t.gql(MARK, { until }, user.token)).data).toEqual({ markNotificationsRead: { id: user.id } });
  });
});
