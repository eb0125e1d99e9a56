import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { unauthenticated } from '../domain/errors.js';
import type { ProviderIdentity } from '../domain/models.js';

export interface IdentityProviderSettings {
  issuer: string;
  audience: string;
  jwksUri: string;
  /** Least time between two reads of the JWKS (OIDC_JWKS_COOLDOWN_SECONDS). */
  jwksCooldownSeconds: number;
}

/** Asymmetric algorithms only: a provider's token is never checked with a shared secret. */
const ALGORITHMS = ['RS256', 'ES256'];
/** Bounds what a subject can make of a key in the store. */
const MAX_SUBJECT_LENGTH = 255;

/**
 * Access tokens of an OpenID Connect provider (OIDC_ISSUER, OIDC_AUDIENCE, OIDC_JWKS_URI): signed
 * with RS256 or ES256 by a key in the provider's JWKS, which jose fetches, caches for 10 minutes
 * and fetches again as soon as a token names a key it does not hold (a rotated key).
 */
export class IdentityProvider {
  private readonly keys: ReturnType<typeof createRemoteJWKSet>;

  constructor(private readonly settings: IdentityProviderSettings) {
    this.keys = createRemoteJWKSet(new URL(settings.jwksUri), {
      cooldownDuration: settings.jwksCooldownSeconds * 1000,
      timeoutDuration: 5000,
    });
  }

  /** True for a token this provider may have signed (an asymmetric algorithm), so that it is checked here, not as a token of the service. */
  claims(token: string): boolean {
    try {
      return ALGORITHMS.includes(decodeProtectedHeader(token).alg ?? '');
    } catch {
      return false;
    }
  }

  /** The identity of a valid provider token; UNAUTHENTICATED for a wrong issuer, audience, signature or expiry. */
  async verify(token: string): Promise<ProviderIdentity> {
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        algorithms: ALGORITHMS,
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        requiredClaims: ['exp', 'sub'],
      });
      const subject = payload.sub!;
      if (subject === '' || subject.length > MAX_SUBJECT_LENGTH)
        throw unauthenticated('The identity token names no usable subject');
      return { issuer: this.settings.issuer, subject };
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw unauthenticated('The identity token has expired');
      if (error instanceof errors.JWTClaimValidationFailed)
        throw unauthenticated(`The identity token's ${error.claim} claim is not accepted`);
      // Includes a key set that cannot be read in time: the provider's trouble, but the token still cannot be trusted.
      if (error instanceof errors.JOSEError) throw unauthenticated('The identity token is not valid');
      throw error;
    }
  }
}
