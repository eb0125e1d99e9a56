import { badInput, unauthenticated } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import type { Credential } from '../domain/models.js';
import type { AccountStore } from '../stores/account-store.js';
import type { UserStore } from '../stores/user-store.js';
import type { SessionUseCases } from './sessions.js';
import type { TaskEnqueuer } from './tasks/enqueuer.js';

/**
 * deleteAccount: the request closes the account at once — every token and session ends, no
 * login is left — and enqueues the durable `deleteAccount` task that removes everything the
 * account wrote (DeleteAccountHandler).
 */
export class AccountDeletion {
  constructor(
    private readonly users: UserStore,
    private readonly accounts: Pick<AccountStore, 'login' | 'closeAccount'>,
    private readonly sessions: SessionUseCases,
    private readonly enqueuer: Pick<TaskEnqueuer, 'written'>,
    /** ACCOUNT_DELETION_WAIT_MS, of the instance whose requests it waits for (a worker process may lack their settings). */
    private readonly waitMs: number,
    /** The clock the deletion's handler waits by. */
    private readonly clock: () => number,
  ) {}

  /**
   * Closes the viewer's account and enqueues its removal; returns its id. An account with a
   * password needs it (checked like a sign-in); one without (linked to an identity provider) needs none.
   */
  async request(
    viewer: Credential | null,
    password: string | null | undefined,
    clientAddress: string,
  ): Promise<string> {
    if (!viewer) throw unauthenticated();
    const [user] = await this.users.getMany([viewer.userId], { consistent: true });
    if (!user) throw unauthenticated('The account of this token does not exist');
    const login = await this.accounts.login(user.id);
    if (login && 'passwordHash' in login) {
      if (password === null || password === undefined)
        throw badInput('password', 'is required to delete an account that has one');
      await this.sessions.verifyViewerPassword(user.id, password, 'password', clientAddress);
    } else if (password !== null && password !== undefined) {
      throw badInput('password', 'must be left out: this account has no password');
    }
    const now = this.clock();
    const activityAfter = new Date(now + this.waitMs).toISOString();
    const task = {
      id: newId('tsk'),
      payload: { kind: 'deleteAccount' as const, userId: user.id, handle: user.handle, activityAfter },
    };
    if (!(await this.accounts.closeAccount(user, task, new Date(now).toISOString())))
      throw unauthenticated('The token was signed out: sign in again');
    this.enqueuer.written([task]);
    return user.id;
  }
}
