import { badInput } from './errors.js';

/** Input rules shared by the use cases. Each throws BAD_USER_INPUT naming the field. */

const HANDLE = /^[a-z0-9_]{3,30}$/;
const WORD = /^[a-z0-9_]{1,40}$/;

export const LIMITS = {
  displayName: 64,
  bio: 280,
  interests: 20,
  pageSizeMax: 100,
  pageSizeDefault: 20,
} as const;

export function normalizeHandle(raw: string, field = 'handle'): string {
  const handle = raw.trim().toLowerCase();
  if (!HANDLE.test(handle)) throw badInput(field, 'must be 3-30 characters of a-z, 0-9 and _');
  return handle;
}

export function checkOptionalText(value: string | null | undefined, field: string, max: number): string | null | undefined {
  if (value === undefined || value === null) return value;
  if ([...value].length > max) throw badInput(field, `must be at most ${max} characters`);
  return value;
}

export function checkRequiredText(value: string, field: string, max: number): string {
  const trimmed = value.trim();
  if (trimmed.length === 0) throw badInput(field, 'must not be empty');
  if ([...value].length > max) throw badInput(field, `must be at most ${max} characters`);
  return value;
}

/** Lower-cases, checks and de-duplicates a list of words (interests, tags), keeping first-seen order. */
export function normalizeWords(values: readonly string[] | null | undefined, field: string, maxCount: number): string[] {
  if (!values) return [];
  const words: string[] = [];
  for (const raw of values) {
    const word = raw.trim().toLowerCase();
    if (!WORD.test(word)) throw badInput(field, `"${raw}" must be 1-40 characters of a-z, 0-9 and _`);
    if (!words.includes(word)) words.push(word);
  }
  if (words.length > maxCount) throw badInput(field, `at most ${maxCount} allowed`);
  return words;
}

const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{1,64}$/;

/** A client's idempotency key for a create, or null when it gave none. */
export function idempotencyKey(value: string | null | undefined, field: string): string | null {
  if (value === null || value === undefined) return null;
  if (!IDEMPOTENCY_KEY.test(value)) throw badInput(field, 'must be 1-64 characters of A-Z, a-z, 0-9, _ and -');
  return value;
}

export function pageSize(first: number | null | undefined, field = 'first'): number {
  if (first === null || first === undefined) return LIMITS.pageSizeDefault;
  if (!Number.isInteger(first) || first < 1 || first > LIMITS.pageSizeMax) {
    throw badInput(field, `must be between 1 and ${LIMITS.pageSizeMax}`);
  }
  return first;
}
