/**
 * The signed-in session a frontend keeps, shared by its HTTP link and its WebSocket: the access token to send,
 * and one refresh for everyone who needs the next one. See docs/design/authentication.md.
 */
import { print } from 'graphql';
import { RefreshSessionDocument, type RefreshSessionMutation } from './generated/graphql.js';

/**
 * What signUp, signIn and refreshSession return: an access token, when it ends, and a refresh token that works once
 * (none from a sign-up with an identity provider's token: the provider's SDK refreshes those).
 */
export interface Tokens {
  token: string;
  refreshToken: string | null;
  expiresAt: string;
}

/** Where the tokens live: memory for one tab (the default), or storage of your own origin for tabs that share them. */
export interface TokenStore {
  get(): Tokens | null;
  set(tokens: Tokens | null): void;
}

/**
 * Runs a refresh while no other tab runs one, e.g. `(refresh) => navigator.locks.request('session-refresh', refresh)`.
 * Refresh tokens work once, and presenting one twice ends the session: tabs sharing a store must share a lock.
 */
export type RefreshLock = <T>(refresh: () => Promise<T>) => Promise<T>;

/** The session is over (signed out, or its refresh token refused): sign in again. */
export class SessionEndedError extends Error {
  override name = 'SessionEndedError';
}

export interface SessionOptions {
  /** The GraphQL endpoint, e.g. http://localhost:4000/graphql. */
  url: string;
  store?: TokenStore;
  lock?: RefreshLock;
  /** Refresh this long before `expiresAt` (default 60), so that no request leaves with a token about to end. */
  refreshMarginSeconds?: number;
  fetch?: typeof fetch;
}

export function memoryStore(): TokenStore {
  let tokens: Tokens | null = null;
  return { get: () => tokens, set: (next) => (tokens = next) };
}

export class Session {
  private readonly store: TokenStore;
  private readonly lock: RefreshLock;
  private readonly marginMs: number;
  private readonly fetch: typeof fetch;
  /** The refresh under way in this tab, which every caller awaits instead of starting another. */
  private refreshing: Promise<string> | null = null;

  constructor(private readonly options: SessionOptions) {
    this.store = options.store ?? memoryStore();
    this.lock = options.lock ?? ((refresh) => refresh());
    this.marginMs = (options.refreshMarginSeconds ?? 60) * 1000;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** Keeps what signUp, signIn or refreshSession returned. */
  signedIn({ token, refreshToken, expiresAt }: Tokens): void {
    this.store.set({ token, refreshToken, expiresAt });
  }

  signedOut(): void {
    this.store.set(null);
  }

  get tokens(): Tokens | null {
    return this.store.get();
  }

  /** Whether the access token ends within the margin, so that it is refreshed before the next request. */
  get refreshDue(): boolean {
    const tokens = this.store.get();
    return tokens !== null && Date.parse(tokens.expiresAt) - Date.now() <= this.marginMs;
  }

  /** The access token to send now (null when signed out), refreshed first when it ends within the margin. */
  async accessToken(): Promise<string | null> {
    const tokens = this.store.get();
    if (!tokens) return null;
    return this.refreshDue ? this.refreshAfter(tokens.token) : tokens.token;
  }

  /**
   * The token to use instead of `refused` (HTTP 401, or a socket closed with 4403). Everyone who saw a token refused
   * shares one refresh; one who saw an older token refused gets the current one without any.
   */
  refreshAfter(refused: string): Promise<string> {
    this.refreshing ??= this.lock(() => this.rotate(refused)).finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  private async rotate(refused: string): Promise<string> {
    // Read again inside the lock: another tab may have refreshed while this one waited for it.
    const current = this.store.get();
    if (!current) throw new SessionEndedError('Signed out');
    if (current.token !== refused) return current.token;
    if (!current.refreshToken) throw new SessionEndedError('No refresh token: sign in again');
    const response = await this.fetch(this.options.url, {
      method: 'POST',
      // No Authorization: an expired token there would refuse the whole request.
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: print(RefreshSessionDocument),
        operationName: 'RefreshSession',
        variables: { refreshToken: current.refreshToken },
      }),
    });
    const body = (await response.json()) as {
      data?: RefreshSessionMutation;
      errors?: { message: string; extensions?: { code?: string } }[];
    };
    const next = body.data?.refreshSession;
    if (next) {
      this.signedIn(next);
      return next.token;
    }
    const error = body.errors?.[0];
    // Used already (a copy elsewhere ended the session), expired, or signed out: only signing in again helps.
    if (error?.extensions?.code === 'UNAUTHENTICATED') {
      this.signedOut();
      throw new SessionEndedError(error.message);
    }
    // RATE_LIMITED, SERVICE_UNAVAILABLE: the tokens are kept, and the next request tries again.
    throw new Error(`refreshSession failed: ${error?.message ?? `HTTP ${response.status}`}`);
  }
}
