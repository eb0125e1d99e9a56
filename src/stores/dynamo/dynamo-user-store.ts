import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { WriteApi } from '../../config.js';
import { forbidden, handleTaken } from '../../domain/errors.js';
import type { Login, UserRecord } from '../../domain/models.js';
import type { ProfilePatch, UserStore } from '../user-store.js';
import { cancellationReasons, importItems, transactWrite } from './batch.js';
import { BatchReader, type ItemReader } from './batch-reader.js';
import type { TableOptions } from './client.js';
import { loginItems } from './dynamo-account-store.js';
import { keys } from './keys.js';

type Item = Record<string, unknown>;

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
} satisfies Record<keyof UserRecord, true>);

/** The items a user is stored as, written by create and importUsers alike: the handle claim, then the profile. */
export function userItems(user: UserRecord): [Item, Item] {
  return [
    { ...keys.handle(user.handle), userId: user.id },
    { ...keys.user(user.id), ...user },
  ];
}

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
        TransactItems: items.map((Item) => ({ Put: { TableName: this.tableName, Item, ConditionExpression: 'attribute_not_exists(pk)' } })),
      });
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (reasons?.[0] === 'ConditionalCheckFailed') {
        throw handleTaken(user.handle);
      }
      // The identity link is the last item: that identity has an account already.
      if (reasons?.at(-1) === 'ConditionalCheckFailed' && login && 'identity' in login) throw forbidden('This identity has an account already');
      throw error;
    }
  }

  async importUsers(users: readonly UserRecord[], onWritten?: (users: number) => void): Promise<void> {
    await importItems(this.client, this.tableName, users, userItems, { api: this.importApi, onWritten });
  }

  async getMany(ids: readonly string[], options: { consistent?: boolean } = {}): Promise<(UserRecord | null)[]> {
    const items = await this.reader.get(ids.map(keys.user), { consistent: options.consistent, attributes: USER_ATTRIBUTES });
    return items.map((item) => (item ? toUserRecord(item) : null));
  }

  async idsByHandle(handles: readonly string[], options: { consistent?: boolean } = {}): Promise<(string | null)[]> {
    const items = await this.reader.get(handles.map(keys.handle), { consistent: options.consistent, attributes: ['userId'] });
    return items.map((item) => (item ? (item.userId as string) : null));
  }

  async updateProfile(id: string, patch: ProfilePatch): Promise<UserRecord | null> {
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
    try {
      const result = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.user(id),
          // An empty patch still needs a valid expression; re-setting the id changes nothing.
          UpdateExpression: parts.join(' ').trim() || 'SET #id = #id',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: Object.keys(names).length ? names : { '#id': 'id' },
          ExpressionAttributeValues: Object.keys(values).length ? values : undefined,
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
