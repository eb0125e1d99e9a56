import type { UserRecord } from '../../domain/models.js';
import { indexPrefixes, termsOf } from '../../domain/search-terms.js';
import { type Key, keys } from './keys.js';

/** The search index entries of a user: each term under each of its prefixes. */
export function searchKeys(user: Pick<UserRecord, 'id' | 'handle' | 'displayName'>): Key[] {
  return termsOf(user).flatMap((term) => indexPrefixes(term).map((prefix) => keys.searchEntry(prefix, term, user.id)));
}

/** What moves in the search index when a profile changes from `before` to `after`: entries to delete and to put. */
export function searchIndexChanges(before: UserRecord, after: UserRecord): { removed: Key[]; added: Key[] } {
  const id = (key: Key) => `${key.pk}\n${key.sk}`;
  const [old, next] = [searchKeys(before), searchKeys(after)];
  const [oldIds, nextIds] = [new Set(old.map(id)), new Set(next.map(id))];
  return { removed: old.filter((key) => !nextIds.has(id(key))), added: next.filter((key) => !oldIds.has(id(key))) };
}
