import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLContext } from '../context.js';

/**
 * Adds `extensions.cost` to every response that passed the limits, as GitHub's `rateLimit` does; with
 * `details` (COST_EXTENSIONS) also each backend's requests, waves and cache lookups.
 */
export function costExtensionPlugin({ details }: { details: boolean }): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, contextValue }) {
          if (response.body.kind !== 'single' || !contextValue?.demand) return;
          const { cost, demand } = contextValue;
          const { rate } = demand;
          response.body.singleResult.extensions = {
            ...response.body.singleResult.extensions,
            cost: {
              estimated: demand.estimated,
              maxCost: demand.maxCost,
              // Sent, not answered: a response can leave while requests its nulled fields started are still out.
              requests: cost.sent,
              maxRequests: cost.maxRequests,
              ...(rate
                ? {
                    rateLimit: {
                      limit: rate.limit,
                      remaining: rate.remaining,
                      restoreRate: rate.restoreRate,
                      resetAt: new Date(rate.resetAtMs).toISOString(),
                    },
                  }
                : {}),
              ...(details
                ? {
                    dynamodb: {
                      requests: cost.dynamodb.requests,
                      readCapacityUnits: round(cost.dynamodb.readCapacityUnits),
                      writeCapacityUnits: round(cost.dynamodb.writeCapacityUnits),
                    },
                    graph: { requests: cost.graph.requests },
                    waves: cost.waves,
                    cache: { hits: cost.cache.hits, misses: cost.cache.misses },
                  }
                : {}),
            },
          };
        },
      };
    },
  };
}

const round = (n: number) => Math.round(n * 100) / 100;
