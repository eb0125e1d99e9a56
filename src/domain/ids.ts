import { randomBytes } from 'node:crypto';
import { badInput } from './errors.js';

/**
 * Time-ordered ids: a type prefix and a ULID, so ids of one type sort by creation time, as timeline sort keys
 * need. Strictly increasing within a process, even inside one millisecond.
 */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_LEN = 10;
const RANDOM_LEN = 16;

export type IdKind = 'usr' | 'pst' | 'cmt' | 'tsk';

let lastTime = -1;
let lastRandom: number[] = [];

function encodeTime(ms: number): string {
  let out = '';
  let rest = ms;
  for (let i = 0; i < TIME_LEN; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function freshRandom(): number[] {
  return Array.from(randomBytes(RANDOM_LEN), (b) => b % 32);
}

/** Adds one to the base32 digits; on overflow (vanishingly rare) waits for the next ms. */
function increment(digits: number[]): number[] | null {
  const next = [...digits];
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i]! < 31) {
      next[i]! += 1;
      return next;
    }
    next[i] = 0;
  }
  return null;
}

export function ulid(now: number = Date.now()): string {
  let time = Math.max(now, lastTime);
  let random: number[] | null;
  if (time === lastTime) {
    random = increment(lastRandom);
    if (!random) {
      time += 1;
      random = freshRandom();
    }
  } else {
    random = freshRandom();
  }
  lastTime = time;
  lastRandom = random;
  return encodeTime(time) + random.map((d) => ALPHABET[d]).join('');
}

export function newId(kind: IdKind, now?: number): string {
  return `${kind}_${ulid(now)}`;
}

/** An id of `kind` made at `ms` whose random part is drawn from `random` (floats in [0, 1)): generated data that comes out the same each run (the seed). */
export function idFrom(kind: IdKind, ms: number, random: () => number): string {
  return `${kind}_${encodeTime(ms)}${Array.from({ length: RANDOM_LEN }, () => ALPHABET[Math.floor(random() * 32)]).join('')}`;
}

/** The least id of `kind` made at `ms`: every id made then or later sorts at or after it (a key bound, not an id). */
export function idFloor(kind: IdKind, ms: number): string {
  return `${kind}_${encodeTime(Math.max(0, Math.floor(ms)))}`;
}

/** An id of `kind` as a regular expression source, for the cursor positions that end in one. */
export function idPattern(kind: IdKind): string {
  return `${kind}_[0-9A-HJKMNP-TV-Z]{26}`;
}

export function idKind(id: string): IdKind | null {
  const match = /^(usr|pst|cmt|tsk)_[0-9A-HJKMNP-TV-Z]{26}$/.exec(id);
  return match ? (match[1] as IdKind) : null;
}

/** The creation time encoded in an id, in ms since the epoch. */
export function idTime(id: string): number {
  const body = id.slice(id.indexOf('_') + 1, id.indexOf('_') + 1 + TIME_LEN);
  let ms = 0;
  for (const ch of body) ms = ms * 32 + ALPHABET.indexOf(ch);
  return ms;
}

/**
 * Longer than any id this API gives out: a notification's, 96 characters at most (see
 * notificationId). A longer ID argument is refused before anything runs: no lookup could find it.
 */
export const MAX_ID_LENGTH = 100;

const ID_KIND_NAMES: Record<IdKind, string> = { usr: 'user', pst: 'post', cmt: 'comment', tsk: 'task' };

/** Refuses an id that is not of `kind` as BAD_USER_INPUT on `field`; for arguments that must name something. */
export function requireIdOf(kind: IdKind, id: string, field: string): string {
  if (idKind(id) !== kind) throw badInput(field, `is not a ${ID_KIND_NAMES[kind]} id`);
  return id;
}
