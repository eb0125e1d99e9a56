import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { badInput } from '../domain/errors.js';

export const PASSWORD_MIN_LENGTH = 12;
/** Bounds the work one request can ask of the hash function. */
export const PASSWORD_MAX_LENGTH = 256;

const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
/** PHC string format: `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>`, salt and hash in unpadded base64. */
const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function derive(password: string, salt: Buffer, log2N: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** log2N;
  return new Promise((resolve, reject) => {
    // scrypt needs 128 * N * r bytes; Node refuses more than maxmem (32 MiB by default).
    scrypt(password.normalize('NFC'), salt, HASH_BYTES, { N, r, p, maxmem: 256 * N * r }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

const unpadded = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

/**
 * Password hashing with scrypt (memory-hard, in node:crypto): a random 16-byte salt per password,
 * r = 8, p = 1 and N = 2^PASSWORD_SCRYPT_LOG2_N, stored with its parameters so that raising the
 * cost later still verifies old hashes (and `needsRehash` says when to replace one).
 */
export class Passwords {
  /** A hash of a password no one has, checked when the handle is unknown so that the answer takes as long; made on first use. */
  private decoy: Promise<string> | undefined;

  constructor(private readonly log2N: number) {}

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    const key = await derive(password, salt, this.log2N, BLOCK_SIZE, PARALLELISM);
    return `$scrypt$ln=${this.log2N},r=${BLOCK_SIZE},p=${PARALLELISM}$${unpadded(salt)}$${unpadded(key)}`;
  }

  /** Whether `password` matches `stored`; with `stored` null, checks a decoy (false) in the same time. Compared in constant time. */
  async verify(password: string, stored: string | null): Promise<boolean> {
    this.decoy ??= this.hash(randomBytes(24).toString('base64'));
    const match = PHC.exec(stored ?? (await this.decoy));
    if (!match) throw new Error('stored password hash is not an scrypt PHC string');
    const [, ln, r, p, salt, hash] = match;
    const expected = Buffer.from(hash!, 'base64');
    const actual = await derive(password, Buffer.from(salt!, 'base64'), Number(ln), Number(r), Number(p));
    return actual.length === expected.length && timingSafeEqual(actual, expected) && stored !== null;
  }

  /** True when `stored` was made with weaker parameters than new hashes get. */
  needsRehash(stored: string): boolean {
    const match = PHC.exec(stored);
    return !match || Number(match[1]) < this.log2N || Number(match[2]) < BLOCK_SIZE;
  }
}

/** A new password: 12-256 characters (code points), any characters but lone surrogates. */
export function checkNewPassword(password: string, field: string): string {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) throw badInput(field, `must be at least ${PASSWORD_MIN_LENGTH} characters`);
  if (length > PASSWORD_MAX_LENGTH) throw badInput(field, `must be at most ${PASSWORD_MAX_LENGTH} characters`);
  if (/\p{Surrogate}/u.test(password)) throw badInput(field, 'must not contain unpaired UTF-16 surrogates');
  return password;
}

/** A password presented to be checked: only bounded, so that old passwords under newer rules still work. */
export function checkPresentedPassword(password: string, field: string): string {
  if ([...password].length > PASSWORD_MAX_LENGTH)
    throw badInput(field, `must be at most ${PASSWORD_MAX_LENGTH} characters`);
  return password;
}
