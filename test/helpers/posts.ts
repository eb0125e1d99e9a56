import type { TestApp } from './app.js';

export async function createPost(t: TestApp, token: string, text: string, tags?: string[]): Promise<string> {
  const result = await t.gql<{ createPost: { post: { id: string } } }>(
    'mutation($input: CreatePostInput!) { createPost(input: $input) { post { id } } }',
    { input: { text, tags } },
    token,
  );
  if (!result.data?.createPost) throw new Error(`createPost failed: ${JSON.stringify(result.errors)}`);
  return result.data.createPost.post.id;
}

export async function follow(t: TestApp, token: string, userId: string): Promise<void> {
  const result = await t.gql('mutation($id: ID!) { follow(userId: $id) { user { id } } }', { id: userId }, token);
  if (result.errors) throw new Error(`follow failed: ${JSON.stringify(result.errors)}`);
}

export async function unfollow(t: TestApp, token: string, userId: string): Promise<void> {
  const result = await t.gql('mutation($id: ID!) { unfollow(userId: $id) { user { id } } }', { id: userId }, token);
  if (result.errors) throw new Error(`unfollow failed: ${JSON.stringify(result.errors)}`);
}

/** Reposts (or unreposts) the post as the user: the post's repost state after it. */
export async function repostAs(
  t: TestApp,
  user: { token: string },
  postId: string,
  mutation: 'repost' | 'unrepost' = 'repost',
): Promise<{ id: string; repostCount: number; viewerHasReposted: boolean }> {
  const result = await t.gql(
    `mutation($id: ID!) { ${mutation}(postId: $id) { post { id repostCount viewerHasReposted likeCount } } }`,
    { id: postId },
    user.token,
  );
  if (result.errors) throw new Error(JSON.stringify(result.errors));
  return result.data![mutation].post;
}

/** Every entry of the user's home timeline, pages of 3: the post and the handle of the reposter it shows. */
export async function homeEntries(
  t: TestApp,
  user: { id: string; token: string },
): Promise<{ id: string; repostedBy: string | null }[]> {
  const entries: { id: string; repostedBy: string | null }[] = [];
  await idsOfEveryPage(async (after) => {
    const result = await t.gql(
      'query($id: ID!, $after: String) { user(id: $id) { timeline(first: 3, after: $after) { edges { cursor node { id } repostedBy { handle } } pageInfo { hasNextPage endCursor } } } }',
      { id: user.id, after },
      user.token,
    );
    if (result.errors) throw new Error(JSON.stringify(result.errors));
    const page = result.data!.user.timeline;
    entries.push(...page.edges.map((e: any) => ({ id: e.node.id, repostedBy: e.repostedBy?.handle ?? null })));
    return page;
  });
  return entries;
}

/** A connection field's post ids, walked page by page to the end. */
export async function idsOfEveryPage(
  fetchPage: (after: string | null) => Promise<{
    edges: { cursor: string; node: { id: string } }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  }>,
): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  for (;;) {
    const page = await fetchPage(after);
    ids.push(...page.edges.map((edge) => edge.node.id));
    if (!page.pageInfo.hasNextPage) return ids;
    after = page.pageInfo.endCursor;
  }
}

const PAGE = 'edges { cursor node { id } } pageInfo { hasNextPage endCursor }';

/** Every post id in the user's home timeline, newest first. */
export function homeIds(t: TestApp, user: { id: string; token: string }, first = 100): Promise<string[]> {
  return idsOfEveryPage(async (after) => {
    const result = await t.gql(
      `query($id: ID!, $first: Int, $after: String) { user(id: $id) { timeline(first: $first, after: $after) { ${PAGE} } } }`,
      { id: user.id, first, after },
      user.token,
    );
    if (result.errors) throw new Error(JSON.stringify(result.errors));
    return result.data!.user.timeline;
  });
}

export function tagIds(t: TestApp, tag: string, first = 100): Promise<string[]> {
  return idsOfEveryPage(async (after) => {
    const result = await t.gql(
      `query($tag: String!, $first: Int, $after: String) { tagTimeline(tag: $tag, first: $first, after: $after) { ${PAGE} } }`,
      { tag, first, after },
    );
    if (result.errors) throw new Error(JSON.stringify(result.errors));
    return result.data!.tagTimeline;
  });
}

export function publicIds(t: TestApp, first = 100): Promise<string[]> {
  return idsOfEveryPage(async (after) => {
    const result = await t.gql(
      `query($first: Int, $after: String) { publicTimeline(first: $first, after: $after) { ${PAGE} } }`,
      { first, after },
    );
    if (result.errors) throw new Error(JSON.stringify(result.errors));
    return result.data!.publicTimeline;
  });
}

export function authorIds(t: TestApp, userId: string, first = 100): Promise<string[]> {
  return idsOfEveryPage(async (after) => {
    const result = await t.gql(
      `query($id: ID!, $first: Int, $after: String) { user(id: $id) { posts(first: $first, after: $after) { ${PAGE} } } }`,
      { id: userId, first, after },
    );
    if (result.errors) throw new Error(JSON.stringify(result.errors));
    return result.data!.user.posts;
  });
}

/** Newest first, as every timeline orders them. */
export const newestFirst = (ids: readonly string[]) => [...ids].sort().reverse();
