import type DataLoader from 'dataloader';
import { unauthenticated } from '../domain/errors.js';
import type { Credential, UserRecord } from '../domain/models.js';
import type { UserStore } from '../stores/user-store.js';

/**
 * The account a signed-in request acts as. A valid token is not enough: its account must exist, not be closed, and
 * be at the token's generation, so signing out everywhere ends every token at once (see docs/design/authentication.md).
 */
export async function authenticate(
  credential: Credential,
  userLoader: DataLoader<string, UserRecord | null>,
  users: UserStore,
): Promise<UserRecord> {
  const subject = credential.userId;
  // A query's loader reads eventually consistent, which may miss an account created a moment
  // ago: a miss is asked again strongly consistent before it is believed.
  let viewer = await userLoader.load(subject);
  if (!viewer) {
    viewer = (await users.getMany([subject], { consistent: true }))[0] ?? null;
    if (viewer) userLoader.clear(subject).prime(subject, viewer);
  }
  if (!viewer) throw unauthenticated('The account of this token does not exist');
  // A provider's token carries no generation: its account's closing is what ends it.
  if (viewer.closedAt !== undefined) throw unauthenticated('The account of this token was deleted');
  if (credential.generation !== null && credential.generation !== viewer.tokenGeneration)
    throw unauthenticated('The token was signed out: sign in again');
  return viewer;
}
