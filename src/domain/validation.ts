import { createHash } from 'node:crypto';
import { badInput } from './errors.js';

/** Input rules shared by the use cases. Each throws BAD_USER_INPUT naming the field. */

const HANDLE = /^[A-Za-z0-9_]{3,30}$/;
/** ASCII whitespace only: String.trim() would also drop U+2028 and U+2029 and let them through. */
const SPACE_AROUND = /^[\t\n\r ]+|[\t\n\r ]+$/g;
const WORD = /^[a-z0-9_]{1,40}$/;

export const LIMITS = {
  displayName: 64,
  bio: 280,
  interests: 20,
  pageSizeMax: 100,
  pageSizeDefault: 20,
} as const;

export function normalizeHandle(raw: string, field = 'handle'): string {
  const handle = raw.replace(SPACE_AROUND, '');
  // Checked before lower-casing, which would turn the Kelvin sign (U+212A) into "k".
  if (!HANDLE.test(handle)) throw badInput(field, 'must be 3-30 characters of a-z, 0-9 and _');
  return handle.toLowerCase();
}

/** Control characters (C0, DEL and C1, NUL included) other than tab and newline. */
const CONTROL = /(?![\t\n])\p{Cc}/u;
/** Half of a UTF-16 surrogate pair without the other half: not a character, and not valid UTF-8 once stored. */
const LONE_SURROGATE = /\p{Surrogate}/u;
/** Nothing a reader would see: whitespace and zero-width characters (Unicode's default-ignorable ones). */
const BLANK = /^[\s\p{Default_Ignorable_Code_Point}]*$/u;

/**
 * The one rule for free text (posts, comments, display names, bios): no lone surrogates,
 * no control characters but newline and tab (a `\r\n` or `\r` line break becomes `\n`),
 * not blank, at most `max` characters; returned NFC-normalized, which is how it is stored.
 */
export function cleanText(value: string, field: string, max: number): string {
  if (LONE_SURROGATE.test(value)) throw badInput(field, 'must not contain unpaired UTF-16 surrogates');
  const text = value.replace(/\r\n?/g, '\n').normalize('NFC');
  if (CONTROL.test(text)) throw badInput(field, 'must not contain control characters other than newline and tab');
  if (BLANK.test(text)) throw badInput(field, 'must not be empty or only invisible characters');
  if ([...text].length > max) throw badInput(field, `must be at most ${max} characters`);
  return text;
}

/** `cleanText` for a field that may be left out (undefined) or cleared (null). */
export function cleanOptionalText(
  value: string | null | undefined,
  field: string,
  max: number,
): string | null | undefined {
  return value === undefined || value === null ? value : cleanText(value, field, max);
}

/** Bidi embeddings, overrides and isolates reorder what is shown around them ("x\u202Eevil" reads "xlive"); a name is also one line. */
const NAME_SPOOFING = /[\n\u2028\u2029\u202A-\u202E\u2066-\u2069]/;

/** `cleanOptionalText` for a display name: also one line, without bidirectional embeddings, overrides or isolates. */
export function cleanOptionalName(value: string | null | undefined, field: string): string | null | undefined {
  const name = cleanOptionalText(value, field, LIMITS.displayName);
  if (name && NAME_SPOOFING.test(name))
    throw badInput(
      field,
      'must be one line without bidirectional embeddings, overrides or isolates (U+202A-U+202E, U+2066-U+2069)',
    );
  return name;
}

/** One word (an interest, a tag), lower-cased: 1-40 characters of a-z, 0-9 and _. */
export function normalizeWord(raw: string, field: string): string {
  const word = raw.trim().toLowerCase();
  if (!WORD.test(word))
    throw badInput(
      field,
      `"${raw.length > 40 ? `${raw.slice(0, 40)}…` : raw}" must be 1-40 characters of a-z, 0-9 and _`,
    );
  return word;
}

/** Lower-cases, checks and de-duplicates a list of words (interests, tags), keeping first-seen order. */
export function normalizeWords(
  values: readonly string[] | null | undefined,
  field: string,
  maxCount: number,
): string[] {
  if (!values) return [];
  const words: string[] = [];
  for (const raw of values) {
    const word = normalizeWord(raw, field);
    if (!words.includes(word)) words.push(word);
    // Stop at once: a body of thousands of distinct words must not cost a quadratic de-duplication.
    if (words.length > maxCount) throw badInput(field, `at most ${maxCount} allowed`);
  }
  return words;
}

const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{1,64}$/;

/** A client's idempotency key for a create, or null when it gave none. */
export function idempotencyKey(value: string | null | undefined, field: string): string | null {
  if (value === null || value === undefined) return null;
  if (!IDEMPOTENCY_KEY.test(value)) throw badInput(field, 'must be 1-64 characters of A-Z, a-z, 0-9, _ and -');
  return value;
}

/** A create's idempotency key, claimed with a digest of the input it came with. */
export interface IdempotencyClaim {
  key: string;
  fingerprint: string;
}

/**
 * A key's claim, with a digest of the checked input it came with: a retry sends the same input,
 * so a key that comes back with another one is a client's mistake, not a retry (see refuseReusedKey).
 */
export function idempotencyClaim(key: string | null, input: readonly unknown[]): IdempotencyClaim | null {
  return key === null
    ? null
    : { key, fingerprint: createHash('sha256').update(JSON.stringify(input)).digest('base64url') };
}

/** BAD_USER_INPUT when an idempotency key's first use came with other input; an old claim without a fingerprint matches. */
export function refuseReusedKey(
  claim: IdempotencyClaim | null,
  recorded: string | null,
  field: string,
  what: string,
): void {
  if (claim !== null && recorded !== null && recorded !== claim.fingerprint)
    throw badInput(field, `was used within the last 24 hours for ${what} with other input: use a new key`);
}

export function pageSize(first: number | null | undefined, field = 'first'): number {
  if (first === null || first === undefined) return LIMITS.pageSizeDefault;
  if (!Number.isInteger(first) || first < 1 || first > LIMITS.pageSizeMax) {
    throw badInput(field, `must be between 1 and ${LIMITS.pageSizeMax}`);
  }
  return first;
}
