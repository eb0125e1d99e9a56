import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLContext } from '../context.js';

/**
 * An answer with RATE_LIMITED errors carries HTTP `Retry-After`: the largest `retryAfterSeconds` among
 * them, for clients and proxies that read headers only. The status stays what the error set (200 for a field's).
 */
export function retryAfterPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.body.kind !== 'single') return;
          const seconds = (response.body.singleResult.errors ?? [])
            .filter((error) => error.extensions?.code === 'RATE_LIMITED')
            .map((error) => Number(error.extensions?.retryAfterSeconds))
            .filter((value) => Number.isFinite(value) && value > 0);
          if (seconds.length > 0) response.http.headers.set('retry-after', String(Math.ceil(Math.max(...seconds))));
        },
      };
    },
  };
}
