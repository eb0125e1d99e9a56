import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mapConcurrently } from '../src/lib/collections.js';
import { batchWrite, del, scanPages } from '../src/stores/dynamo/batch.js';
import { type Key, partitions, retiredPrefixes } from '../src/stores/dynamo/keys.js';

export interface HomeRetentionTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/** What a page of the scan found: home entries and markers without an expiry (each with its feed position), and size estimates. */
export interface Unmigrated {
  expiring: { key: Key; position: string }[];
  sizeEstimates: Key[];
}

/** Home entries and markers updated at once, one conditional UpdateItem each. */
const CONCURRENCY = 16;

/**
 * Gives the home entries and repost markers written before HOME_RETENTION_DAYS their expiry (`expiresAt`, their
 * position + the retention), so that DynamoDB's TTL deletes them in time, and deletes the size estimates
 * (`HOMESIZE#`) that trimming used (`npm run timelines:retention`).
 */
export class HomeRetentionMigration {
  constructor(
    private readonly table: HomeRetentionTable,
    /** When an entry at a feed position expires, epoch seconds (HomeRetention.expiresAt). */
    private readonly expiresAt: (position: string) => number,
  ) {}

  /** What is left to migrate, a page at a time: a whole-table scan. */
  async *unmigrated(): AsyncGenerator<Unmigrated> {
    const pages = scanPages(this.table.client, this.table.tableName, {
      FilterExpression:
        '((begins_with(pk, :home) OR begins_with(pk, :markers)) AND attribute_not_exists(expiresAt)) OR begins_with(pk, :size)',
      ExpressionAttributeNames: { '#position': 'position' },
      ExpressionAttributeValues: {
        ':home': partitions.home(''),
        ':markers': partitions.homeMarkers(''),
        ':size': retiredPrefixes.homeSize,
      },
      ProjectionExpression: 'pk, sk, #position',
    });
    for await (const items of pages) {
      const found: Unmigrated = { expiring: [], sizeEstimates: [] };
      for (const item of items) {
        const key = { pk: item.pk as string, sk: item.sk as string };
        if (key.pk.startsWith(retiredPrefixes.homeSize)) found.sizeEstimates.push(key);
        // An entry is at its position; a marker names its entry's.
        else found.expiring.push({ key, position: (item.position as string | undefined) ?? key.sk });
      }
      yield found;
    }
  }

  /** Sets the expiry of each entry and marker that still has none (one gone meanwhile stays gone), and deletes the size estimates. */
  async migrate({ expiring, sizeEstimates }: Unmigrated): Promise<{ expiring: number; sizeEstimates: number }> {
    const set = await mapConcurrently(expiring, CONCURRENCY, async ({ key, position }) => {
      try {
        await this.table.client.send(
          new UpdateCommand({
            TableName: this.table.tableName,
            Key: key,
            UpdateExpression: 'SET expiresAt = :expiresAt',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(expiresAt)',
            ExpressionAttributeValues: { ':expiresAt': this.expiresAt(position) },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    });
    await batchWrite(this.table.client, this.table.tableName, sizeEstimates.map(del));
    return { expiring: set.filter(Boolean).length, sizeEstimates: sizeEstimates.length };
  }
}
