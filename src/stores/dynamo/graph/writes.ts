import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { GraphUser, Relation } from '../../graph/graph-store.js';
import { UNMETERED } from '../../graph/traversal.js';
import type { Task } from '../../../domain/tasks.js';
import { cancellationReasons, transactWrite } from '../batch.js';
import type { TaskItems } from '../dynamo-task-queue.js';
import { PROFILE_ABSENT, keys } from '../keys.js';
import {
  type GraphTable,
  RELATION_SETS_COMPLETE,
  followItems,
  followingChange,
  listEntryKeys,
  profileCountChange,
  relationEntryKeys,
  relationItems,
  relationSetChange,
  relationSetChanges,
} from './items.js';
import type { GraphLists } from './lists.js';

/** Follows, blocks and mutes made and ended, each with its list entries, counts and node sets in one transaction; users' nodes written and removed. */
export class GraphWrites {
  constructor(
    private readonly table: GraphTable,
    private readonly lists: GraphLists,
    /** Writes the tasks a follow, an unfollow or a relation enqueues with itself; null: a store that takes none. */
    private readonly taskItems: TaskItems | null,
  ) {}

  async upsertUsers(users: readonly GraphUser[]): Promise<void> {
    const { client, tableName } = this.table;
    // An update, not a put, so that the node's follow counts survive a profile change.
    const upsert = async (u: GraphUser) => {
      const update = (marked: boolean) =>
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.graphNode(u.id),
            UpdateExpression: `SET id = :id, handle = :handle, interests = :interests${marked ? ', #complete = :complete' : ''}`,
            // A new or marked node holds every relation; an old unmarked one may not.
            ...(marked
              ? {
                  ConditionExpression: 'attribute_not_exists(pk) OR attribute_exists(#complete)',
                  ExpressionAttributeNames: { '#complete': RELATION_SETS_COMPLETE },
                }
              : {}),
            ExpressionAttributeValues: {
              ':id': u.id,
              ':handle': u.handle,
              ':interests': u.interests,
              ...(marked ? { ':complete': true } : {}),
            },
          }),
        );
      try {
        await update(true);
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        await update(false);
      }
    };
    await Promise.all(users.map(upsert));
  }

  /** The tasks as items of this store's transactions. */
  private enqueueItems(tasks: readonly Task[]) {
    if (tasks.length > 0 && !this.taskItems) throw new Error('This graph store was built without a task queue');
    return tasks.map((task) => this.taskItems!.enqueueItem(task));
  }

  async follow(followerId: string, followeeId: string, at: string, tasks: readonly Task[] = []): Promise<boolean> {
    const { client, tableName } = this.table;
    const [edge, ...entries] = followItems({ from: followerId, to: followeeId, at });
    // First with the followee added to the follower's following set; if the set is full, without.
    for (let addToSet = true; ; addToSet = false) {
      try {
        await transactWrite(client, {
          TransactItems: [
            { Put: { TableName: tableName, Item: edge, ConditionExpression: 'attribute_not_exists(pk)' } },
            ...entries.map((Item) => ({ Put: { TableName: tableName, Item } })),
            followingChange(this.table, followerId, 1, addToSet ? [followeeId] : []),
            profileCountChange(tableName, followerId, 'followingCount', 1),
            profileCountChange(tableName, followeeId, 'followerCount', 1),
            ...this.enqueueItems(tasks),
          ],
        });
        return true;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (reasons?.[0] === 'ConditionalCheckFailed') return false;
        if (!addToSet || reasons?.[3] !== 'ConditionalCheckFailed') throw error;
      }
    }
  }

  async unfollow(followerId: string, followeeId: string, tasks: readonly Task[] = []): Promise<boolean> {
    const { client, tableName } = this.table;
    // The list entries' keys hold the follow time, so read the edge first; the condition on
    // that time makes a concurrent unfollow-and-follow-again retry instead of deleting the wrong entries.
    for (let attempt = 0; attempt < 5; attempt++) {
      const edge = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.followEdge(followerId, followeeId), ConsistentRead: true }),
      );
      if (!edge.Item) return false;
      const atMs = edge.Item.atMs as number;
      try {
        await transactWrite(client, {
          TransactItems: [
            {
              Delete: {
                TableName: tableName,
                Key: keys.followEdge(followerId, followeeId),
                ConditionExpression: 'atMs = :atMs',
                ExpressionAttributeValues: { ':atMs': atMs },
              },
            },
            ...listEntryKeys(followerId, followeeId, atMs).map((Key) => ({ Delete: { TableName: tableName, Key } })),
            {
              Update: {
                TableName: tableName,
                Key: keys.graphNode(followerId),
                UpdateExpression: 'ADD followingCount :minus DELETE followingIds :ids',
                ExpressionAttributeValues: { ':minus': -1, ':ids': new Set([followeeId]) },
              },
            },
            profileCountChange(tableName, followerId, 'followingCount', -1),
            profileCountChange(tableName, followeeId, 'followerCount', -1),
            ...this.enqueueItems(tasks),
          ],
        });
        return true;
      } catch (error) {
        if (cancellationReasons(error)?.[0] !== 'ConditionalCheckFailed') throw error;
      }
    }
    throw new Error(`unfollow ${followerId} -> ${followeeId} kept racing with other changes`);
  }

  async relate(relation: Relation, at: string, tasks: readonly Task[] = []): Promise<boolean> {
    const { client, tableName } = this.table;
    const [edge, ...entries] = relationItems(relation, at);
    // First with the ids added to the nodes' relation sets; a node whose set has no room is marked incomplete instead.
    const full = new Set<string>();
    for (;;) {
      const changes = relationSetChanges(relation, 'ADD');
      try {
        await transactWrite(client, {
          TransactItems: [
            { Put: { TableName: tableName, Item: edge, ConditionExpression: 'attribute_not_exists(pk)' } },
            ...entries.map((Item) => ({ Put: { TableName: tableName, Item } })),
            ...changes.map((change) => relationSetChange(this.table, change, full.has(change.userId))),
            ...this.enqueueItems(tasks),
          ],
        });
        return true;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (reasons?.[0] === 'ConditionalCheckFailed') return false;
        const overflowing = changes.filter(
          (change, i) => !full.has(change.userId) && reasons?.[1 + entries.length + i] === 'ConditionalCheckFailed',
        );
        if (overflowing.length === 0) throw error;
        for (const change of overflowing) full.add(change.userId);
      }
    }
  }

  async unrelate(relation: Relation): Promise<boolean> {
    const { client, tableName } = this.table;
    const edgeKey = keys.relationEdge(relation.kind, relation.from, relation.to);
    // As unfollow: the entries' keys hold the time, and the condition on it makes a race with a new relation retry.
    for (let attempt = 0; attempt < 5; attempt++) {
      const edge = await client.send(new GetCommand({ TableName: tableName, Key: edgeKey, ConsistentRead: true }));
      if (!edge.Item) return false;
      const atMs = edge.Item.atMs as number;
      try {
        await transactWrite(client, {
          TransactItems: [
            {
              Delete: {
                TableName: tableName,
                Key: edgeKey,
                ConditionExpression: 'atMs = :atMs',
                ExpressionAttributeValues: { ':atMs': atMs },
              },
            },
            ...relationEntryKeys(relation, atMs).map((Key) => ({ Delete: { TableName: tableName, Key } })),
            ...relationSetChanges(relation, 'DELETE').map((change) => relationSetChange(this.table, change, false)),
          ],
        });
        return true;
      } catch (error) {
        if (cancellationReasons(error)?.[0] !== 'ConditionalCheckFailed') throw error;
      }
    }
    throw new Error(`unrelate ${relation.kind} ${relation.from} -> ${relation.to} kept racing with other changes`);
  }

  async removeUser(userId: string): Promise<void> {
    // Edge by edge, through unfollow, so that the other side's count goes down with each.
    for (const side of ['followers', 'following'] as const) {
      for (;;) {
        const page = await this.lists[side](userId, { first: 100, after: null }, UNMETERED);
        const removed = await Promise.all(
          page.items.map((item) =>
            side === 'followers' ? this.unfollow(item.id, userId) : this.unfollow(userId, item.id),
          ),
        );
        // A list entry without its edge (which the audit reports) would otherwise be read again forever.
        if (!removed.includes(true)) break;
      }
    }
    for (const kind of ['blocks', 'mutes'] as const) {
      const entries = await this.lists.relationEntries(kind, userId);
      await Promise.all(
        entries.map((e) =>
          this.unrelate(e.direction === 'OUT' ? { kind, from: userId, to: e.id } : { kind, from: e.id, to: userId }),
        ),
      );
    }
    await this.removeNode(userId);
  }

  async removeNode(userId: string): Promise<void> {
    const { client, tableName } = this.table;
    await Promise.all([
      // Edges are items of their own here: deleting the node's item leaves them to removeUser.
      client.send(new DeleteCommand({ TableName: tableName, Key: keys.graphNode(userId) })),
      // Unfollows after the profile's deletion leave its follow counts on its key: removed, never a profile.
      client
        .send(new DeleteCommand({ TableName: tableName, Key: keys.user(userId), ConditionExpression: PROFILE_ABSENT }))
        .catch((error: unknown) => {
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
        }),
    ]);
  }
}
