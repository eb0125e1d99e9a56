import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLContext } from '../context.js';

/** Adds `extensions.cost` — the backend requests and capacity this operation used — to the response. */
export function costExtensionPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, contextValue }) {
          if (response.body.kind !== 'single') return;
          const { cost } = contextValue;
          response.body.singleResult.extensions = {
            ...response.body.singleResult.extensions,
            cost: {
              dynamodb: {
                requests: cost.dynamodb.requests,
                readCapacityUnits: round(cost.dynamodb.readCapacityUnits),
                writeCapacityUnits: round(cost.dynamodb.writeCapacityUnits),
              },
              graph: { requests: cost.graph.requests },
              waves: cost.waves,
              cache: { hits: cost.cache.hits, misses: cost.cache.misses },
            },
          };
        },
      };
    },
  };
}

const round = (n: number) => Math.round(n * 100) / 100;
