import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PASSWORD, errorCodes, startTestApp, type TestApp } from '../helpers/app.js';
import { scriptOutput } from '../helpers/scripts.js';
import { createPost } from '../helpers/posts.js';
import { waitForQueueToDrain } from '../helpers/queue.js';

type Account = { id: string; handle: string; token: string };

let t: TestApp;
beforeAll(async () => {
  // A thread five levels deep in one request nests 21 fields.
  t = await startTestApp({ MAX_QUERY_DEPTH: '24' });
});
afterAll(async () => {
  await t.stop();
});

async function ok(query: string, variables: Record<string, unknown>, token?: string) {
  const result = await t.gql(query, variables, token);
  if (result.errors) throw new Error(JSON.stringify(result.errors));
  return result.data!;
}

const REPLY =
  'mutation($post: ID!, $to: ID, $text: String!) { addComment(postId: $post, replyTo: $to, text: $text) { comment { id depth } } }';
const DELETE = 'mutation($id: ID!) { deleteComment(commentId: $id) { deletedCommentId post { id commentCount } } }';

/** Adds a comment (a reply with `to`) and returns its id. */
async function comment(user: Account, post: string, text: string, to: string | null = null): Promise<string> {
  return (await ok(REPLY, { post, to, text }, user.token)).addComment.comment.id;
}

const FIELDS = 'id text depth replyCount deleted author { handle }';
/** A post's comments with replies `levels` deep, as one request reads them: pages small enough for the cost limit, which multiplies them. */
function threadQuery(levels: number): string {
  let node = FIELDS;
  for (let level = levels; level > 0; level--)
    node = `${FIELDS} replies(first: ${level === 1 ? 5 : 2}) { edges { node { ${node} } } pageInfo { hasNextPage } }`;
  return `query($id: ID!) { post(id: $id) { commentCount comments(first: 3) { edges { node { ${node} } } pageInfo { hasNextPage } } } }`;
}

interface ThreadNode {
  id: string;
  text: string | null;
  depth: number;
  replyCount: number;
  deleted: boolean;
  author: { handle: string } | null;
  replies?: { edges: { node: ThreadNode }[] };
}

/** A thread as nested [text, replyCount, children] for comparing shapes. */
type Shape = [string | null, number, Shape[]];
const shape = (node: ThreadNode): Shape => [
  node.text,
  node.replyCount,
  (node.replies?.edges ?? []).map((e) => shape(e.node)),
];

async function thread(
  post: string,
  viewer?: Account,
  levels = 5,
): Promise<{ commentCount: number; comments: ThreadNode[] }> {
  const data = await ok(threadQuery(levels), { id: post }, viewer?.token);
  return {
    commentCount: data.post.commentCount,
    comments: data.post.comments.edges.map((e: { node: ThreadNode }) => e.node),
  };
}

async function verifyCounters(): Promise<string> {
  return scriptOutput(t, 'counters-verify');
}

