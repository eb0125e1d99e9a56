import { readFileSync } from 'node:fs';
import { ApolloServer } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import type { GraphQLFormattedError, GraphQLSchema } from 'graphql';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { activeTracer } from '../observability/tracing.js';
import type { UserStore } from '../stores/user-store.js';
import type { GraphQLContext } from './context.js';
import { idArgumentsPlugin } from './limits/id-arguments.js';
import { queryLimitsPlugin } from './limits/query-limits.js';
import { authenticationPlugin } from './plugins/authentication.js';
import { costExtensionPlugin } from './plugins/cost-extension.js';
import { metricsPlugin } from './plugins/metrics.js';
import { readConsistencyPlugin } from './plugins/read-consistency.js';
import { retryAfterPlugin } from './plugins/retry-after.js';
import { subscriptionsOverWebSocketPlugin } from './plugins/subscriptions-over-websocket.js';
import { tracingPlugin } from './plugins/tracing.js';
import { resolvers } from './resolvers/index.js';

export const SCHEMA_PATH = new URL('../../schema.graphql', import.meta.url);

export function loadTypeDefs(): string {
  return readFileSync(SCHEMA_PATH, 'utf8');
}

export interface ApolloOptions {
  settings: Pick<
    Config,
    | 'introspection'
    | 'maxQueryTokens'
    | 'maxQueryDepth'
    | 'maxQueryAliases'
    | 'maxQueryCost'
    | 'costExtensions'
    | 'metrics'
  >;
  /** Whose accounts authenticationPlugin checks. */
  users: UserStore;
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
  production: boolean;
  logger: Logger;
}

export interface Apollo {
  apollo: ApolloServer<GraphQLContext>;
  /** The executable schema Apollo built with the resolvers, null until it has started: subscriptions run on it outside Apollo. */
  schema(): GraphQLSchema | null;
}

/** Apollo Server over schema.graphql with the resolvers, the limits checked before execution and the service's plugins. */
export function createApollo({ settings, users, formatError, production, logger }: ApolloOptions): Apollo {
  let apiSchema: GraphQLSchema | null = null;
  const apollo = new ApolloServer<GraphQLContext>({
    typeDefs: loadTypeDefs(),
    resolvers,
    formatError,
    includeStacktraceInErrorResponses: !production,
    introspection: settings.introspection,
    csrfPrevention: true,
    allowBatchedHttpRequests: false,
    // The parser stops at the token limit; depth, aliases and cost are checked by queryLimitsPlugin.
    parseOptions: { maxTokens: settings.maxQueryTokens },
    // main.ts owns the signals: it drains HTTP, stops the worker and the engine in order.
    stopOnTerminationSignals: false,
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      // No field has a cache hint, so every answer is `no-store` (set by http/server.ts): the default plugin's
      // hook on every resolved field cost ~4% of a home page's CPU to arrive at that.
      ApolloServerPluginCacheControlDisabled(),
      queryLimitsPlugin({
        maxDepth: settings.maxQueryDepth,
        maxAliases: settings.maxQueryAliases,
        maxCost: settings.maxQueryCost,
      }),
      idArgumentsPlugin(),
      subscriptionsOverWebSocketPlugin(),
      readConsistencyPlugin(),
      authenticationPlugin(users),
      retryAfterPlugin(),
      costExtensionPlugin({ details: settings.costExtensions }),
      ...(settings.metrics ? [metricsPlugin()] : []),
      ...(activeTracer() ? [tracingPlugin()] : []),
      {
        async serverWillStart() {
          return {
            schemaDidLoadOrUpdate({ apiSchema: loaded }) {
              apiSchema = loaded;
            },
          };
        },
      },
    ],
    logger: {
      debug: () => {},
      info: () => {},
      warn: (m) => logger.warn(String(m)),
      error: (m) => logger.error(String(m)),
    },
  });
  return { apollo, schema: () => apiSchema };
}
