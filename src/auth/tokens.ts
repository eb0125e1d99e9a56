import { createHash, randomBytes } from 'node:crypto';
import { SignJWT, errors, jwtVerify } from 'jose';
import { unauthenticated } from '../domain/errors.js';

/** What a valid access token of this service says. */
export interface AccessClaims {
  userId: string;
  /** The account's token generation when the token was issued; a token of an older one is refused (see authenticate). */
  generation: number;
  /** The session (refresh token family) the token belongs to; null for an old token without one. */
  sessionId: string | null;
}

export interface IssuedToken {
  token: string;
  /** When the token stops working, ISO-8601. */
  expiresAt: string;
}

/** Short-lived HS256 JWTs: subject the user id, `gen` the account's token generation, `sid` the session. */
export class Tokens {
  private readonly secret: Uint8Array<ArrayBuffer>;
  /** Imported once: given the raw secret, jose imports it again on every call (about 40% of a verification's cost). */
  private imported: Promise<CryptoKey> | null = null;

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
  ) {
    this.secret = new TextEncoder().encode(secret);
  }

  private key(): Promise<CryptoKey> {
    this.imported ??= crypto.subtle.importKey('raw', this.secret, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]);
    return this.imported;
  }

  /**
   * An access token of an account that has never signed out (generation 0), outside any session:
   * what tools acting as seeded accounts use (the benchmark, tests).
   */
  async issue(userId: string): Promise<string> {
    return (await this.sign({ userId, generation: 0, sessionId: null })).token;
  }

  async sign(claims: AccessClaims): Promise<IssuedToken> {
    const expiresAtSeconds = Math.floor(Date.now() / 1000) + this.ttlSeconds;
    const token = await new SignJWT({ gen: claims.generation, ...(claims.sessionId ? { sid: claims.sessionId } : {}) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.userId)
      .setIssuedAt()
      .setExpirationTime(expiresAtSeconds)
      .sign(await this.key());
    return { token, expiresAt: new Date(expiresAtSeconds * 1000).toISOString() };
  }

  /** The claims of a valid token; UNAUTHENTICATED for a bad, tampered or expired one, or one that never expires. */
  async verify(token: string): Promise<AccessClaims> {
    try {
      const { payload } = await jwtVerify(token, await this.key(), { algorithms: ['HS256'], requiredClaims: ['exp'] });
      if (typeof payload.sub !== 'string' || payload.sub === '') throw unauthenticated('The token names no user');
      // An old token without a generation is at generation 0.
      const generation = payload.gen ?? 0;
      if (!Number.isSafeInteger(generation) || (generation as number) < 0)
        throw unauthenticated('The token is not valid');
      const sessionId = typeof payload.sid === 'string' ? payload.sid : null;
      return { userId: payload.sub, generation: generation as number, sessionId };
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw unauthenticated('The token has expired');
      if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'exp')
        throw unauthenticated('The token has no expiry time');
      if (error instanceof errors.JOSEError) throw unauthenticated('The token is not valid');
      throw error;
    }
  }
}

const REFRESH_TOKEN_PREFIX = 'rt_';
/** 32 random bytes in base64url after the prefix. */
const REFRESH_TOKEN = /^rt_[A-Za-z0-9_-]{43}$/;

/** A new refresh token: 256 random bits, shown to the client once and stored only as its hash. */
export function newRefreshToken(): string {
  return REFRESH_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * The stored form of a refresh token, or null for a string that is no refresh token. SHA-256
 * suffices (no salt, no stretching): the token is random, so nothing can be guessed from its hash.
 */
export function refreshTokenHash(token: string): string | null {
  return REFRESH_TOKEN.test(token) ? createHash('sha256').update(token).digest('base64url') : null;
}
