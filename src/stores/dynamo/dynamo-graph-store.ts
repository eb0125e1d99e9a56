import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { GraphStore, GraphUser } from '../graph/graph-store.js';
import { keys } from './keys.js';

/** The embedded graph backend: follow edges as DynamoDB adjacency items in the service's table. */
export class DynamoGraphStore implements GraphStore {
  readonly backend = 'dynamodb' as const;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The table is pinged with the rest of DynamoDB; this backend has nothing of its own to check. */
  async ping(): Promise<void> {}

  async close(): Promise<void> {}

  async upsertUsers(users: readonly GraphUser[]): Promise<void> {
    // An update, not a put, so that the node's follow counts survive a profile change.
    await Promise.all(
      users.map((u) =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.graphNode(u.id),
            UpdateExpression: 'SET id = :id, handle = :handle, interests = :interests',
            ExpressionAttributeValues: { ':id': u.id, ':handle': u.handle, ':interests': u.interests },
          }),
        ),
      ),
    );
  }
}
