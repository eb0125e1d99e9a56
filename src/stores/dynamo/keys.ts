/**
 * The DynamoDB key design, in one place. Everything lives in one table with a string
 * partition key `pk` and a string sort key `sk`; no other module builds key strings.
 *
 * | item                 | pk                 | sk        |
 * |----------------------|--------------------|-----------|
 * | user profile         | USER#<userId>      | PROFILE   |
 * | handle claim         | HANDLE#<handle>    | CLAIM     |
 * | graph node           | GNODE#<userId>     | NODE      |
 */
export interface Key {
  pk: string;
  sk: string;
}

export const keys = {
  user: (userId: string): Key => ({ pk: `USER#${userId}`, sk: 'PROFILE' }),
  handle: (handle: string): Key => ({ pk: `HANDLE#${handle}`, sk: 'CLAIM' }),
  /** The embedded graph backend's copy of a user: handle, interests and follow counts. */
  graphNode: (userId: string): Key => ({ pk: `GNODE#${userId}`, sk: 'NODE' }),
};

export function tableName(prefix: string): string {
  return `${prefix}main`;
}
