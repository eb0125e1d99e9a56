import { randomUUID } from 'node:crypto';
import { checkNewPassword, checkPresentedPassword } from '../auth/passwords.js';
import { type AccessClaims, newRefreshToken, refreshTokenHash } from '../auth/tokens.js';
import { AppError, badInput, forbidden, unauthenticated } from '../domain/errors.js';
import type { Credential, UserRecord } from '../domain/models.js';
import { normalizeHandle } from '../domain/validation.js';
import type { Logger } from '../logger.js';
import type { AccountStore } from '../stores/account-store.js';
import type { UserStore } from '../stores/user-store.js';
import type { PasswordHashing } from './password-hashing.js';
import { type SignInLimits, attemptSubjects } from './sign-in-limits.js';

/** A session started or refreshed: what its new access token must say (the GraphQL layer signs it), and its new refresh token. */
export interface SessionGrant {
  user: UserRecord;
  access: AccessClaims;
  /** Works once, for refreshSession; lasts REFRESH_TTL_SECONDS. */
  refreshToken: string;
}

export interface SessionSettings {
  refreshTtlSeconds: number;
}

const SESSION_ENDED = 'The session has ended: sign in again';

/**
 * Sign-in, sessions and their end. A session is a family of rotating refresh tokens; a replayed token ends
 * the family (see docs/design/authentication.md).
 */
export class SessionUseCases {
  constructor(
    private readonly users: UserStore,
    private readonly accounts: AccountStore,
    private readonly limits: SignInLimits,
    private readonly passwords: PasswordHashing,
    private readonly settings: SessionSettings,
    private readonly logger: Logger,
  ) {}

  /** Starts a session for an account that has just proven who it is (signUp, signIn). */
  async start(user: UserRecord): Promise<SessionGrant> {
    const sessionId = randomUUID();
    const refreshToken = newRefreshToken();
    await this.accounts.startSession(
      { sessionId, userId: user.id, generation: user.tokenGeneration, revoked: false },
      { hash: refreshTokenHash(refreshToken)!, expiresAt: this.refreshExpiry() },
    );
    return { user, access: { userId: user.id, generation: user.tokenGeneration, sessionId }, refreshToken };
  }

  async signIn(input: { handle: string; password: string }, clientAddress: string): Promise<SessionGrant> {
    const handle = normalizeHandle(input.handle, 'input.handle');
    const password = checkPresentedPassword(input.password, 'input.password');
    await this.passwords.admit(clientAddress);
    const [userId] = await this.users.idsByHandle([handle], { consistent: true });
    const passwordHash = userId ? await this.passwordHash(userId) : null;
    // An unknown handle is checked against a decoy, so that the answer says nothing about which handles exist.
    await this.checkPassword(password, passwordHash, handle, clientAddress, () =>
      unauthenticated('The handle or password is wrong'),
    );
    const [user] = await this.users.getMany([userId!], { consistent: true });
    if (!user) throw unauthenticated('The handle or password is wrong');
    if (this.passwords.needsRehash(passwordHash!)) await this.rehash(user.id, password, clientAddress);
    return this.start(user);
  }

  /** A stronger hash of the password just checked; left to the next sign-in when the hash pool refuses it. */
  private async rehash(userId: string, password: string, clientAddress: string): Promise<void> {
    let stronger: string;
    try {
      stronger = await this.passwords.hash(password, clientAddress);
    } catch (error) {
      if (error instanceof AppError && error.code === 'RATE_LIMITED') return;
      throw error;
    }
    await this.accounts.setPasswordHash(userId, stronger);
  }

