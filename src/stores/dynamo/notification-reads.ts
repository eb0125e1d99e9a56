import { GetCommand, QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { NotificationCause, NotificationKind } from '../../domain/models.js';
import { type ActorGroups, type GroupPage, type NotificationGroup, RECENT_ACTORS } from '../notification-store.js';
import { batchGet, queryItems } from './batch.js';
import type { TableOptions } from './client.js';
import { type Key, keys, notificationPrefixes, partitions } from './keys.js';
import { type Item, actorIdOf, recentActorOf, toGroup } from './notification-items.js';

/** A recipient's groups page by page, a group's actors, the counts, and the groups an actor stands in. */
export class DynamoNotificationReads {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(options: TableOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
  }

  async get(key: Key): Promise<Item | undefined> {
    return (await this.client.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }))).Item;
  }

  /** Every item of a query, or the first `max`. */
  query(input: Omit<QueryCommandInput, 'TableName'>, max = Infinity): Promise<Item[]> {
    return queryItems(this.client, this.tableName, input, max);
  }

  async groupsOfActor(
    actorId: string,
    recipientId: string | null,
    first: number,
    after: string | null,
  ): Promise<ActorGroups> {
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: recipientId === null ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :recipient)',
        ExpressionAttributeValues: {
          ':pk': partitions.notified(actorId),
          ...(recipientId === null ? {} : { ':recipient': `${recipientId}#` }),
        },
        ExclusiveStartKey: after === null ? undefined : { pk: partitions.notified(actorId), sk: after },
        ConsistentRead: true,
        Limit: first,
      }),
    );
    const causes = (result.Items ?? []).map((item): NotificationCause => {
      const [recipient, kind, postId] = (item.sk as string).split('#') as [string, NotificationKind, string];
      return { recipientId: recipient, kind, postId: postId === '-' ? null : postId, actorId };
    });
    return { causes, next: (result.LastEvaluatedKey?.sk as string | undefined) ?? null };
  }

  async older(userId: string, first: number, after: string | null): Promise<GroupPage> {
    const { groupKeys, hasMore } = await this.listEntries(userId, first, after, true);
    return { groups: await this.groups(userId, groupKeys), hasMore };
  }

  async newer(userId: string, last: number, before: string | null): Promise<GroupPage> {
    const { groupKeys, hasMore } = await this.listEntries(userId, last, before, false);
    return { groups: (await this.groups(userId, groupKeys)).reverse(), hasMore };
  }

  async actors(group: NotificationGroup, first: number): Promise<string[]> {
    if (group.recentActorIds) return group.recentActorIds.slice(0, first);
    const current = await this.get(keys.notificationGroup(group.recipientId, group.groupKey));
    return current ? (await this.recentActors(group.recipientId, current)).slice(0, first).map(actorIdOf) : [];
  }

  /** A stored group's recent actors: its own list, or for a group stored without one, read from its actor entries. */
  async recentActors(userId: string, group: Item): Promise<string[]> {
    if (Array.isArray(group.recentActors)) return group.recentActors as string[];
    const entries = await this.query(
      {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: {
          ':pk': partitions.notifications(userId),
          ':prefix': notificationPrefixes.actors(group.groupKey as string, group.generation as string),
        },
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: RECENT_ACTORS,
      },
      RECENT_ACTORS,
    );
    return entries.map(recentActorOf);
  }

  async unreadCount(userId: string): Promise<number> {
    return Number((await this.get(keys.notificationState(userId)))?.unread ?? 0);
  }

  async groupCount(userId: string): Promise<number> {
    return Number((await this.get(keys.notificationState(userId)))?.groups ?? 0);
  }

  private async listEntries(
    userId: string,
    limit: number,
    from: string | null,
    newestFirst: boolean,
  ): Promise<{ groupKeys: string[]; hasMore: boolean }> {
    const lo = newestFirst ? notificationPrefixes.list : (from ?? notificationPrefixes.list);
    const hi = newestFirst ? (from ?? `${notificationPrefixes.list}~`) : `${notificationPrefixes.list}~`;
    const items = await this.query(
      {
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
        ExpressionAttributeValues: { ':pk': partitions.notifications(userId), ':lo': lo, ':hi': hi },
        ScanIndexForward: !newestFirst,
        Limit: limit + 2,
      },
      limit + 2,
    );
    const beyond = items.filter((item) => item.sk !== from);
    return { groupKeys: beyond.slice(0, limit).map((item) => item.groupKey as string), hasMore: beyond.length > limit };
  }

  async groupsByKey(refs: readonly { recipientId: string; groupKey: string }[]): Promise<(NotificationGroup | null)[]> {
    const items = await batchGet(
      this.client,
      this.tableName,
      refs.map((ref) => keys.notificationGroup(ref.recipientId, ref.groupKey)),
      { consistent: true },
    );
    return items.map((item) => (item ? toGroup(item) : null));
  }

  private async groups(userId: string, groupKeys: readonly string[]): Promise<NotificationGroup[]> {
    const groups = await this.groupsByKey(groupKeys.map((groupKey) => ({ recipientId: userId, groupKey })));
    return groups.filter((group): group is NotificationGroup => group !== null);
  }
}
