import type DataLoader from 'dataloader';
import { unauthenticated } from '../domain/errors.js';
import type { Credential, UserRecord } from '../domain/models.js';
import type { UserStore } from '../stores/user-store.js';

/**
 * The account a signed-in request acts as. A validly signed token is not enough: its subject
 * must have an account, else the request is UNAUTHENTICATED: a mutation does not execute, so that
 * nothing is ever written for an account that never existed or is gone, and a query (run beside
 * this check) answers nothing (see authenticationPlugin). A token of the service must also carry
 * the account's current token generation, so that signing out everywhere (or a password change)
 * ends every access token issued before it at once. Read through the request's user loader,
 * so that `viewer { … }` reuses the record at no extra request.
 */
export async function authenticate(credential: Credential, userLoader: DataLoader<string, UserRecord | null>, users: UserStore): Promise<UserRecord> {
  const subject = credential.userId;
  // A query's loader reads eventually consistent, which may miss an account created a moment
  // ago: a miss is asked again strongly consistent before it is believed.
  let viewer = await userLoader.load(subject);
  if (!viewer) {
    viewer = (await users.getMany([subject], { consistent: true }))[0] ?? null;
    if (viewer) userLoader.clear(subject).prime(subject, viewer);
  }
  if (!viewer) throw unauthenticated('The account of this token does not exist');
  if (credential.generation !== null && credential.generation !== viewer.tokenGeneration) throw unauthenticated('The token was signed out: sign in again');
  return viewer;
}
