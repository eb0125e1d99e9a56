import { ApolloClient, HttpLink, InMemoryCache, gql, type NormalizedCacheObject } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readExampleOperations } from '../../src/http/graphiql-operations.js';
import { TEST_PASSWORD, startTestApp, uniqueHandle, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/posts.js';

/** The example operations in docs/operations, as a client would ship them. */
const operations = Object.fromEntries(readExampleOperations().map((o) => [o.name, gql(o.document)]));

interface TimelinePage {
  viewer: {
    id: string;
    timeline: {
      edges: { cursor: string; node: { id: string; text: string; author: { id: string; handle: string } } }[];
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    };
  };
}

/** Apollo Client 4 types a result by its document; these documents are plain strings, so the test names the shapes. */
interface SignUpResult {
  signUp: { token: string; user: { id: string; handle: string } };
}
interface FollowResult {
  follow: { user: { id: string; followerCount: number; viewerFollows: boolean } };
}
interface CreatePostResult {
  createPost: { post: { id: string } };
}

let t: TestApp;
let requests = 0;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
});

/** An Apollo Client over HTTP with a normalized cache; timelines are Relay connections merged page by page. */
function clientFor(token?: string): ApolloClient {
  return new ApolloClient({
    link: new HttpLink({
      uri: `${t.url}/graphql`,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      fetch: (input, init) => {
        requests += 1;
        return fetch(input, init);
      },
    }),
    cache: new InMemoryCache({
      typePolicies: { User: { fields: { timeline: relayStylePagination(), posts: relayStylePagination() } } },
    }),
  });
}

async function signUp(client: ApolloClient, displayName: string) {
  const { data } = await client.mutate<SignUpResult>({
    mutation: operations['sign-up']!,
    variables: { input: { handle: uniqueHandle(displayName.toLowerCase()), displayName, password: TEST_PASSWORD } },
  });
  return { id: data!.signUp.user.id, handle: data!.signUp.user.handle, token: data!.signUp.token };
}

describe('Apollo Client', () => {
  it('signs up, follows, posts, and pages through a home timeline with fetchMore', async () => {
    const anonymous = clientFor();
    const reader = await signUp(anonymous, 'Reader');
    const author = await signUp(anonymous, 'Author');
    const readerClient = clientFor(reader.token);
    const authorClient = clientFor(author.token);

    const followed = await readerClient.mutate<FollowResult>({ mutation: operations.follow!, variables: { userId: author.id } });
    expect(followed.data!.follow.user).toMatchObject({ id: author.id, followerCount: 1, viewerFollows: true });
    // The payload landed in the normalized cache under the author's id.
    const cachedAuthor = readerClient.cache.readFragment<{ viewerFollows: boolean; followerCount: number }>({
      id: readerClient.cache.identify({ __typename: 'User', id: author.id }),
      fragment: gql`
        fragment FollowState on User {
          viewerFollows
          followerCount
        }
      `,
    });
    expect(cachedAuthor).toEqual({ __typename: 'User', viewerFollows: true, followerCount: 1 });

    const postIds: string[] = [];
    for (let i = 1; i <= 5; i += 1) {
      const created = await authorClient.mutate<CreatePostResult>({ mutation: operations['create-post']!, variables: { input: { text: `post ${i}`, tags: ['client'] } } });
      postIds.push(created.data!.createPost.post.id);
    }
    const newestFirst = [...postIds].reverse();

    // The worker fills home timelines asynchronously: wait until all five have arrived.
    await eventually(async () => {
      const { data } = await readerClient.query<TimelinePage>({ query: operations['home-timeline']!, variables: { first: 5 }, fetchPolicy: 'network-only' });
      expect(data!.viewer.timeline.edges.map((e) => e.node.id)).toEqual(newestFirst);
    });
    await readerClient.clearStore();

    const firstPage = await readerClient.query<TimelinePage>({ query: operations['home-timeline']!, variables: { first: 2 } });
    expect(firstPage.data!.viewer.timeline.edges.map((e) => e.node.id)).toEqual(newestFirst.slice(0, 2));
    // The same query, watched: it answers from the cache, and fetchMore adds the next pages to it.
    const timeline = readerClient.watchQuery<TimelinePage>({ query: operations['home-timeline']!, variables: { first: 2 } });
    // Apollo Client 4 tells whether the data it holds is complete; only a complete page has its pageInfo.
    const currentTimeline = () => {
      const result = timeline.getCurrentResult();
      if (result.dataState !== 'complete') throw new Error(`the watched timeline is ${result.dataState}`);
      return result.data.viewer.timeline;
    };
    const requestsBefore = requests;
    let pages = 1;
    while (currentTimeline().pageInfo.hasNextPage) {
      await timeline.fetchMore({ variables: { after: currentTimeline().pageInfo.endCursor } });
      pages += 1;
    }
    expect(pages).toBe(3);
    expect(requests - requestsBefore).toBe(2);

    // relayStylePagination merged the pages into one list in the cache.
    const merged = currentTimeline();
    expect(merged.edges.map((e) => e.node.id)).toEqual(newestFirst);
    expect(merged.edges.map((e) => e.node.text)).toEqual(['post 5', 'post 4', 'post 3', 'post 2', 'post 1']);
    expect(merged.pageInfo.hasNextPage).toBe(false);
    // Every post's author is the one normalized User entity.
    const cache = readerClient.cache.extract() as NormalizedCacheObject;
    expect(cache[`User:${author.id}`]).toMatchObject({ id: author.id, handle: author.handle });
    for (const id of postIds) expect(cache[`Post:${id}`]).toMatchObject({ author: { __ref: `User:${author.id}` } });

    // Read from the cache alone, the merged timeline needs no request.
    const requestsAfterPaging = requests;
    const cached = await readerClient.query<TimelinePage>({ query: operations['home-timeline']!, variables: { first: 2 }, fetchPolicy: 'cache-only' });
    expect(cached.data!.viewer.timeline.edges).toHaveLength(5);
    expect(requests).toBe(requestsAfterPaging);
  });
});
