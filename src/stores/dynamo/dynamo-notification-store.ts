import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { mapConcurrently } from '../../lib/collections.js';
import type { NotificationCause, NotificationKind } from '../../domain/models.js';
import {
  type ActorGroups,
  type GroupPage,
  type NotificationGroup,
  type NotificationStore,
  RECENT_ACTORS,
} from '../notification-store.js';
import { batchGet, batchWrite, del, transactWrite } from './batch.js';
import type { TableOptions } from './client.js';
import type { TransactItem } from './counter-items.js';
import { type Key, keys, notificationPrefixes, partitions } from './keys.js';
import {
  type Item,
  groupKeyOf,
  lostRace,
  notificationGroupItem,
  recentActorOf,
  toGroup,
  withRecentActor,
} from './notification-items.js';
import { DynamoNotificationReads } from './notification-reads.js';

/** Attempts of a group change that lost the race for the group's version to another writer. */
const MAX_ATTEMPTS = 20;
/** Groups one markNotificationsRead transaction marks, beside the unread count (DynamoDB takes 100 items). */
const MARK_READ_CHUNK = 99;
/** Member items of a dropped group deleted at once, one conditional request each. */
const MEMBER_DELETE_CONCURRENCY = 8;

/**
 * A recipient's notifications in one partition (see keys.ts): group items, member items (which
 * group an actor is in), the groups' actor lists, the newest-first list entries and the STATE
 * item (unread and group counts). A change reads the group, then writes it conditioned on its
 * version together with everything that agrees with it; a lost race reads again and retries.
 */
