import { badInput } from './errors.js';
import type { UserRecord } from './models.js';

/**
 * How people are found (Query.searchUsers): a user's terms are the handle and the words of the
 * display name, folded the same way as a query, so that `Zoë` and `ZOE` both find `zoe`.
 */

/**
 * A folded word's most UTF-8 bytes: an index entry's sort key, `<term>#<userId>` (an id is 30 bytes), and a query's
 * key condition stay within DynamoDB's 1,024. NFKD can make a word of 64 characters 18 times as long (`㌖`: `キロメートル`).
 */
export const MAX_TERM_BYTES = 1024 - 31;

/** Letters lose their accents (NFKD, then combining marks go), then lower-case; only letters, digits and _ stay. */
export function foldWords(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((word) => word.length > 0)
    .map(clipped);
}

/** The word's first whole characters that fit in MAX_TERM_BYTES, the same for a term and a query. */
function clipped(word: string): string {
  if (Buffer.byteLength(word) <= MAX_TERM_BYTES) return word;
  let bytes = 0;
  let end = 0;
  for (const char of word) {
    bytes += Buffer.byteLength(char);
    if (bytes > MAX_TERM_BYTES) break;
    end += char.length;
  }
  return word.slice(0, end);
}

/** At most this many words of a display name are indexed, so that a profile write stays well inside one transaction. */
export const MAX_NAME_TERMS = 10;

/** The index holds an item per prefix of each term up to this many characters (longer queries filter by `begins_with`). */
export const SEARCH_PREFIX_CHARS = 3;

/** A query's longest length, in characters. */
export const MAX_QUERY_LENGTH = 64;

/** The handle, then the display name's first MAX_NAME_TERMS distinct words. */
export function termsOf(user: Pick<UserRecord, 'handle' | 'displayName'>): string[] {
  const terms = [user.handle];
  for (const word of foldWords(user.displayName ?? '')) {
    if (terms.length > MAX_NAME_TERMS) break;
    if (!terms.includes(word)) terms.push(word);
  }
  return terms;
}

/** The first `n` characters (code points) of a term. */
export function prefixOf(term: string, n: number): string {
  return Array.from(term).slice(0, n).join('');
}

/** The prefixes a term is filed under: its first 1, 2 and 3 characters. */
export function indexPrefixes(term: string): string[] {
  const length = Math.min(Array.from(term).length, SEARCH_PREFIX_CHARS);
  return Array.from({ length }, (_, i) => prefixOf(term, i + 1));
}

/** A query, folded into words: BAD_USER_INPUT when empty, too long, or without a letter or digit. */
export function searchWords(query: string, field = 'query'): string[] {
  if (Array.from(query).length > MAX_QUERY_LENGTH)
    throw badInput(field, `must be at most ${MAX_QUERY_LENGTH} characters`);
  const words = foldWords(query);
  if (words.length === 0) throw badInput(field, 'must contain at least one letter, digit or _');
  return words;
}

/** Whether every word of the query starts one of the user's terms. */
export function matchesAll(words: readonly string[], user: Pick<UserRecord, 'handle' | 'displayName'>): boolean {
  const terms = termsOf(user);
  return words.every((word) => terms.some((term) => term.startsWith(word)));
}
