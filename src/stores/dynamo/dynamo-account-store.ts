import {
  DeleteCommand,
  GetCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { Login, ProviderIdentity, UserRecord } from '../../domain/models.js';
import type { Task } from '../../domain/tasks.js';
import type {
  AccountStore,
  AttemptSubject,
  FailedAttemptStore,
  NewRefreshToken,
  RefreshTokenRecord,
  SessionRecord,
} from '../account-store.js';
import { batchGet, batchWrite, cancellationReasons, del, transactWrite } from './batch.js';
import type { TableOptions } from './client.js';
import type { DynamoTaskQueue } from './dynamo-task-queue.js';
import { type Key, PROFILE_EXISTS, keys, notificationPrefixes, partitions } from './keys.js';
import { searchKeys } from './search-items.js';

type Item = Record<string, unknown>;

/** The items that give a new account its login, written in the account's creation transaction (see DynamoUserStore.create). */
export function loginItems(userId: string, login: Login): Item[] {
  if ('passwordHash' in login) return [{ ...keys.login(userId), userId, passwordHash: login.passwordHash }];
  const { issuer, subject } = login.identity;
  return [
    { ...keys.login(userId), userId, issuer, subject },
    { ...keys.identityLink(issuer, subject), userId },
  ];
}

function toSession(item: Item): SessionRecord {
  return {
    sessionId: item.sessionId as string,
    userId: item.userId as string,
    generation: Number(item.generation),
    revoked: item.revoked === true,
  };
}

/** The condition that an account's token generation is still `generation`; an old record without one is at 0. */
function atGeneration(generation: number): string {
  return generation === 0
    ? `${PROFILE_EXISTS} AND (attribute_not_exists(tokenGeneration) OR tokenGeneration = :generation)`
    : 'tokenGeneration = :generation';
}

const CHANGE_ATTEMPTS = 5;
/** Items of a closed account removed per removeRemnants call (and so per checkpoint of its task). */
const REMNANTS_PER_CALL = 500;

export interface DynamoAccountStoreOptions extends TableOptions {
  /** Writes the tasks of an account's deletion in its transaction. */
  tasks: DynamoTaskQueue;
}

export class DynamoAccountStore implements AccountStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly tasks: DynamoTaskQueue;

  constructor(options: DynamoAccountStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.tasks = options.tasks;
  }

  private async get(key: { pk: string; sk: string }): Promise<Item | undefined> {
    return (await this.client.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }))).Item;
  }

  async login(userId: string): Promise<Login | null> {
    const item = await this.get(keys.login(userId));
    if (!item) return null;
    if (typeof item.passwordHash === 'string') return { passwordHash: item.passwordHash };
    return { identity: { issuer: item.issuer as string, subject: item.subject as string } };
  }

  async linkedUser(identity: ProviderIdentity): Promise<string | null> {
    const item = await this.get(keys.identityLink(identity.issuer, identity.subject));
    return item ? (item.userId as string) : null;
  }

  async setPasswordHash(userId: string, passwordHash: string): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.login(userId),
        UpdateExpression: 'SET passwordHash = :hash',
        ConditionExpression: 'attribute_exists(passwordHash)',
        ExpressionAttributeValues: { ':hash': passwordHash },
      }),
    );
  }

  async changePassword(userId: string, passwordHash: string, keepSessionId: string | null): Promise<number> {
    let keep = keepSessionId;
    for (let attempt = 1; ; attempt++) {
      const profile = await this.get(keys.user(userId));
      if (!profile) throw new Error(`user ${userId} has no profile`);
      const generation = Number(profile.tokenGeneration ?? 0);
      const next = generation + 1;
      try {
        await transactWrite(this.client, {
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: keys.login(userId),
                UpdateExpression: 'SET passwordHash = :hash',
                ConditionExpression: 'attribute_exists(passwordHash)',
                ExpressionAttributeValues: { ':hash': passwordHash },
              },
            },
            {
              Update: {
                TableName: this.tableName,
                Key: keys.user(userId),
                UpdateExpression: 'SET tokenGeneration = :next',
                ConditionExpression: atGeneration(generation),
                ExpressionAttributeValues: { ':generation': generation, ':next': next },
              },
            },
            ...(keep
              ? [
                  {
                    Update: {
                      TableName: this.tableName,
                      Key: keys.session(userId, keep),
                      UpdateExpression: 'SET generation = :next',
                      ConditionExpression:
                        'userId = :userId AND generation = :generation AND attribute_not_exists(revoked)',
                      ExpressionAttributeValues: { ':userId': userId, ':generation': generation, ':next': next },
                    },
                  },
                ]
              : []),
          ],
        });
        return next;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (!reasons || attempt >= CHANGE_ATTEMPTS) throw error;
        if (reasons[0] === 'ConditionalCheckFailed')
          throw new Error(`user ${userId} has no password to change`, { cause: error });
        // A session that is over (or of an older generation) is not kept; a generation that moved meanwhile is read again.
        if (reasons[2] === 'ConditionalCheckFailed') keep = null;
      }
    }
  }

  async startSession(session: SessionRecord, token: NewRefreshToken): Promise<void> {
    await transactWrite(this.client, {
      TransactItems: [
        {
          Put: {
            TableName: this.tableName,
            Item: {
              ...keys.session(session.userId, session.sessionId),
              sessionId: session.sessionId,
              userId: session.userId,
              generation: session.generation,
              expiresAt: token.expiresAt,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: this.tableName,
            Item: {
              ...keys.refreshToken(token.hash),
              sessionId: session.sessionId,
              userId: session.userId,
              expiresAt: token.expiresAt,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    });
  }

  async refreshToken(hash: string): Promise<{ token: RefreshTokenRecord; session: SessionRecord | null } | null> {
    const item = await this.get(keys.refreshToken(hash));
    if (!item) return null;
    const token: RefreshTokenRecord = {
      sessionId: item.sessionId as string,
      userId: item.userId as string,
      used: item.used === true,
      expiresAt: Number(item.expiresAt),
    };
    const session = await this.get(keys.session(token.userId, token.sessionId));
    return { token, session: session ? toSession(session) : null };
  }

  async rotate(session: SessionRecord, usedHash: string, next: NewRefreshToken): Promise<boolean> {
    try {
      await transactWrite(this.client, {
        TransactItems: [
          {
            Update: {
              TableName: this.tableName,
              Key: keys.refreshToken(usedHash),
              UpdateExpression: 'SET used = :true',
              ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(used)',
              ExpressionAttributeValues: { ':true': true },
            },
          },
          {
            Put: {
              TableName: this.tableName,
              Item: {
                ...keys.refreshToken(next.hash),
                sessionId: session.sessionId,
                userId: session.userId,
                expiresAt: next.expiresAt,
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: {
              TableName: this.tableName,
              Key: keys.session(session.userId, session.sessionId),
              // The session lasts as long as its newest refresh token.
              UpdateExpression: 'SET expiresAt = :expiresAt',
              ConditionExpression:
                'attribute_exists(pk) AND attribute_not_exists(revoked) AND generation = :generation',
              ExpressionAttributeValues: { ':expiresAt': next.expiresAt, ':generation': session.generation },
            },
          },
          {
            ConditionCheck: {
              TableName: this.tableName,
              Key: keys.user(session.userId),
              ConditionExpression: atGeneration(session.generation),
              ExpressionAttributeValues: { ':generation': session.generation },
            },
          },
        ],
      });
      return true;
    } catch (error) {
      if (cancellationReasons(error)?.includes('ConditionalCheckFailed')) return false;
      throw error;
    }
  }

  async endSession(userId: string, sessionId: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.session(userId, sessionId),
          UpdateExpression: 'SET revoked = :true',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':true': true },
        }),
      );
    } catch (error) {
      // A session that has expired is over already.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  async endAllSessions(userId: string): Promise<number> {
    const result = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.user(userId),
        UpdateExpression: 'SET tokenGeneration = if_not_exists(tokenGeneration, :zero) + :one',
        ConditionExpression: PROFILE_EXISTS,
        ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(result.Attributes?.tokenGeneration);
  }

  async closeAccount(user: UserRecord, task: Task, closedAt: string): Promise<boolean> {
    const login = await this.get(keys.login(user.id));
    try {
      await transactWrite(this.client, {
        TransactItems: [
          {
            Update: {
              TableName: this.tableName,
              Key: keys.user(user.id),
              UpdateExpression: 'SET tokenGeneration = :next, closedAt = :closedAt',
              ConditionExpression: atGeneration(user.tokenGeneration),
              ExpressionAttributeValues: {
                ':generation': user.tokenGeneration,
                ':next': user.tokenGeneration + 1,
                ':closedAt': closedAt,
              },
            },
          },
          { Delete: { TableName: this.tableName, Key: keys.login(user.id) } },
          ...(typeof login?.issuer === 'string'
            ? [{ Delete: { TableName: this.tableName, Key: keys.identityLink(login.issuer, login.subject as string) } }]
            : []),
          this.tasks.enqueueItem(task),
          // A closed account leaves search at once; its handle is free to find again.
          ...searchKeys(user).map((Key) => ({ Delete: { TableName: this.tableName, Key } })),
        ],
      });
      return true;
    } catch (error) {
      if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') return false;
      throw error;
    }
  }

  async removeRemnants(userId: string): Promise<boolean> {
    const page = (pk: string) =>
      this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ProjectionExpression: 'pk, sk',
          Limit: REMNANTS_PER_CALL,
        }),
      );
    const pages = await Promise.all(
      [
        partitions.home(userId),
        partitions.homeMarkers(userId),
        partitions.sessions(userId),
        partitions.idempotencyClaims(userId),
        partitions.notifications(userId),
      ].map(page),
    );
    const items = pages.flatMap((result) => (result.Items ?? []) as unknown as Key[]);
    // Each of its notifications' member items has a mirror in its actor's partition.
    const mirrors = items
      .filter((key) => key.pk === partitions.notifications(userId) && key.sk.startsWith(notificationPrefixes.member))
      .map((key) => keys.notifiedByOfMember(userId, key.sk));
    await batchWrite(this.client, this.tableName, [del(keys.outboxAuthor(userId)), ...[...items, ...mirrors].map(del)]);
    return pages.some((result) => result.LastEvaluatedKey !== undefined);
  }

  async removeProfile(userId: string, handle: string): Promise<void> {
    await transactWrite(this.client, {
      TransactItems: [
        { Delete: { TableName: this.tableName, Key: keys.user(userId) } },
        // The claim only while it is still this account's: once freed, the handle may be someone else's.
        {
          Delete: {
            TableName: this.tableName,
            Key: keys.handle(handle),
            ConditionExpression: 'attribute_not_exists(pk) OR userId = :userId',
            ExpressionAttributeValues: { ':userId': userId },
          },
        },
      ],
    }).catch((error: unknown) => {
      if (cancellationReasons(error)?.[1] !== 'ConditionalCheckFailed') throw error;
      return this.client.send(new DeleteCommand({ TableName: this.tableName, Key: keys.user(userId) }));
    });
  }
}

