import type { IncomingMessage } from 'node:http';
import { authenticate } from '../auth/authenticate.js';
import type { RequestCredential, RequestCredentials } from '../auth/request-credential.js';
import type { Tokens } from '../auth/tokens.js';
import type { Config } from '../config.js';
import { AppError } from '../domain/errors.js';
import type { Credential } from '../domain/models.js';
import { bearerToken, clientAddress } from '../http/request.js';
import type { Cost } from '../observability/cost.js';
import type { Stores } from '../stores/stores.js';
import { rateSubjectKey } from '../usecases/rate-limits.js';
import type { UseCases } from '../usecases/use-cases.js';
import type { GraphQLContext } from './context.js';
import { toHttpGraphQLError } from './errors.js';
import { createLoaders } from './loaders.js';

export interface OperationContextOptions {
  settings: Pick<Config, 'batching' | 'trustedProxyHops'>;
  stores: Stores;
  useCases: UseCases;
  tokens: Tokens;
  credentials: RequestCredentials;
}

export interface OperationContexts {
  /** A request's: its token is checked here; its account, by authenticationPlugin once the operation has passed the limits. */
  ofRequest(request: IncomingMessage, cost: Cost): Promise<GraphQLContext>;
  /** What one operation's resolvers share: the viewer, and fresh loaders, budget and feed state. */
  of(proven: RequestCredential, request: IncomingMessage, cost: Cost): GraphQLContext;
  /** A connection's account, read strongly consistent: a sign-out a moment ago counts. */
  checkSignedIn(credential: Credential): Promise<void>;
}

export function createOperationContexts({
  settings,
  stores,
  useCases,
  tokens,
  credentials,
}: OperationContextOptions): OperationContexts {
  const ofAddress = (proven: RequestCredential, address: string, cost: Cost): GraphQLContext => {
    const viewerId = proven.credential?.userId ?? null;
    // The store's request slots are shared by client, as the rate limit charges them.
    cost.client = rateSubjectKey({ viewerId, clientAddress: address });
    const reads = { strong: false };
    const graphBudget = useCases.graphQueries.budget();
    const loaders = createLoaders(stores, viewerId, reads, { batching: settings.batching, graphBudget });
    return {
      viewerId,
      credential: proven.credential,
      identity: proven.identity,
      clientAddress: address,
      loaders,
      reads,
      useCases,
      tokens,
      graphBudget,
      cost,
      feeds: { hydrate: settings.batching, skeletons: new Map() },
    };
  };
  return {
    of: (proven, request, cost) => ofAddress(proven, clientAddress(request, settings.trustedProxyHops), cost),
    async ofRequest(request, cost) {
      const address = clientAddress(request, settings.trustedProxyHops);
      // A provider token's account is read before the viewer is known: that read is the address's.
      cost.client = rateSubjectKey({ viewerId: null, clientAddress: address });
      let proven: RequestCredential;
      try {
        proven = await credentials.of(bearerToken(request));
      } catch (error) {
        if (error instanceof AppError) throw toHttpGraphQLError(error, 401);
        throw error;
      }
      return ofAddress(proven, address, cost);
    },
    async checkSignedIn(credential) {
      const loaders = createLoaders(
        stores,
        credential.userId,
        { strong: true },
        { batching: settings.batching, graphBudget: useCases.graphQueries.budget() },
      );
      await authenticate(credential, loaders.user, stores.users);
    },
  };
}
