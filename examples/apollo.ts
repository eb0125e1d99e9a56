/**
 * Apollo Client 4 for this API: a normalized cache that pages every connection both ways, tokens refreshed once
 * for all requests and the socket, subscriptions over graphql-ws. Framework-free; with React, pass the client to
 * <ApolloProvider>.
 */
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, ServerError, type TypePolicies } from '@apollo/client';
import { SetContextLink } from '@apollo/client/link/context';
import { ErrorLink } from '@apollo/client/link/error';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { relayStylePagination } from '@apollo/client/utilities';
import { OperationTypeNode } from 'graphql';
import type { Client as SocketClient } from 'graphql-ws';
import { from, switchMap } from 'rxjs';
import { LikePostDocument } from './generated/graphql.js';
import introspection from './generated/possible-types.js';
import type { Session } from './session.js';
import { createSocket, fetchHonoringRetryAfter } from './transport.js';

/**
 * Every connection of the schema, merged into one list per key: `after` pages are appended, `last`/`before` pages
 * (pull-to-refresh) prepended. The key arguments are the ones that make another list; paging arguments never do.
 */
export const typePolicies: TypePolicies = {
  Query: {
    fields: {
      publicTimeline: relayStylePagination(),
      tagTimeline: relayStylePagination(['tag']),
      network: relayStylePagination(['userId', 'maxDepth', 'interest']),
      searchUsers: relayStylePagination(['query']),
    },
  },
  User: {
    fields: {
      timeline: relayStylePagination(),
      posts: relayStylePagination(['includeReposts']),
      notifications: relayStylePagination(),
      followers: relayStylePagination(),
      following: relayStylePagination(),
      knownFollowers: relayStylePagination(),
      mutuals: relayStylePagination(),
      blockedUsers: relayStylePagination(),
      mutedUsers: relayStylePagination(),
    },
  },
  Post: {
    fields: { comments: relayStylePagination(), likedBy: relayStylePagination(), repostedBy: relayStylePagination() },
  },
  Comment: { fields: { replies: relayStylePagination() } },
  // Has no id: its fields change in place (state, delivered), so merge rather than replace.
  FanOutStatus: { merge: true },
};

export interface ApolloExampleOptions {
  /** The GraphQL endpoint over HTTP, e.g. http://localhost:4000/graphql; subscriptions use its ws:// twin. */
  url: string;
  session: Session;
  /** For tests and platforms without a global fetch or WebSocket. */
  fetch?: typeof fetch;
  webSocketImpl?: unknown;
}

export function createApolloClient({ url, session, fetch = globalThis.fetch, webSocketImpl }: ApolloExampleOptions): {
  client: ApolloClient;
  socket: SocketClient;
} {
  // The token is read per request (not fixed in HttpLink's headers): a refresh changes it for everything after.
  const withToken = new SetContextLink(async ({ headers }) => {
    const token = await session.accessToken();
    return { headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) }, sentToken: token };
  });
  // HTTP 401: the token was refused (expired early, or signed out by changePassword). Refresh once, retry once.
  const refreshOn401 = new ErrorLink(({ error, operation, forward }) => {
    const { sentToken, response, retried } = operation.getContext();
    const status = ServerError.is(error) ? error.statusCode : (response as Response | undefined)?.status;
    if (status !== 401 || !sentToken || retried) return;
    return from(session.refreshAfter(sentToken)).pipe(
      switchMap(() => {
        operation.setContext({ retried: true });
        return forward(operation);
      }),
    );
  });
  const http = ApolloLink.from([
    refreshOn401,
    withToken,
    new HttpLink({ uri: url, fetch: fetchHonoringRetryAfter({ fetch }) }),
  ]);
  const socket = createSocket(session, url.replace(/^http/, 'ws'), { webSocketImpl });
  const client = new ApolloClient({
    link: ApolloLink.split(
      ({ operationType }) => operationType === OperationTypeNode.SUBSCRIPTION,
      new GraphQLWsLink(socket),
      http,
    ),
    // possibleTypes, generated from the schema: a fragment `on Node` matches a User or Post in the cache.
    cache: new InMemoryCache({ possibleTypes: introspection.possibleTypes, typePolicies }),
  });
  return { client, socket };
}

/** Likes a post at once on screen; Apollo takes the optimistic answer back if the service refuses. */
export function likePost(client: ApolloClient, post: { id: string; likeCount: number; viewerHasLiked: boolean }) {
  return client.mutate({
    mutation: LikePostDocument,
    variables: { postId: post.id },
    optimisticResponse: {
      likePost: {
        __typename: 'PostPayload',
        post: {
          __typename: 'Post',
          id: post.id,
          viewerHasLiked: true,
          likeCount: post.viewerHasLiked ? post.likeCount : post.likeCount + 1,
        },
      },
    },
  });
}
