import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { WriteApi } from '../../config.js';
import { forbidden, handleTaken } from '../../domain/errors.js';
import { SEARCH_PREFIX_CHARS, prefixOf } from '../../domain/search-terms.js';
import type { Login, UserRecord } from '../../domain/models.js';
import type { ProfilePatch, UserStore } from '../user-store.js';
import { cancellationReasons, importItems, transactWrite } from './batch.js';
import { BatchReader, type ItemReader } from './batch-reader.js';
import type { TableOptions } from './client.js';
import { loginItems } from './dynamo-account-store.js';
import { PROFILE_OPEN, keys, partitions } from './keys.js';
import { searchIndexChanges, searchKeys } from './search-items.js';

type Item = Record<string, unknown>;

/** A profile item, not the follow counts an account's deletion may leave on its key for a moment (see PROFILE_EXISTS). */
const isProfile = (item: Item | undefined): item is Item => item?.handle !== undefined;

export function toUserRecord(item: Item): UserRecord {
  return {
    id: item.id as string,
    handle: item.handle as string,
    displayName: (item.displayName as string | undefined) ?? null,
    bio: (item.bio as string | undefined) ?? null,
    interests: (item.interests as string[] | undefined) ?? [],
    createdAt: item.createdAt as string,
    postCount: Number(item.postCount ?? 0),
    tokenGeneration: Number(item.tokenGeneration ?? 0),
    ...(typeof item.closedAt === 'string' ? { closedAt: item.closedAt } : {}),
  };
}

/** What a user record is read from: every field, so that a field added to UserRecord fails to compile until it is read. */
const USER_ATTRIBUTES = Object.keys({
  id: true,
  handle: true,
  displayName: true,
  bio: true,
  interests: true,
  createdAt: true,
  postCount: true,
  tokenGeneration: true,
  closedAt: true,
} satisfies Record<keyof UserRecord, true>);

/** The items a user is stored as, written by create and importUsers alike: the handle claim, the profile, then its search entries. */
export function userItems(user: UserRecord): [Item, Item, ...Item[]] {
  return [
    { ...keys.handle(user.handle), userId: user.id },
    { ...keys.user(user.id), ...user },
    ...searchKeys(user).map((key) => ({ ...key, userId: user.id })),
  ];
}

/** Tries of a profile write that moves search entries, when another write changed the profile between its read and its transaction. */
const PROFILE_WRITE_TRIES = 3;

export interface DynamoUserStoreOptions extends TableOptions {
  /** BULK_WRITE_API, for imports; `batchWrite` unless given. */
  importApi?: WriteApi;
  /** Coalesces a tick's lookups, through the cache when there is one; a reader of its own unless given. */
  reader?: ItemReader;
}