export class DynamoFailedAttemptStore implements FailedAttemptStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(options: TableOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
  }

  async failures(subjects: readonly AttemptSubject[], windowStarts: readonly number[]): Promise<number[][]> {
    const items = await batchGet(
      this.client,
      this.tableName,
      windowStarts.flatMap((start) => subjects.map((s) => keys.signInAttempts(s.scope, s.value, start))),
      { consistent: true },
    );
    return windowStarts.map((_, w) =>
      subjects.map((s, i) => Number(items[w * subjects.length + i]?.[counted(s)] ?? 0)),
    );
  }

  async recordFailure(subjects: readonly AttemptSubject[], windowStart: number, expiresAt: number): Promise<void> {
    await Promise.all(
      subjects.map((s) =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.signInAttempts(s.scope, s.value, windowStart),
            UpdateExpression: 'ADD #count :one SET expiresAt = :expiresAt',
            ExpressionAttributeNames: { '#count': counted(s) },
            ExpressionAttributeValues: { ':one': 1, ':expiresAt': expiresAt },
          }),
        ),
      ),
    );
  }

  async countIfBelow(
    subject: AttemptSubject,
    windowStart: number,
    below: number,
    expiresAt: number,
  ): Promise<number | null> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.signInAttempts(subject.scope, subject.value, windowStart),
          UpdateExpression: 'ADD #count :one SET expiresAt = :expiresAt',
          ConditionExpression: 'attribute_not_exists(#count) OR #count < :below',
          ExpressionAttributeNames: { '#count': counted(subject) },
          ExpressionAttributeValues: { ':one': 1, ':expiresAt': expiresAt, ':below': below },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return null;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // The item as it failed the condition, in DynamoDB's own format (the document client leaves errors alone).
      return Number(error.Item?.[counted(subject)]?.N ?? Math.ceil(below));
    }
  }
}

/** The attribute an attempt counter counts in. */
const counted = (subject: AttemptSubject) => (subject.scope === 'checks' ? 'checks' : 'failures');