describe('threaded replies', () => {
  it('reads a thread five levels deep back in order, with exact reply counts, top-level comments in Post.comments and every comment in commentCount', async () => {
    const [author, a, b, c] = (await Promise.all([t.signUp(), t.signUp(), t.signUp(), t.signUp()])) as Account[];
    const post = await createPost(t, author!.token, 'talk to me');
    const top = await comment(a!, post, 'level 0');
    const l1 = await comment(b!, post, 'level 1', top);
    const l1b = await comment(c!, post, 'level 1 again', top);
    const l2 = await comment(a!, post, 'level 2', l1);
    const l3 = await comment(b!, post, 'level 3', l2);
    const l4 = await comment(c!, post, 'level 4', l3);
    await comment(a!, post, 'level 5', l4);
    await comment(author!, post, 'second top');
    await comment(b!, post, 'under level 1 again', l1b);

    const { commentCount, comments } = await thread(post);
    expect(commentCount).toBe(9);
    expect(comments.map(shape)).toEqual([
      [
        'level 0',
        2,
        [
          ['level 1', 1, [['level 2', 1, [['level 3', 1, [['level 4', 1, [['level 5', 0, []]]]]]]]]],
          ['level 1 again', 1, [['under level 1 again', 0, []]]],
        ],
      ],
      ['second top', 0, []],
    ]);
    let deepest = comments[0]!;
    for (let depth = 0; depth <= 5; depth++) {
      expect(deepest.depth).toBe(depth);
      if (depth < 5) deepest = deepest.replies!.edges[0]!.node;
    }
    expect(deepest.author).toEqual({ handle: a!.handle });

    // The deepest comment leads back up to the post through its parents, by comment(id) and by node(id).
    const chain = `id depth parent { id depth parent { id parent { id parent { id parent { id parent { id } } } } } } post { id }`;
    const byId = await ok(
      `query($id: ID!) { comment(id: $id) { ${chain} } node(id: $id) { ... on Comment { ${chain} } } }`,
      { id: deepest.id },
    );
    expect(byId.node).toEqual(byId.comment);
    const ancestors: string[] = [];
    for (let at = byId.comment.parent; at; at = at.parent) ancestors.push(at.id);
    expect(ancestors).toEqual([l4, l3, l2, l1, top]);
    expect(byId.comment.post).toEqual({ id: post });
    expect(byId.comment.parent.depth).toBe(4);
  });

  it('refuses a reply to a comment of another post or to none, and attaches one past COMMENT_MAX_DEPTH to the deepest allowed parent', async () => {
    const shallow = await startTestApp({
      COMMENT_MAX_DEPTH: '2',
      TABLE_PREFIX: t.tablePrefix,
      WORKER_ENABLED: 'false',
    });
    try {
      const [author, other] = [await shallow.signUp(), await shallow.signUp()];
      const post = await createPost(shallow, author.token, 'shallow');
      const elsewhere = await createPost(shallow, author.token, 'elsewhere');
      const add = (to: string | null, text: string, postId = post) =>
        shallow.gql(REPLY, { post: postId, to, text }, other.token);
      const top = (await add(null, 'top')).data!.addComment.comment.id;
      const one = (await add(top, 'one')).data!.addComment.comment.id;
      const two = (await add(one, 'two')).data!.addComment.comment;
      expect(two.depth).toBe(2);
      // Past the bound: a sibling of the comment replied to, under its parent.
      const three = (await add(two.id, 'three')).data!.addComment.comment;
      expect(three.depth).toBe(2);
      const parent = await shallow.gql('query($id: ID!) { comment(id: $id) { parent { id replyCount } } }', {
        id: three.id,
      });
      expect(parent.data!.comment.parent).toEqual({ id: one, replyCount: 2 });

      expect(errorCodes(await add(top, 'wrong post', elsewhere))).toEqual(['BAD_USER_INPUT']);
      expect(errorCodes(await add('cmt_01JD0000000000000000000000', 'nobody'))).toEqual(['NOT_FOUND']);
      expect(errorCodes(await add(post, 'not a comment'))).toEqual(['BAD_USER_INPUT']);
      const counted = await shallow.gql('query($id: ID!) { post(id: $id) { commentCount } }', { id: post });
      expect(counted.data!.post.commentCount).toBe(4);
    } finally {
      await shallow.stop();
    }
  });

  it('deletes a comment without replies, keeps one with replies as a tombstone, and lets the last reply take the tombstone with it', async () => {
    const [author, a, b, stranger] = (await Promise.all([t.signUp(), t.signUp(), t.signUp(), t.signUp()])) as Account[];
    const post = await createPost(t, author!.token, 'moderate me');
    const top = await comment(a!, post, 'parent');
    const reply = await comment(b!, post, 'reply', top);
    const lone = await comment(b!, post, 'lone');

    expect(errorCodes(await t.gql(DELETE, { id: top }, stranger!.token))).toEqual(['FORBIDDEN']);
    expect(errorCodes(await t.gql(DELETE, { id: top }))).toEqual(['UNAUTHENTICATED']);

    // The post's author deletes a comment of someone else's without replies: it goes.
    expect((await ok(DELETE, { id: lone }, author!.token)).deleteComment).toEqual({
      deletedCommentId: lone,
      post: { id: post, commentCount: 2 },
    });
    expect((await ok('query($id: ID!) { comment(id: $id) { id } }', { id: lone })).comment).toBeNull();
    expect(errorCodes(await t.gql(DELETE, { id: lone }, author!.token))).toEqual(['NOT_FOUND']);

    // Its author deletes a comment with a reply: a tombstone with its author and no text, its reply still under it.
    expect((await ok(DELETE, { id: top }, a!.token)).deleteComment.post.commentCount).toBe(1);
    let read = await thread(post, author);
    expect(read.commentCount).toBe(1);
    expect(read.comments).toHaveLength(1);
    expect(read.comments[0]).toMatchObject({
      id: top,
      text: '',
      author: { handle: a!.handle },
      deleted: true,
      replyCount: 1,
    });
    expect(read.comments[0]!.replies!.edges.map((e) => e.node.text)).toEqual(['reply']);
    expect(
      (await ok('query($id: ID!) { comment(id: $id) { id deleted text author { id } mentions { id } } }', { id: top }))
        .comment,
    ).toEqual({
      id: top,
      deleted: true,
      text: '',
      author: { id: a!.id },
      mentions: [],
    });
    // A tombstone takes no replies and is deleted once.
    expect(errorCodes(await t.gql(REPLY, { post, to: top, text: 'late' }, b!.token))).toEqual(['NOT_FOUND']);
    expect(errorCodes(await t.gql(DELETE, { id: top }, a!.token))).toEqual(['NOT_FOUND']);

    // The last reply goes, and the tombstone it leaves without replies with it.
    await ok(DELETE, { id: reply }, b!.token);
    read = await thread(post, author);
    expect(read).toEqual({ commentCount: 0, comments: [] });
    expect(await verifyCounters()).toContain('no drift');
  });

  it('keeps replyCount and commentCount exact while replies and deletions race, as counters:verify finds', async () => {
    const users = (await Promise.all(Array.from({ length: 4 }, () => t.signUp()))) as Account[];
    const post = await createPost(t, users[0]!.token, 'busy');
    const top = await comment(users[0]!, post, 'root');
    const replies = await Promise.all(
      users.flatMap((user) => [comment(user, post, 'r1', top), comment(user, post, 'r2', top)]),
    );
    await Promise.all([
      ...replies.slice(0, 3).map((id, i) => ok(DELETE, { id }, users[Math.floor(i / 2)]!.token)),
      ok(DELETE, { id: top }, users[0]!.token),
    ]);
    const { commentCount, comments } = await thread(post);
    expect(commentCount).toBe(5);
    expect(comments[0]).toMatchObject({ deleted: true, replyCount: 5 });
    expect(comments[0]!.replies!.edges).toHaveLength(5);
    expect(await verifyCounters()).toContain('no drift');
  });

  it('removes a deleted account’s comments the same way, and leaves its tombstones out of the thread with their replies', async () => {
    const [author, doomed, other] = (await Promise.all([t.signUp(), t.signUp(), t.signUp()])) as Account[];
    const post = await createPost(t, author!.token, 'talk');
    const answered = await comment(doomed!, post, 'answered');
    await comment(other!, post, 'answer', answered);
    const nested = await comment(doomed!, post, 'nested reply', answered);
    await comment(doomed!, post, 'unanswered');
    expect((await thread(post)).commentCount).toBe(4);
    await ok(
      'mutation($p: String) { deleteAccount(password: $p) { deletedUserId } }',
      { p: TEST_PASSWORD },
      doomed!.token,
    );
    await waitForQueueToDrain(t);
    const { commentCount, comments } = await thread(post);
    // The answer is still counted and stored, under a tombstone that has no author left to show.
    expect(commentCount).toBe(1);
    expect(comments).toEqual([]);
    expect((await ok('query($id: ID!) { comment(id: $id) { id } }', { id: answered })).comment).toBeNull();
    expect((await ok('query($id: ID!) { comment(id: $id) { id } }', { id: nested })).comment).toBeNull();
    expect(await verifyCounters()).toContain('no drift');
  });
});

