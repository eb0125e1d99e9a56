import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLContext } from '../context.js';

/** Mutations read their payload with strongly consistent reads, so it shows what they wrote. */
export function readConsistencyPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, contextValue }) {
          contextValue.reads.strong = operation?.operation === 'mutation';
        },
        async executionDidStart({ contextValue }) {
          // The viewer was loaded before execution (see authenticationPlugin), so before the
          // mutation's writes: its payload must read the viewer again.
          if (contextValue.reads.strong) contextValue.loaders.user.clearAll();
        },
      };
    },
  };
}
