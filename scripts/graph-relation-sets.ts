/**
 * `npm run graph:relation-sets`: a data migration for the embedded graph backend. Writes the
 * relation sets (blocks made and received, mutes made) of every graph node that lacks them, from
 * the users' relation lists, on the configured DynamoDB (the embedded one by default). Until then
 * a page's lookups about such a user read its edges as well as its node. Idempotent, and safe
 * beside a running service: each node's write is conditioned on its relations not having changed
 * since they were read.
 */
import { mapConcurrently } from '../src/lib/collections.js';
import { openConfiguredStores } from './configured-stores.js';
import { RelationSetsMigration } from './relation-sets-migration.js';

const opened = await openConfiguredStores();
try {
  if (opened.stores.graph.backend !== 'dynamodb') {
    console.log('the graph is on Neo4j: nothing to migrate');
  } else {
    const migration = new RelationSetsMigration({ client: opened.client, tableName: opened.table });
    let completed = 0;
    let left = 0;
    for await (const userIds of migration.nodesWithoutRelationSets()) {
      const done = await mapConcurrently(userIds, 8, (userId) => migration.completeRelationSets(userId));
      completed += done.filter(Boolean).length;
      left += done.filter((ok) => !ok).length;
    }
    console.log(
      `relation sets written on ${completed} graph nodes${left > 0 ? `; ${left} left to their edges (more relations than a set holds, or gone)` : ''}`,
    );
  }
} finally {
  await opened.close();
}
