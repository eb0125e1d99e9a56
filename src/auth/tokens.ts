import { SignJWT, errors, jwtVerify } from 'jose';
import { unauthenticated } from '../domain/errors.js';

/** HS256 JWTs whose subject is the user id; every token expires. */
export class Tokens {
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  async issue(userId: string): Promise<string> {
    return new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + this.ttlSeconds)
      .sign(this.key);
  }

  /** The user id in a valid token; UNAUTHENTICATED for a bad, tampered or expired one, or one that never expires. */
  async verify(token: string): Promise<string> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], requiredClaims: ['exp'] });
      if (typeof payload.sub !== 'string' || payload.sub === '') throw unauthenticated('The token names no user');
      return payload.sub;
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw unauthenticated('The token has expired');
      if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'exp') throw unauthenticated('The token has no expiry time');
      if (error instanceof errors.JOSEError) throw unauthenticated('The token is not valid');
      throw error;
    }
  }
}
