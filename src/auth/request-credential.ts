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
 * What a bearer token proves before anything runs: a service token names its account, a provider token an
 * identity whose account is looked up here. A provider identity without an account acts anonymous, so it may sign up.
 */
export class RequestCredentials {
  constructor(
    private readonly tokens: Tokens,
    private readonly provider: IdentityProvider | null,
    private readonly accounts: AccountStore,
  ) {}

  /** Whether `of` would look the token's account up in the store (an identity provider's token). */
  looksUp(token: string): boolean {
    return this.provider?.claims(token) ?? false;
  }

  async of(token: string | null): Promise<RequestCredential> {
    if (!token) return ANONYMOUS;
    if (this.provider?.claims(token)) {
      const identity = await this.provider.verify(token);
      const userId = await this.accounts.linkedUser(identity);
      return { credential: userId ? { userId, generation: null, sessionId: null } : null, identity };
    }
    const claims = await this.tokens.verify(token);
    return {
      credential: { userId: claims.userId, generation: claims.generation, sessionId: claims.sessionId },
      identity: null,
    };
  }
}
