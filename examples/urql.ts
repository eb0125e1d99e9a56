/**
 * urql for this API: graphcache with keys for the types that have no id and pagination both ways for every
 * connection, the auth exchange refreshing through the shared session, subscriptions over graphql-ws.
 * Framework-free; with React, pass the client to urql's <Provider>.
 */
import { Client, fetchExchange, subscriptionExchange, type Operation } from '@urql/core';
import { authExchange } from '@urql/exchange-auth';
import {
  cacheExchange,
  type KeyingConfig,
  type OptimisticMutationConfig,
  type ResolverConfig,
} from '@urql/exchange-graphcache';
import { relayPagination } from '@urql/exchange-graphcache/extras';
import type { Client as SocketClient } from 'graphql-ws';
import type { Session } from './session.js';
import { createSocket, fetchHonoringRetryAfter } from './transport.js';

/**
 * Types without an id are stored inside their parent; saying so spares graphcache's "Invalid key" warning. (It needs
 * no word for PageInfo, connections, edges, or mutation payloads, which it does not keep.)
 */
export const keys: KeyingConfig = Object.fromEntries(
  ['FanOutStatus', 'ReactionCount', 'Suggestion', 'Separation', 'Session', 'RateLimit', 'TagCount'].map((type) => [
    type,
    () => null,
  ]),
);

/**
 * Every connection, its pages merged into one list. 'outwards' puts a `last`/`before` page (pull-to-refresh) in
 * front of the pages it is newer than; the default ('inwards') would put it after the `first`/`after` pages.
 */
const pages = relayPagination({ mergeMode: 'outwards' });
export const resolvers: ResolverConfig = {
  Query: { publicTimeline: pages, tagTimeline: pages, network: pages, searchUsers: pages },
  User: {
    timeline: pages,
    posts: pages,
    notifications: pages,
    followers: pages,
    following: pages,
    knownFollowers: pages,
    mutuals: pages,
    blockedUsers: pages,
    mutedUsers: pages,
  },
  Post: { comments: pages, likedBy: pages, repostedBy: pages },
  Comment: { replies: pages },
};

/** The like shows at once; graphcache drops it again if the service refuses. */
const optimistic: OptimisticMutationConfig = {
  likePost: ({ postId }, cache) => {
    const post = { __typename: 'Post', id: postId as string };
    const likeCount = cache.resolve(post, 'likeCount');
    const liked = cache.resolve(post, 'viewerHasLiked') === true;
    return {
      __typename: 'PostPayload',
      post: {
        ...post,
        viewerHasLiked: true,
        likeCount: typeof likeCount === 'number' && !liked ? likeCount + 1 : likeCount,
      },
    };
  },
};

/** The token an operation was sent with, from the header addAuthToOperation set. */
function sentToken(operation: Operation): string | null {
  const options =
    typeof operation.context.fetchOptions === 'function'
      ? operation.context.fetchOptions()
      : operation.context.fetchOptions;
  const header = (options?.headers as Record<string, string> | undefined)?.authorization;
  return header?.replace(/^Bearer /, '') ?? null;
}

export interface UrqlExampleOptions {
  /** The GraphQL endpoint over HTTP, e.g. http://localhost:4000/graphql; subscriptions use its ws:// twin. */
  url: string;
  session: Session;
  /** For tests and platforms without a global fetch or WebSocket. */
  fetch?: typeof fetch;
  webSocketImpl?: unknown;
}

export function createUrqlClient({ url, session, fetch = globalThis.fetch, webSocketImpl }: UrqlExampleOptions): {
  client: Client;
  socket: SocketClient;
} {
  const socket = createSocket(session, url.replace(/^http/, 'ws'), { webSocketImpl });
  let refused: string | null = null;
  const auth = authExchange(async (utils) => ({
    addAuthToOperation: (operation) => {
      const token = session.tokens?.token;
      return token ? utils.appendHeaders(operation, { authorization: `Bearer ${token}` }) : operation;
    },
    // Close to its end: the exchange holds operations back, refreshes, then sends them with the new token.
    willAuthError: () => session.refreshDue,
    // HTTP 401: the token was refused (expired early, or signed out by changePassword). Retried once after.
    didAuthError: (error, operation) => {
      if (error.response?.status !== 401) return false;
      refused = sentToken(operation);
      return true;
    },
    // A refresh failure (SessionEndedError: sign in again) reaches the held operations as their error.
    refreshAuth: async () => {
      const stale = refused;
      refused = null;
      await (stale ? session.refreshAfter(stale) : session.accessToken());
    },
  }));
  const client = new Client({
    url,
    // Every operation a JSON POST: CSRF prevention refuses urql's default GET for queries (docs/design/limits.md).
    preferGetMethod: false,
    fetch: fetchHonoringRetryAfter({ fetch }),
    exchanges: [
      cacheExchange({ keys, resolvers, optimistic }),
      auth,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({ unsubscribe: socket.subscribe({ ...request, query: request.query ?? '' }, sink) }),
        }),
      }),
    ],
  });
  return { client, socket };
}
