import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { cancellationReasons, transactWrite } from '../src/stores/dynamo/batch.js';
import { PROFILE_EXISTS, keys } from '../src/stores/dynamo/keys.js';
import { graphNodesWhere } from './graph-nodes.js';

export interface FollowCountsTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}

export type Moved = 'moved' | 'no profile' | 'done';

/**
 * Moves users' follow counts from their graph node onto their profile, where readers now find them with
 * the profile (`npm run graph:follow-counts`). The node keeps `followingCount`, which says whether its
 * following set is complete. Idempotent: a node without `followerCount` is done.
 */
export class FollowCountsMigration {
  constructor(private readonly table: FollowCountsTable) {}

  /** The ids of graph nodes that still hold a `followerCount`: a whole-table scan. */
  nodesToMigrate(): AsyncGenerator<string[]> {
    return graphNodesWhere(this.table, { expression: 'attribute_exists(followerCount)' });
  }

  async migrate(userId: string): Promise<Moved> {
    const { client, tableName } = this.table;
    for (let attempt = 0; attempt < 5; attempt++) {
      const { Item: node } = await client.send(
        new GetCommand({
          TableName: tableName,
          Key: keys.graphNode(userId),
          ConsistentRead: true,
          ProjectionExpression: 'followerCount, followingCount',
        }),
      );
      if (node?.followerCount === undefined) return 'done';
      const followers = Number(node.followerCount);
      const following = Number(node.followingCount ?? 0);
      const followingRead =
        node.followingCount === undefined ? 'attribute_not_exists(followingCount)' : 'followingCount = :following';
      const profile = await client.send(
        new GetCommand({
          TableName: tableName,
          Key: keys.user(userId),
          ConsistentRead: true,
          ProjectionExpression: 'handle',
        }),
      );
      const hasProfile = profile.Item?.handle !== undefined;
      try {
        await transactWrite(client, {
          TransactItems: [
            // Unchanged since the read, so that a follow made meanwhile is neither lost nor counted twice.
            {
              Update: {
                TableName: tableName,
                Key: keys.graphNode(userId),
                UpdateExpression: 'REMOVE followerCount',
                ConditionExpression: `followerCount = :followers AND ${followingRead}`,
                ExpressionAttributeValues: {
                  ':followers': followers,
                  ...(node.followingCount === undefined ? {} : { ':following': following }),
                },
              },
            },
            // Added, since new follows count on the profile already; the following count is the node's, which moves with it.
            ...(hasProfile
              ? [
                  {
                    Update: {
                      TableName: tableName,
                      Key: keys.user(userId),
                      UpdateExpression: 'SET followingCount = :following ADD followerCount :followers',
                      ConditionExpression: PROFILE_EXISTS,
                      ExpressionAttributeValues: { ':followers': followers, ':following': following },
                    },
                  },
                ]
              : []),
          ],
        });
        return hasProfile ? 'moved' : 'no profile';
      } catch (error) {
        if (!cancellationReasons(error)?.includes('ConditionalCheckFailed')) throw error;
      }
    }
    throw new Error(`the follow counts of ${userId} kept changing while they were moved`);
  }
}