export class DynamoNotificationStore implements NotificationStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly reads: DynamoNotificationReads;

  constructor(options: TableOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.reads = new DynamoNotificationReads(options);
  }

  private get(key: Key): Promise<Item | undefined> {
    return this.reads.get(key);
  }

  private put(Item: Item, ConditionExpression?: string): TransactItem {
    return { Put: { TableName: this.tableName, Item, ConditionExpression } };
  }

  private delete(Key: Key): TransactItem {
    return { Delete: { TableName: this.tableName, Key } };
  }

  /** The group written only if it is still the version read (absent when `version` is null). */
  private versionCondition(version: number | null): { ConditionExpression: string; ExpressionAttributeValues?: Item } {
    return version === null
      ? { ConditionExpression: 'attribute_not_exists(pk)' }
      : { ConditionExpression: 'version = :read', ExpressionAttributeValues: { ':read': version } };
  }

  private stateChange(userId: string, unread: number, groups: number): TransactItem[] {
    if (unread === 0 && groups === 0) return [];
    return [
      {
        Update: {
          TableName: this.tableName,
          Key: keys.notificationState(userId),
          UpdateExpression: 'ADD unread :unread, #groups :groups',
          ExpressionAttributeNames: { '#groups': 'groups' },
          ExpressionAttributeValues: { ':unread': unread, ':groups': groups },
        },
      },
    ];
  }

  private async retrying<T>(attempt: () => Promise<T>): Promise<T> {
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (error) {
        if (!lostRace(error) || n >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  addActor(cause: NotificationCause, atMs: number): Promise<NotificationGroup | null> {
    const { recipientId: userId, actorId } = cause;
    const memberKey = keys.notificationMember(userId, cause.kind, cause.postId, actorId);
    return this.retrying(async () => {
      // The member and the group it would join, read at once; a member in another group (FOLLOW, another day) reads that one.
      const likely = groupKeyOf(cause, atMs);
      const [member, likelyGroup] = await Promise.all([
        this.get(memberKey),
        this.get(keys.notificationGroup(userId, likely)),
      ]);
      const groupKey = (member?.groupKey as string | undefined) ?? likely;
      const group = groupKey === likely ? likelyGroup : await this.get(keys.notificationGroup(userId, groupKey));
      // In its group already; a member left behind by a group that was trimmed away is not.
      if (member && group && group.generation === member.generation) return null;
      const version = group ? Number(group.version) : null;
      const generation = (group?.generation as string | undefined) ?? randomUUID();
      const oldUpdated = group ? Number(group.updatedAtMs) : null;
      const updatedAtMs = Math.max(oldUpdated ?? 0, atMs);
      const wasUnread = group?.unread === true;
      const recent = group ? await this.reads.recentActors(userId, group) : [];
      const next = notificationGroupItem({
        recipientId: userId,
        groupKey,
        kind: cause.kind,
        postId: cause.postId,
        generation,
        actorCount: (group ? Number(group.actorCount) : 0) + 1,
        recentActors: withRecentActor(recent, actorId, atMs),
        updatedAtMs,
        version: (version ?? 0) + 1,
      });
      const moved = oldUpdated !== updatedAtMs;
      const items: TransactItem[] = [
        { Put: { TableName: this.tableName, Item: next, ...this.versionCondition(version) } },
        this.put({ ...memberKey, groupKey, generation, atMs }),
        this.put({ ...keys.notifiedBy(actorId, userId, cause.kind, cause.postId), generation }),
        this.put({ ...keys.notificationActorEntry(userId, groupKey, generation, atMs, actorId), actorId }),
        ...(moved && oldUpdated !== null
          ? [this.delete(keys.notificationListEntry(userId, keys.notificationPosition(oldUpdated, groupKey)))]
          : []),
        ...(moved
          ? [
              this.put({
                ...keys.notificationListEntry(userId, keys.notificationPosition(updatedAtMs, groupKey)),
                groupKey,
              }),
            ]
          : []),
        ...this.stateChange(userId, wasUnread ? 0 : 1, group ? 0 : 1),
      ];
      await transactWrite(this.client, { TransactItems: items });
      return toGroup(next);
    });
  }

  removeActor(cause: NotificationCause): Promise<NotificationGroup | 'removed' | null> {
    const { recipientId: userId, actorId } = cause;
    const memberKey = keys.notificationMember(userId, cause.kind, cause.postId, actorId);
    const notifiedBy = keys.notifiedBy(actorId, userId, cause.kind, cause.postId);
    return this.retrying(async () => {
      const [member, mirror] = await Promise.all([this.get(memberKey), this.get(notifiedBy)]);
      if (!member) {
        // A mirror whose member went without it (a group dropped half-way): it goes, unless the actor is back meanwhile.
        if (mirror) {
          await transactWrite(this.client, {
            TransactItems: [
              {
                ConditionCheck: {
                  TableName: this.tableName,
                  Key: memberKey,
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
              this.delete(notifiedBy),
            ],
          });
        }
        return null;
      }
      const groupKey = member.groupKey as string;
      const generation = member.generation as string;
      const group = await this.get(keys.notificationGroup(userId, groupKey));
      const actorEntry = this.delete(
        keys.notificationActorEntry(userId, groupKey, generation, Number(member.atMs), actorId),
      );
      const memberGone = {
        Delete: {
          TableName: this.tableName,
          Key: memberKey,
          ConditionExpression: 'generation = :generation',
          ExpressionAttributeValues: { ':generation': generation },
        },
      };
      const mirrorGone = this.delete(notifiedBy);
      if (!group || group.generation !== generation) {
        // Left behind by a group that was trimmed away.
        await transactWrite(this.client, { TransactItems: [memberGone, actorEntry, mirrorGone] });
        return null;
      }
      const version = Number(group.version);
      const oldUpdated = Number(group.updatedAtMs);
      const oldEntry = this.delete(keys.notificationListEntry(userId, keys.notificationPosition(oldUpdated, groupKey)));
      const groupKeyItem = keys.notificationGroup(userId, groupKey);
      if (Number(group.actorCount) <= 1) {
        await transactWrite(this.client, {
          TransactItems: [
            { Delete: { TableName: this.tableName, Key: groupKeyItem, ...this.versionCondition(version) } },
            memberGone,
            actorEntry,
            mirrorGone,
            oldEntry,
            ...this.stateChange(userId, group.unread === true ? -1 : 0, -1),
          ],
        });
        return 'removed';
      }
      // The group's time goes back to its newest remaining actor's; its recent actors are the newest that remain.
      const newest = await this.query(
        {
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: {
            ':pk': partitions.notifications(userId),
            ':prefix': notificationPrefixes.actors(groupKey, generation),
          },
          ScanIndexForward: false,
          ConsistentRead: true,
          Limit: RECENT_ACTORS + 1,
        },
        RECENT_ACTORS + 1,
      );
      const remaining = newest.filter((entry) => entry.actorId !== actorId).slice(0, RECENT_ACTORS);
      const updatedAtMs = remaining[0] ? Number((remaining[0].sk as string).split('#').at(-2)) : oldUpdated;
      const recentActors = remaining.map(recentActorOf);
      const next: Item = {
        ...group,
        actorCount: Number(group.actorCount) - 1,
        recentActors,
        updatedAtMs,
        version: version + 1,
      };
      const moved = updatedAtMs !== oldUpdated;
      await transactWrite(this.client, {
        TransactItems: [
          { Put: { TableName: this.tableName, Item: next, ...this.versionCondition(version) } },
          memberGone,
          actorEntry,
          mirrorGone,
          ...(moved
            ? [
                oldEntry,
                this.put({
                  ...keys.notificationListEntry(userId, keys.notificationPosition(updatedAtMs, groupKey)),
                  groupKey,
                }),
              ]
            : []),
        ],
      });
      return toGroup(next);
    });
  }

  async removeGroup(recipientId: string, kind: Exclude<NotificationKind, 'FOLLOW'>, postId: string): Promise<void> {
    await this.dropGroup(recipientId, `${kind}#${postId}`);
  }

  /** Removes a group, its list entry and count in one transaction, then its actors (whose generation no new group shares). */
  private async dropGroup(userId: string, groupKey: string): Promise<void> {
    const group = await this.retrying(async () => {
      const current = await this.get(keys.notificationGroup(userId, groupKey));
      if (!current) return null;
      await transactWrite(this.client, {
        TransactItems: [
          {
            Delete: {
              TableName: this.tableName,
              Key: keys.notificationGroup(userId, groupKey),
              ...this.versionCondition(Number(current.version)),
            },
          },
          this.delete(
            keys.notificationListEntry(userId, keys.notificationPosition(Number(current.updatedAtMs), groupKey)),
          ),
          ...this.stateChange(userId, current.unread === true ? -1 : 0, -1),
        ],
      });
      return current;
    });
    if (!group) return;
    const entries = await this.query({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: {
        ':pk': partitions.notifications(userId),
        ':prefix': notificationPrefixes.actors(groupKey, group.generation as string),
      },
      ProjectionExpression: 'pk, sk, actorId',
    });
    const kind = group.kind as string;
    const postId = (group.postId as string | undefined) ?? null;
    await batchWrite(
      this.client,
      this.tableName,
      entries.map((entry) => del(entry as unknown as Key)),
    );
    // A member is deleted only while it still names this group's generation: the actor may have acted again meanwhile, into a new group.
    // Its mirror with it (on the same condition; a group written before mirrors existed has none).
    await mapConcurrently(entries, MEMBER_DELETE_CONCURRENCY, async (entry) => {
      const actorId = entry.actorId as string;
      const sameGeneration = { ExpressionAttributeValues: { ':generation': group.generation } };
      try {
        await transactWrite(this.client, {
          TransactItems: [
            {
              Delete: {
                TableName: this.tableName,
                Key: keys.notificationMember(userId, kind, postId, actorId),
                ConditionExpression: 'generation = :generation',
                ...sameGeneration,
              },
            },
            {
              Delete: {
                TableName: this.tableName,
                Key: keys.notifiedBy(actorId, userId, kind, postId),
                ConditionExpression: 'attribute_not_exists(pk) OR generation = :generation',
                ...sameGeneration,
              },
            },
          ],
        });
      } catch (error) {
        if (!lostRace(error)) throw error;
      }
    });
  }

  async markRead(userId: string, untilMs: number): Promise<void> {
    const unread = await this.query({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      FilterExpression: 'unread = :unread AND updatedAtMs <= :until',
      ExpressionAttributeValues: {
        ':pk': partitions.notifications(userId),
        ':prefix': notificationPrefixes.group,
        ':unread': true,
        ':until': untilMs,
      },
      ConsistentRead: true,
    });
    // A transaction per chunk, each group conditioned on its version and the unread count lowered by as many;
    // a chunk that lost a race reads its groups again and marks those still to mark.
    for (let start = 0; start < unread.length; start += MARK_READ_CHUNK) {
      let groups = unread.slice(start, start + MARK_READ_CHUNK);
      await this.retrying(async () => {
        // Changed since: gone, read, or updated after `untilMs` (unread again).
        const toMark = groups.filter((group) => group.unread === true && Number(group.updatedAtMs) <= untilMs);
        if (toMark.length === 0) return;
        try {
          await transactWrite(this.client, {
            TransactItems: [
              ...toMark.map((group): TransactItem => ({
                Update: {
                  TableName: this.tableName,
                  Key: keys.notificationGroup(userId, group.groupKey as string),
                  UpdateExpression: 'SET unread = :false, version = :next',
                  ConditionExpression: 'version = :read',
                  ExpressionAttributeValues: {
                    ':false': false,
                    ':read': Number(group.version),
                    ':next': Number(group.version) + 1,
                  },
                },
              })),
              ...this.stateChange(userId, -toMark.length, 0),
            ],
          });
        } catch (error) {
          if (lostRace(error)) {
            const fresh = await batchGet(
              this.client,
              this.tableName,
              toMark.map((group) => keys.notificationGroup(userId, group.groupKey as string)),
              { consistent: true },
            );
            groups = fresh.filter((group): group is Item => group !== undefined);
          }
          throw error;
        }
      });
    }
  }

  async trim(userId: string, keep: number): Promise<void> {
    const count = await this.groupCount(userId);
    if (count <= keep) return;
    const oldest = await this.query(
      {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': partitions.notifications(userId), ':prefix': notificationPrefixes.list },
        ScanIndexForward: true,
        ConsistentRead: true,
        Limit: count - keep,
      },
      count - keep,
    );
    for (const entry of oldest) await this.dropGroup(userId, entry.groupKey as string);
  }

  private query(input: Omit<QueryCommandInput, 'TableName'>, max = Infinity): Promise<Item[]> {
    return this.reads.query(input, max);
  }

  groupsOfActor(
    actorId: string,
    recipientId: string | null,
    first: number,
    after: string | null,
  ): Promise<ActorGroups> {
    return this.reads.groupsOfActor(actorId, recipientId, first, after);
  }

  older(userId: string, first: number, after: string | null): Promise<GroupPage> {
    return this.reads.older(userId, first, after);
  }

  groupsByKey(refs: readonly { recipientId: string; groupKey: string }[]): Promise<(NotificationGroup | null)[]> {
    return this.reads.groupsByKey(refs);
  }

  newer(userId: string, last: number, before: string | null): Promise<GroupPage> {
    return this.reads.newer(userId, last, before);
  }

  actors(group: NotificationGroup, first: number): Promise<string[]> {
    return this.reads.actors(group, first);
  }

  unreadCount(userId: string): Promise<number> {
    return this.reads.unreadCount(userId);
  }

  groupCount(userId: string): Promise<number> {
    return this.reads.groupCount(userId);
  }
}
