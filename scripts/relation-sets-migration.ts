import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  RELATION_SETS,
  RELATION_SETS_COMPLETE,
  RELATION_SET_ATTRIBUTES,
  RELATION_SET_MAX,
  RELATIONS_VERSION,
} from '../src/stores/dynamo/graph/items.js';
import { relationEntries } from '../src/stores/dynamo/graph/lists.js';
import { keys } from '../src/stores/dynamo/keys.js';
import { graphNodesWhere } from './graph-nodes.js';

export interface RelationSetsTable {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** As the graph store's: a node whose relations do not fit is left to its edges. */
  relationSetMax?: number;
}

/**
 * Writes the relation sets of graph nodes that do not hold them, from the users' relation lists,
 * and marks them complete (`npm run graph:relation-sets`). Each write is conditioned on the node's
 * relations version, so that a relation made or ended meanwhile makes it read again.
 */
export class RelationSetsMigration {
  private readonly relationSetMax: number;

  constructor(private readonly table: RelationSetsTable) {
    this.relationSetMax = table.relationSetMax ?? RELATION_SET_MAX;
  }

  /** The ids of the graph nodes that are not marked as holding every relation: a whole-table scan. */
  nodesWithoutRelationSets(): AsyncGenerator<string[]> {
    return graphNodesWhere(this.table, {
      expression: 'attribute_not_exists(#complete)',
      names: { '#complete': RELATION_SETS_COMPLETE },
    });
  }

  /** False when there is nothing to do: the node is complete already, has no room for the user's relations, or is gone. */
  async completeRelationSets(userId: string): Promise<boolean> {
    const { client, tableName } = this.table;
    for (let attempt = 0; attempt < 5; attempt++) {
      const { Item: node } = await client.send(
        new GetCommand({
          TableName: tableName,
          Key: keys.graphNode(userId),
          ConsistentRead: true,
          ProjectionExpression: '#complete, #version',
          ExpressionAttributeNames: { '#complete': RELATION_SETS_COMPLETE, '#version': RELATIONS_VERSION },
        }),
      );
      if (!node || node[RELATION_SETS_COMPLETE] === true) return false;
      const sets = new Map<string, Set<string>>();
      for (const kind of ['blocks', 'mutes'] as const) {
        for (const entry of await relationEntries(this.table, kind, userId, null)) {
          const attribute = entry.direction === 'OUT' ? RELATION_SETS[kind].made : RELATION_SETS[kind].received;
          if (attribute !== null) (sets.get(attribute) ?? sets.set(attribute, new Set()).get(attribute)!).add(entry.id);
        }
      }
      if ([...sets.values()].some((set) => set.size > this.relationSetMax)) return false;
      // Sets cannot be empty: an attribute left out is an empty set.
      const attributes = RELATION_SET_ATTRIBUTES;
      const names = Object.fromEntries(attributes.map((attribute, i) => [`#s${i}`, attribute]));
      const assigned = attributes.flatMap((attribute, i) => (sets.has(attribute) ? [`#s${i} = :s${i}`] : []));
      const removed = attributes.flatMap((attribute, i) => (sets.has(attribute) ? [] : [`#s${i}`]));
      const version = node[RELATIONS_VERSION] as number | undefined;
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.graphNode(userId),
            UpdateExpression: `SET ${['#complete = :complete', ...assigned].join(', ')}${removed.length > 0 ? ` REMOVE ${removed.join(', ')}` : ''}`,
            ConditionExpression: `attribute_exists(pk) AND ${version === undefined ? 'attribute_not_exists(#version)' : '#version = :version'}`,
            ExpressionAttributeNames: { ...names, '#complete': RELATION_SETS_COMPLETE, '#version': RELATIONS_VERSION },
            ExpressionAttributeValues: {
              ':complete': true,
              ...Object.fromEntries(
                attributes.flatMap((attribute, i) => (sets.has(attribute) ? [[`:s${i}`, sets.get(attribute)!]] : [])),
              ),
              ...(version === undefined ? {} : { ':version': version }),
            },
          }),
        );
        return true;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    throw new Error(`the relation sets of ${userId} kept racing with relation changes`);
  }
}