describe('REPLY notifications and blocks', () => {
  const NOTIFICATIONS =
    'query($id: ID!) { user(id: $id) { notifications(first: 50) { edges { node { kind post { id } actors { id } actorCount } } } } }';
  async function groups(user: Account) {
    await waitForQueueToDrain(t);
    const data = await ok(NOTIFICATIONS, { id: user.id }, user.token);
    return data.user.notifications.edges.map((e: { node: unknown }) => e.node) as {
      kind: string;
      post: { id: string };
      actors: { id: string }[];
      actorCount: number;
    }[];
  }

  it('tells the author replied to, grouped per post, never for their own replies nor from an account they muted; mentions in replies notify', async () => {
    const [author, commenter, b, c, muted, mentioned] = (await Promise.all(
      Array.from({ length: 6 }, () => t.signUp()),
    )) as Account[];
    await ok('mutation($id: ID!) { mute(userId: $id) { user { id } } }', { id: muted!.id }, commenter!.token);
    const post = await createPost(t, author!.token, 'threads');
    const top = await comment(commenter!, post, 'say something');
    await comment(b!, post, 'one', top);
    await comment(c!, post, 'two', top);
    await comment(b!, post, 'three', top);
    await comment(commenter!, post, 'talking to myself', top);
    await comment(muted!, post, 'you muted me', top);
    await comment(c!, post, `hey @${mentioned!.handle}`, top);

    const replies = (await groups(commenter!)).filter((g) => g.kind === 'REPLY');
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatchObject({ post: { id: post }, actorCount: 2, actors: [{ id: c!.id }, { id: b!.id }] });
    expect((await groups(mentioned!)).map((g) => [g.kind, g.post.id])).toEqual([['MENTION', post]]);
    // The post's author hears of the comments as before, the replies included.
    const onPost = (await groups(author!)).find((g) => g.kind === 'COMMENT');
    expect(onPost?.actorCount).toBe(4);
  });

  it("takes a deleted comment's COMMENT, REPLY and MENTION back, but not what another comment of its author's still makes", async () => {
    const [author, commenter, b, c, mentioned] = (await Promise.all(
      Array.from({ length: 5 }, () => t.signUp()),
    )) as Account[];
    const post = await createPost(t, author!.token, 'taken back');
    const top = await comment(commenter!, post, 'top');
    const reply = await comment(b!, post, `hi @${mentioned!.handle}`, top);
    const second = await comment(b!, post, 'second');
    await comment(c!, post, 'me too', top);
    const actorsOf = async (user: Account, kind: string) =>
      (await groups(user)).filter((g) => g.kind === kind).map((g) => g.actors.map((a) => a.id).sort());
    expect(await actorsOf(author!, 'COMMENT')).toEqual([[b!.id, c!.id, commenter!.id].sort()]);
    expect(await actorsOf(commenter!, 'REPLY')).toEqual([[b!.id, c!.id].sort()]);
    expect(await actorsOf(mentioned!, 'MENTION')).toEqual([[b!.id]]);

    await ok(DELETE, { id: reply }, b!.token);
    expect(await actorsOf(commenter!, 'REPLY')).toEqual([[c!.id]]);
    expect(await actorsOf(mentioned!, 'MENTION')).toEqual([]);
    // b's other comment on the post still tells its author.
    expect(await actorsOf(author!, 'COMMENT')).toEqual([[b!.id, c!.id, commenter!.id].sort()]);
    await ok(DELETE, { id: second }, b!.token);
    expect(await actorsOf(author!, 'COMMENT')).toEqual([[c!.id, commenter!.id].sort()]);
    // Deleted by the post's author, a comment with replies becomes a tombstone: its author leaves the group all the same.
    await ok(DELETE, { id: top }, author!.token);
    expect(await actorsOf(author!, 'COMMENT')).toEqual([[c!.id]]);
    expect(await actorsOf(commenter!, 'REPLY')).toEqual([[c!.id]]);
  });

  it('never puts the author of a deleted comment back into a group, though another comment of theirs stands', async () => {
    const [author, commenter] = (await Promise.all(Array.from({ length: 2 }, () => t.signUp()))) as Account[];
    const post = await createPost(t, author!.token, 'muted for a while');
    const first = await comment(commenter!, post, 'one');
    await comment(commenter!, post, 'two');
    expect((await groups(author!)).filter((g) => g.kind === 'COMMENT')).toHaveLength(1);
    // A mute takes the commenter out of the group; unmuting puts nobody back.
    for (const verb of ['mute', 'unmute'])
      await ok(`mutation($id: ID!) { ${verb}(userId: $id) { user { id } } }`, { id: commenter!.id }, author!.token);
    expect((await groups(author!)).filter((g) => g.kind === 'COMMENT')).toEqual([]);
    await ok(DELETE, { id: first }, commenter!.token);
    expect((await groups(author!)).filter((g) => g.kind === 'COMMENT')).toEqual([]);
  });

  it('leaves out the replies of an account in a block with the viewer, with their replies, and refuses replies either way across a block', async () => {
    const [author, viewer, blocked, other] = (await Promise.all(
      Array.from({ length: 4 }, () => t.signUp()),
    )) as Account[];
    const post = await createPost(t, author!.token, 'blocks');
    const top = await comment(viewer!, post, 'mine');
    const hidden = await comment(blocked!, post, 'from a blocked account', top);
    await comment(other!, post, 'under the hidden one', hidden);
    await comment(other!, post, 'visible', top);
    await ok('mutation($id: ID!) { block(userId: $id) { user { id } } }', { id: blocked!.id }, viewer!.token);

    const seen = await thread(post, viewer);
    expect(seen.comments.map(shape)).toEqual([['mine', 2, [['visible', 0, []]]]]);
    const everyone = await thread(post, other);
    expect(everyone.comments.map(shape)).toEqual([
      [
        'mine',
        2,
        [
          ['from a blocked account', 1, [['under the hidden one', 0, []]]],
          ['visible', 0, []],
        ],
      ],
    ]);
    expect((await ok('query($id: ID!) { comment(id: $id) { id } }', { id: hidden }, viewer!.token)).comment).toBeNull();

    expect(errorCodes(await t.gql(REPLY, { post, to: top, text: 'let me in' }, blocked!.token))).toEqual(['FORBIDDEN']);
    expect(errorCodes(await t.gql(REPLY, { post, to: hidden, text: 'no' }, viewer!.token))).toEqual(['FORBIDDEN']);
    expect((await groups(viewer!)).filter((g) => g.kind === 'REPLY').flatMap((g) => g.actors.map((a) => a.id))).toEqual(
      [other!.id],
    );
  });
});

