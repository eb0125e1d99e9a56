import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mapConcurrently } from '../src/lib/collections.js';
import { scanPages } from '../src/stores/dynamo/batch.js';
import { reasonsUpdate } from '../src/stores/dynamo/dynamo-home-entries.js';
import { type Key, keys, partitions } from '../src/stores/dynamo/keys.js';

export interface HomeReasonsTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/** A repost marker holding more reasons than the one its entry shows. */
export interface MarkerReasons {
  entryKey: Key;
  original: boolean;
  reposters: Set<string>;
  shown: string | null;
}

/** Entries updated at once, one conditional UpdateItem each. */
const CONCURRENCY = 16;

/**
 * Copies each repost marker's reasons onto its home entry where the entry has none (`npm run timelines:reasons`):
 * entries whose reasons changed before entries carried them show only their own, so a page cannot fall back to
 * another when the viewer hides that one (see docs/design/timelines.md, Reposts).
 */
export class HomeReasonsMigration {
  constructor(private readonly table: HomeReasonsTable) {}

  /** Markers with a reason besides the one shown, a scan page at a time. */
  async *markers(): AsyncGenerator<MarkerReasons[]> {
    const pages = scanPages(this.table.client, this.table.tableName, {
      // Sets are never empty: a marker with reposters and the original, or with two reposters.
      FilterExpression:
        'begins_with(pk, :markers) AND ((original = :true AND attribute_exists(reposters)) OR size(reposters) > :one)',
      ExpressionAttributeNames: { '#position': 'position' },
      ExpressionAttributeValues: { ':markers': partitions.homeMarkers(''), ':true': true, ':one': 1 },
      ProjectionExpression: 'pk, #position, original, reposters, repostedBy',
    });
    const prefix = partitions.homeMarkers('').length;
    for await (const items of pages) {
      yield items.map((item) => ({
        entryKey: keys.homeEntry((item.pk as string).slice(prefix), item.position as string),
        original: item.original === true,
        reposters: (item.reposters as Set<string> | undefined) ?? new Set<string>(),
        shown: (item.repostedBy as string | undefined) ?? null,
      }));
    }
  }

  /**
   * Writes each marker's reasons on its entry while the entry has none: every reason change since entries carried
   * them wrote both in one transaction, so an entry with `original` is as current as its marker (or newer).
   */
  async migrate(markers: readonly MarkerReasons[]): Promise<number> {
    const written = await mapConcurrently(markers, CONCURRENCY, async ({ entryKey, original, reposters, shown }) => {
      const { UpdateExpression, ExpressionAttributeValues } = reasonsUpdate({ original, reposters }, shown);
      try {
        await this.table.client.send(
          new UpdateCommand({
            TableName: this.table.tableName,
            Key: entryKey,
            UpdateExpression,
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(original)',
            ExpressionAttributeValues,
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    });
    return written.filter(Boolean).length;
  }
}
