import type { Login, ProviderIdentity, UserRecord } from '../domain/models.js';
import type { Task } from '../domain/tasks.js';

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
  endSession(userId: string, sessionId: string): Promise<void>;
  /** Advances the account's token generation: every token and session issued before stops working. Returns the new generation. */
  endAllSessions(userId: string): Promise<number>;

  /**
   * Starts deleting an account in one transaction: ends every token, removes its ways in, and enqueues `task`
   * for the rest. False when the account is no longer at `user.tokenGeneration`.
   */
  closeAccount(user: UserRecord, task: Task, closedAt: string): Promise<boolean>;
  /** Removes one bounded batch of what a closed account keeps (home timeline, notifications, sessions, idempotency claims); true while more remains. */
  removeRemnants(userId: string): Promise<boolean>;
  /** Removes a closed account's profile and frees its handle, in one transaction. Idempotent. */
  removeProfile(userId: string, handle: string): Promise<void>;
}

/**
 * Password attempts counted per subject in fixed windows: failed checks per handle and per client
 * address, and every check and sign-up per address (scope `checks`).
 */
export interface FailedAttemptStore {
  /** For each of `windowStarts` (epoch seconds), aligned with `subjects`: the attempts counted in the window starting then. */
  failures(subjects: readonly AttemptSubject[], windowStarts: readonly number[]): Promise<number[][]>;
  /** Counts one failure for each subject; the counts expire (TTL) at `expiresAt` (epoch seconds). */
  recordFailure(subjects: readonly AttemptSubject[], windowStart: number, expiresAt: number): Promise<void>;
  /**
   * Counts one attempt for `subject` in the window starting at `windowStart` if, atomically, its count
   * there is below `below`: null then; else counts nothing and returns the count.
   */
  countIfBelow(subject: AttemptSubject, windowStart: number, below: number, expiresAt: number): Promise<number | null>;
}

export interface AttemptSubject {
  scope: 'handle' | 'address' | 'checks';
  value: string;
}
