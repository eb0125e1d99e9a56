import type { Credential, ProviderIdentity } from '../domain/models.js';
import type { AccountStore } from '../stores/account-store.js';
import type { IdentityProvider } from './identity-provider.js';
import type { Tokens } from './tokens.js';

export interface RequestCredential {
  credential: Credential | null;
  identity: ProviderIdentity | null;
}

const ANONYMOUS: RequestCredential = { credential: null, identity: null };

/**
 * What a request's bearer token proves, before anything executes: a token of the service (HS256)
 * names its account directly; a token of the identity provider (RS256/ES256, when one is
 * configured) names an identity, whose linked account is looked up here (one strongly consistent
 * read). A provider token whose identity has no account yet is no credential: the request acts
 * anonymous but may sign up as that identity. Either way the account itself is checked by authenticate.
 */
export class RequestCredentials {
  constructor(
    private readonly tokens: Tokens,
    private readonly provider: IdentityProvider | null,
    private readonly accounts: AccountStore,
  ) {}

  async of(token: string | null): Promise<RequestCredential> {
    if (!token) return ANONYMOUS;
    if (this.provider?.claims(token)) {
      const identity = await this.provider.verify(token);
      const userId = await this.accounts.linkedUser(identity);
      return { credential: userId ? { userId, generation: null, sessionId: null } : null, identity };
    }
    const claims = await this.tokens.verify(token);
    return { credential: { userId: claims.userId, generation: claims.generation, sessionId: claims.sessionId }, identity: null };
  }
}