  async refresh(refreshToken: string): Promise<SessionGrant> {
    const hash = refreshTokenHash(refreshToken);
    const found = hash ? await this.accounts.refreshToken(hash) : null;
    if (!hash || !found || found.token.expiresAt <= Date.now() / 1000)
      throw unauthenticated('The refresh token is not valid or has expired');
    const { token, session } = found;
    if (token.used) {
      await this.accounts.endSession(token.userId, token.sessionId);
      this.logger.warn('a used refresh token was presented again: its session is ended', {
        userId: token.userId,
        sessionId: token.sessionId,
      });
      throw unauthenticated('The refresh token was used already: its session is ended, sign in again');
    }
    if (!session || session.revoked) throw unauthenticated(SESSION_ENDED);
    const [user] = await this.users.getMany([session.userId], { consistent: true });
    if (!user || user.tokenGeneration !== session.generation) throw unauthenticated(SESSION_ENDED);
    const next = newRefreshToken();
    if (
      !(await this.accounts.rotate(session, hash, { hash: refreshTokenHash(next)!, expiresAt: this.refreshExpiry() }))
    ) {
      // Something got there first: the same token exchanged at once twice (a replay race), or the session ended.
      await this.accounts.endSession(session.userId, session.sessionId);
      throw unauthenticated('The refresh token was used already: its session is ended, sign in again');
    }
    return {
      user,
      access: { userId: user.id, generation: session.generation, sessionId: session.sessionId },
      refreshToken: next,
    };
  }

  /**
   * Ends the session of `refreshToken` (holding it is proof enough), or, with `everywhere`, every
   * session and access token of the viewer; with neither, the viewer's current session.
   */
  async signOut(
    viewer: Credential | null,
    refreshToken: string | null | undefined,
    everywhere: boolean | null | undefined,
  ): Promise<boolean> {
    if (everywhere) {
      if (!viewer) throw unauthenticated();
      await this.accounts.endAllSessions(viewer.userId);
      return true;
    }
    if (refreshToken !== null && refreshToken !== undefined) {
      const hash = refreshTokenHash(refreshToken);
      if (!hash) throw badInput('refreshToken', 'is not a refresh token');
      const found = await this.accounts.refreshToken(hash);
      if (found) await this.accounts.endSession(found.token.userId, found.token.sessionId);
      return true;
    }
    if (!viewer?.sessionId)
      throw badInput('refreshToken', 'is needed: give it, sign out everywhere, or send an access token of a session');
    await this.accounts.endSession(viewer.userId, viewer.sessionId);
    return true;
  }

  /** A new password; every other session and every access token issued before ends (this session's refresh token goes on working). */
  async changePassword(
    viewer: Credential | null,
    currentPassword: string,
    newPassword: string,
    clientAddress: string,
  ): Promise<boolean> {
    if (!viewer) throw unauthenticated();
    const current = checkPresentedPassword(currentPassword, 'currentPassword');
    const next = checkNewPassword(newPassword, 'newPassword');
    await this.verifyViewerPassword(viewer.userId, current, 'currentPassword', clientAddress);
    await this.accounts.changePassword(viewer.userId, await this.passwords.hash(next, clientAddress), viewer.sessionId);
    return true;
  }

  /**
   * Checks the viewer's own password (changePassword, deleteAccount) under the same limits as
   * signIn; a wrong one is BAD_USER_INPUT on `field`. FORBIDDEN for an account without a password.
   */
  async verifyViewerPassword(userId: string, password: string, field: string, clientAddress: string): Promise<void> {
    await this.passwords.admit(clientAddress);
    const [user] = await this.users.getMany([userId], { consistent: true });
    if (!user) throw unauthenticated('The account of this token does not exist');
    const passwordHash = await this.passwordHash(userId);
    if (!passwordHash) throw forbidden('This account has no password: it signs in through its identity provider');
    await this.checkPassword(password, passwordHash, user.handle, clientAddress, () => badInput(field, 'is wrong'));
  }

  private async passwordHash(userId: string): Promise<string | null> {
    const login = await this.accounts.login(userId);
    return login && 'passwordHash' in login ? login.passwordHash : null;
  }

  private async checkPassword(
    password: string,
    passwordHash: string | null,
    handle: string,
    clientAddress: string,
    wrong: () => Error,
  ): Promise<void> {
    const subjects = attemptSubjects(handle, clientAddress);
    await this.limits.check(subjects);
    await this.limits.countCheck(clientAddress);
    if (await this.passwords.verify(password, passwordHash, clientAddress)) return;
    await this.limits.recordFailure(subjects);
    throw wrong();
  }

  private refreshExpiry(): number {
    return Math.floor(Date.now() / 1000) + this.settings.refreshTtlSeconds;
  }
}
