import { badInput } from './errors.js';

/**
 * Opaque keyset cursors: the position a page ended at (a sort key, usually), serialised
 * as base64url JSON so clients cannot depend on its shape. A cursor that does not decode
 * is BAD_USER_INPUT on the argument that carried it.
 */
export function encodeCursor(position: unknown): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/**
 * Longer than any cursor this API gives out. Checked before decoding, so a decoded position is
 * always well under DynamoDB's 1,024-byte limit for a sort key.
 */
export const MAX_CURSOR_LENGTH = 512;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

export function decodeCursor<T>(
  cursor: string | null | undefined,
  field: string,
  isValid: (value: unknown) => value is T,
): T | null {
  if (cursor === null || cursor === undefined) return null;
  if (cursor.length > MAX_CURSOR_LENGTH)
    throw badInput(field, `is longer than any cursor this API gives out (${MAX_CURSOR_LENGTH} characters)`);
  if (!BASE64URL.test(cursor)) throw badInput(field, 'is not a cursor this API gave out');
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badInput(field, 'is not a cursor this API gave out');
  }
  if (!isValid(value)) throw badInput(field, 'is not a cursor this API gave out');
  return value;
}

export const isString = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length < 1024;
