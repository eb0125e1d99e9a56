import type { Login, UserRecord } from '../domain/models.js';

export interface ProfilePatch {
  displayName?: string | null;
  bio?: string | null;
  interests?: string[];
}

/** Users and their unique handles. */
export interface UserStore {
  /**
   * Writes the handle claim, the user and its login (when given) in one transaction; HANDLE_TAKEN
   * when the handle is claimed, FORBIDDEN when the login's provider identity has an account.
   */
  create(user: UserRecord, login?: Login): Promise<void>;
  /**
   * Writes many users (with their postCount) and their handle claims at once, without the
   * checks of create: for a store that holds none of these users or handles (seeding).
   */
  importUsers(users: readonly UserRecord[], onWritten?: (users: number) => void): Promise<void>;
  /** Aligned with `ids`; null for unknown ids. `consistent` reads after a write. */
  getMany(ids: readonly string[], options?: { consistent?: boolean }): Promise<(UserRecord | null)[]>;
  /** Aligned with `handles` (already normalised); null for unclaimed handles. `consistent` reads after a write. */
  idsByHandle(handles: readonly string[], options?: { consistent?: boolean }): Promise<(string | null)[]>;
  /**
   * The users with a term (handle or display-name word, folded: see domain/search-terms.ts) that starts
   * with `word`, at most `limit` of them, in one request.
   */
  search(word: string, limit: number): Promise<string[]>;
  /** Whether each user is in the search index under this term (a closed account is not, at once); aligned with `entries`. */
  indexed(entries: readonly { term: string; userId: string }[]): Promise<boolean[]>;
  /**
   * Applies the patch (moving the user's search entries with it) and returns the updated user, or null when there is
   * no such user or it was closed: the write is conditioned on an open profile, so that it cannot land after the close.
   */
  updateProfile(id: string, patch: ProfilePatch): Promise<UserRecord | null>;
}