export class DynamoUserStore implements UserStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly importApi: WriteApi;
  private readonly reader: ItemReader;

  constructor(options: DynamoUserStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.importApi = options.importApi ?? 'batchWrite';
    this.reader = options.reader ?? new BatchReader(options.client, options.tableName, false);
  }

  async create(user: UserRecord, login?: Login): Promise<void> {
    const items = [...userItems(user), ...(login ? loginItems(user.id, login) : [])];
    try {
      await transactWrite(this.client, {
        TransactItems: items.map((Item) => ({
          Put: { TableName: this.tableName, Item, ConditionExpression: 'attribute_not_exists(pk)' },
        })),
      });
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (reasons?.[0] === 'ConditionalCheckFailed') {
        throw handleTaken(user.handle);
      }
      // The identity link is the last item: that identity has an account already.
      if (reasons?.at(-1) === 'ConditionalCheckFailed' && login && 'identity' in login)
        throw forbidden('This identity has an account already');
      throw error;
    }
  }

  async importUsers(users: readonly UserRecord[], onWritten?: (users: number) => void): Promise<void> {
    await importItems(this.client, this.tableName, users, userItems, { api: this.importApi, onWritten });
  }

  async getMany(ids: readonly string[], options: { consistent?: boolean } = {}): Promise<(UserRecord | null)[]> {
    const items = await this.reader.get(ids.map(keys.user), {
      consistent: options.consistent,
      attributes: USER_ATTRIBUTES,
    });
    return items.map((item) => (isProfile(item) ? toUserRecord(item) : null));
  }

  async idsByHandle(handles: readonly string[], options: { consistent?: boolean } = {}): Promise<(string | null)[]> {
    const items = await this.reader.get(handles.map(keys.handle), {
      consistent: options.consistent,
      attributes: ['userId'],
    });
    return items.map((item) => (item ? (item.userId as string) : null));
  }

  async search(word: string, limit: number): Promise<string[]> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :word)',
        ExpressionAttributeValues: { ':pk': partitions.search(prefixOf(word, SEARCH_PREFIX_CHARS)), ':word': word },
        ProjectionExpression: 'userId',
        Limit: limit,
      }),
    );
    return [...new Set((result.Items ?? []).map((item) => item.userId as string))];
  }

  async indexed(entries: readonly { term: string; userId: string }[]): Promise<boolean[]> {
    const items = await this.reader.get(
      entries.map(({ term, userId }) => keys.searchEntry(prefixOf(term, 1), term, userId)),
      { attributes: ['userId'] },
    );
    return items.map((item) => item !== undefined);
  }

  /**
   * Applies the patch. A display name change moves the user's search entries in the same transaction
   * as the profile (conditioned on the name it was read with), so that search never shows a name it
   * no longer has, nor misses the new one.
   */
  async updateProfile(id: string, patch: ProfilePatch): Promise<UserRecord | null> {
    if (patch.displayName === undefined) return this.patchProfile(id, patch);
    // One read more than the writes: a write that failed its condition on the last try reads why.
    for (let attempt = 1; attempt <= PROFILE_WRITE_TRIES + 1; attempt++) {
      const read = await this.client.send(
        new GetCommand({ TableName: this.tableName, Key: keys.user(id), ConsistentRead: true }),
      );
      if (!isProfile(read.Item) || read.Item.closedAt !== undefined) return null;
      if (attempt > PROFILE_WRITE_TRIES) break;
      const before = toUserRecord(read.Item);
      const after = {
        ...before,
        ...Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)),
      } as UserRecord;
      const { removed, added } = searchIndexChanges(before, after);
      const update = updateParts(patch);
      try {
        await transactWrite(this.client, {
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: keys.user(id),
                UpdateExpression: update.expression,
                // A user without a name has a NULL displayName (sign-up) or none (cleared).
                ConditionExpression:
                  before.displayName === null
                    ? `${PROFILE_OPEN} AND (attribute_not_exists(#displayName) OR attribute_type(#displayName, :nullType))`
                    : `${PROFILE_OPEN} AND #displayName = :readName`,
                ExpressionAttributeNames: { ...update.names, '#displayName': 'displayName' },
                ExpressionAttributeValues: {
                  ...update.values,
                  ...(before.displayName === null ? { ':nullType': 'NULL' } : { ':readName': before.displayName }),
                },
              },
            },
            ...removed.map((Key) => ({ Delete: { TableName: this.tableName, Key } })),
            ...added.map((key) => ({ Put: { TableName: this.tableName, Item: { ...key, userId: id } } })),
          ],
        });
        return after;
      } catch (error) {
        if (cancellationReasons(error)?.[0] !== 'ConditionalCheckFailed') throw error;
      }
    }
    throw new Error(`the display name of ${id} changed during each of ${PROFILE_WRITE_TRIES} attempts to write it`);
  }

  private async patchProfile(id: string, patch: ProfilePatch): Promise<UserRecord | null> {
    const { expression, names, values } = updateParts(patch);
    try {
      const result = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.user(id),
          UpdateExpression: expression,
          ConditionExpression: PROFILE_OPEN,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: orUndefined(values),
          ReturnValues: 'ALL_NEW',
        }),
      );
      return result.Attributes ? toUserRecord(result.Attributes) : null;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return null;
      throw error;
    }
  }
}

/** The update expression of a patch: undefined leaves a field, null removes it. */
function updateParts(patch: ProfilePatch): {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
} {
  const sets: string[] = [];
  const removes: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    names[`#${field}`] = field;
    if (value === null) {
      removes.push(`#${field}`);
    } else {
      sets.push(`#${field} = :${field}`);
      values[`:${field}`] = value;
    }
  }
  const parts = [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''];
  // An empty patch still needs a valid expression; re-setting the id changes nothing.
  const expression = parts.join(' ').trim() || 'SET #id = #id';
  return { expression, names: Object.keys(names).length ? names : { '#id': 'id' }, values };
}

/** DynamoDB refuses an empty map of expression values. */
function orUndefined(values: Record<string, unknown>): Record<string, unknown> | undefined {
  return Object.keys(values).length ? values : undefined;
}