describe('paging comments both ways', () => {
  const PAGE = `query($id: ID!, $first: Int, $after: String, $last: Int, $before: String) {
    post(id: $id) { comments(first: $first, after: $after, last: $last, before: $before) { edges { cursor node { text } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }
  }`;
  const REPLIES = `query($id: ID!, $last: Int, $before: String) {
    comment(id: $id) { replies(last: $last, before: $before) { edges { node { text } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }
  }`;

  it('reads the newest comments with last, then earlier ones before startCursor, oldest first within each page, as Relay specifies', async () => {
    const [author, a] = (await Promise.all([t.signUp(), t.signUp()])) as Account[];
    const post = await createPost(t, author!.token, 'many');
    const texts = ['c0', 'c1', 'c2', 'c3', 'c4'];
    const ids: string[] = [];
    for (const text of texts) ids.push(await comment(a!, post, text));
    // A reply sorts nowhere among the top-level comments.
    await comment(author!, post, 'reply', ids[2]!);

    const pages: string[][] = [];
    let before: string | null = null;
    for (;;) {
      const connection: {
        edges: { node: { text: string } }[];
        pageInfo: { hasPreviousPage: boolean; hasNextPage: boolean; startCursor: string | null };
      } = (await ok(PAGE, { id: post, last: 2, before })).post.comments;
      pages.push(connection.edges.map((e) => e.node.text));
      expect(connection.pageInfo.hasNextPage).toBe(false);
      if (!connection.pageInfo.hasPreviousPage) break;
      before = connection.pageInfo.startCursor;
    }
    expect(pages).toEqual([['c3', 'c4'], ['c1', 'c2'], ['c0']]);

    // Forwards from a cursor the backward pages gave out; forwards has no previous page to report.
    const first = (await ok(PAGE, { id: post, last: 2 })).post.comments;
    const forwards = (await ok(PAGE, { id: post, first: 10, after: first.edges[0].cursor })).post.comments;
    expect(forwards.edges.map((e: { node: { text: string } }) => e.node.text)).toEqual(['c4']);
    expect(forwards.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });

    expect(errorCodes(await t.gql(PAGE, { id: post, first: 2, last: 2 }))).toEqual(['BAD_USER_INPUT']);
    // `before` alone pages backwards, 20 at a time, as every list that pages both ways does.
    const earlier = (await ok(PAGE, { id: post, before: first.pageInfo.startCursor })).post.comments;
    expect(earlier.edges.map((e: { node: { text: string } }) => e.node.text)).toEqual(['c0', 'c1', 'c2']);

    // A comment's replies page the same ways.
    for (const text of ['r0', 'r1', 'r2']) await comment(author!, post, text, ids[0]!);
    const newest = (await ok(REPLIES, { id: ids[0], last: 2 })).comment.replies;
    expect(newest.edges.map((e: { node: { text: string } }) => e.node.text)).toEqual(['r1', 'r2']);
    expect(newest.pageInfo.hasPreviousPage).toBe(true);
    const older = (await ok(REPLIES, { id: ids[0], last: 2, before: newest.pageInfo.startCursor })).comment.replies;
    expect(older.edges.map((e: { node: { text: string } }) => e.node.text)).toEqual(['r0']);
    expect(older.pageInfo.hasPreviousPage).toBe(false);
    const forward = (
      await ok(
        `query($id: ID!, $after: String) { comment(id: $id) { replies(first: 1, after: $after) { edges { node { text } } pageInfo { hasNextPage endCursor } } } }`,
        {
          id: ids[0],
        },
      )
    ).comment.replies;
    expect(forward.edges.map((e: { node: { text: string } }) => e.node.text)).toEqual(['r0']);
    expect(forward.pageInfo.hasNextPage).toBe(true);
    const rest = (
      await ok(
        `query($id: ID!, $after: String) { comment(id: $id) { replies(first: 5, after: $after) { edges { node { text } } pageInfo { hasNextPage } } } }`,
        {
          id: ids[0],
          after: forward.pageInfo.endCursor,
        },
      )
    ).comment.replies;
    expect(rest.edges.map((e: { node: { text: string } }) => e.node.text)).toEqual(['r1', 'r2']);
  });
});
