import type { Login, ProviderIdentity } from '../domain/models.js';

/** A session: one chain of refresh tokens, each replacing the one before (a token family). */
export interface SessionRecord {
  sessionId: string;
  userId: string;
  /** The account's token generation the session was started (or kept) at; an older one is over. */
  generation: number;
  /** Ended by signOut or because a used refresh token of it was presented again. */
  revoked: boolean;
}

export interface RefreshTokenRecord {
  sessionId: string;
  userId: string;
  /** Exchanged by refreshSession already: presenting it again ends the session. */
  used: boolean;
  /** Epoch seconds; DynamoDB deletes the item some time after. */
  expiresAt: number;
}

/** A refresh token to store: only its hash is kept. */
export interface NewRefreshToken {
  hash: string;
  /** Epoch seconds. */
  expiresAt: number;
}

/** How accounts sign in and the sessions they hold. */
export interface AccountStore {
  /** The account's password hash or provider identity; null when it has neither (seeded accounts). */
  login(userId: string): Promise<Login | null>;
  /** The account linked to a provider identity, read strongly consistent; null when none is. */
  linkedUser(identity: ProviderIdentity): Promise<string | null>;
  /** Replaces the password hash (a stronger hash of the same password, or a new password). */
  setPasswordHash(userId: string, passwordHash: string): Promise<void>;
  /**
   * A new password that ends every other session: in one transaction, the new hash, the
   * account's token generation advanced by one, and `keepSessionId` (when given) moved to the
   * new generation so that its refresh token goes on working. Returns the new generation.
   */
  changePassword(userId: string, passwordHash: string, keepSessionId: string | null): Promise<number>;
  /** Starts a session with its first refresh token. */
  startSession(session: SessionRecord, token: NewRefreshToken): Promise<void>;
  /** A refresh token by its hash, with its session (null once the session item has expired). */
  refreshToken(hash: string): Promise<{ token: RefreshTokenRecord; session: SessionRecord | null } | null>;
  /**
   * Marks `usedHash` used and stores `next` in the same session, if and only if, at once: the
   * token was unused, the session is not revoked and is at `session.generation`, and so is the
   * account. False when any of that no longer held.
   */
  rotate(session: SessionRecord, usedHash: string, next: NewRefreshToken): Promise<boolean>;
  /** Revokes a session: none of its refresh tokens works again. Idempotent. */
  endSession(sessionId: string): Promise<void>;
  /** Advances the account's token generation: every token and session issued before stops working. Returns the new generation. */
  endAllSessions(userId: string): Promise<number>;
}

/** Failed password checks, counted per subject (a handle or a client address) in fixed windows. */
export interface FailedAttemptStore {
  /** Aligned with `subjects`: failures counted in the window starting at `windowStart` (epoch seconds). */
  failures(subjects: readonly AttemptSubject[], windowStart: number): Promise<number[]>;
  /** Counts one failure for each subject; the counts expire (TTL) at `expiresAt` (epoch seconds). */
  recordFailure(subjects: readonly AttemptSubject[], windowStart: number, expiresAt: number): Promise<void>;
}

export interface AttemptSubject {
  scope: 'handle' | 'address';
  value: string;
}
