import type { GraphQLFormattedError, GraphQLSchema } from 'graphql';
import { decodeJwt } from 'jose';
import { authenticate } from '../auth/authenticate.js';
import type { RequestCredentials } from '../auth/request-credential.js';
import type { Config } from '../config.js';
import { rateLimited, unauthenticated } from '../domain/errors.js';
import { clientAddress } from '../http/request.js';
import { type SubscriptionServer, createSubscriptionServer } from '../http/subscriptions.js';
import type { Logger } from '../logger.js';
import { emptyCost, withCostMeter, withoutBudget } from '../observability/cost.js';
import type { Stores } from '../stores/stores.js';
import { type RateSubject, rateSubjectKey } from '../usecases/rate-limits.js';
import type { UseCases } from '../usecases/use-cases.js';
import { ACCOUNT_CHECK_COST } from './limits/query-limits.js';
import type { OperationContexts } from './operation-context.js';

export interface SubscriptionOptions {
  settings: Pick<
    Config,
    | 'maxStoreRequests'
    | 'maxQueryDepth'
    | 'maxQueryAliases'
    | 'maxQueryCost'
    | 'maxQueryTokens'
    | 'subscriptionsPerConnection'
    | 'subscriptionConnectionsPerAccount'
    | 'trustedProxyHops'
  >;
  /** The schema Apollo built (see createApollo). */
  schema(): GraphQLSchema | null;
  stores: Stores;
  useCases: UseCases;
  credentials: RequestCredentials;
  contexts: OperationContexts;
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
  production: boolean;
  logger: Logger;
}

/** Subscriptions over WebSocket (http/subscriptions.ts), signed in and given contexts as the API's requests are. */
export function createSubscriptions({
  settings,
  schema,
  stores,
  useCases,
  credentials,
  contexts,
  formatError,
  production,
  logger,
}: SubscriptionOptions): SubscriptionServer {
  /** A meter for reads outside any operation, sent in the share of the store's request slots of whoever pays them. */
  const meterOf = (payer: RateSubject) => ({ ...emptyCost(settings.maxStoreRequests), client: rateSubjectKey(payer) });
  return createSubscriptionServer({
    schema,
    // As a request's: the token, a provider's with its account looked up by identity; checkSignedIn then reads the account.
    async signIn(token, request) {
      // That lookup is made before the account is known: paid by the address before it is sent, in the address's share.
      const address = { viewerId: null, clientAddress: clientAddress(request, settings.trustedProxyHops) };
      if (credentials.looksUp(token)) {
        const paid = await useCases.rateLimits.charge(address, ACCOUNT_CHECK_COST);
        if (!paid.allowed) throw rateLimited(paid.retryAfterSeconds, 'Too many connections from this address');
      }
      const { credential } = await withCostMeter(meterOf(address), () => credentials.of(token));
      if (!credential) throw unauthenticated('The token names no account');
      // Verified above; every token the service accepts carries an expiry.
      return { credential, expiresAtMs: Number(decodeJwt(token).exp) * 1000 };
    },
    // Outside any operation: sent in the account's share of the store's request slots, as its requests' are.
    checkSignedIn: (credential) =>
      withCostMeter(meterOf({ viewerId: credential.userId, clientAddress: '' }), () =>
        contexts.checkSignedIn(credential),
      ),
    context(signedIn, request) {
      const proven = { credential: signedIn.credential, identity: null };
      const subscription = contexts.of(proven, request, emptyCost(settings.maxStoreRequests));
      subscription.startEvent = () => {
        const { loaders, reads, graphBudget, cost, feeds } = contexts.of(
          proven,
          request,
          emptyCost(settings.maxStoreRequests),
        );
        // The account is checked again with each event, in the same wave as its hydration: an account signed
        // out everywhere or closed since the connection began hears no more. As a request's check, the
        // service's own read: counted, never refused by the event's budget.
        const accountCheck = withCostMeter(cost, () =>
          withoutBudget(() => authenticate(signedIn.credential, loaders.user, stores.users)),
        );
        accountCheck.catch(() => {});
        Object.assign(subscription, { loaders, reads, graphBudget, cost, feeds, accountCheck });
      };
      return subscription;
    },
    limits: {
      maxDepth: settings.maxQueryDepth,
      maxAliases: settings.maxQueryAliases,
      maxCost: settings.maxQueryCost,
      maxTokens: settings.maxQueryTokens,
    },
    charge: (userId, points) => useCases.rateLimits.charge({ viewerId: userId, clientAddress: '' }, points),
    maxSubscriptionsPerConnection: settings.subscriptionsPerConnection,
    maxConnectionsPerAccount: settings.subscriptionConnectionsPerAccount,
    formatError,
    logger: logger.child({ component: 'subscriptions' }),
    production,
  });
}
