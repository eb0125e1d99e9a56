import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';

/** A subscription sent over HTTP gets a clear refusal (BAD_REQUEST, HTTP 400): subscriptions run over WebSocket (see http/subscriptions.ts). */
export function subscriptionsOverWebSocketPlugin(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation }) {
          if (operation?.operation !== 'subscription') return;
          throw new GraphQLError(
            'Subscriptions run over a WebSocket on /graphql with the graphql-ws protocol (graphql-transport-ws), not over HTTP',
            {
              extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
            },
          );
        },
      };
    },
  };
}
