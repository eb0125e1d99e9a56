/**
 * `npm run graph:follow-counts`: a data migration for the embedded graph backend. Moves each user's follow
 * counts from the graph node onto the profile, where pages read them with the author (see
 * docs/design/graph.md#follow-counts). Run it with no older instance running and before the new version serves:
 * until it ends, unmoved users show no followers and their posts are placed as if they had none. Idempotent.
 */
import { mapConcurrently } from '../src/lib/collections.js';
import { openConfiguredStores } from './configured-stores.js';
import { FollowCountsMigration } from './follow-counts-migration.js';

const opened = await openConfiguredStores();
try {
  if (opened.stores.graph.backend !== 'dynamodb') {
    console.log('the graph is on Neo4j: nothing to migrate');
  } else {
    const migration = new FollowCountsMigration({ client: opened.client, tableName: opened.table });
    let moved = 0;
    let orphans = 0;
    for await (const userIds of migration.nodesToMigrate()) {
      const done = await mapConcurrently(userIds, 8, (userId) => migration.migrate(userId));
      moved += done.filter((d) => d === 'moved').length;
      orphans += done.filter((d) => d === 'no profile').length;
    }
    console.log(
      `follow counts moved onto ${moved} profiles${orphans > 0 ? `; ${orphans} graph nodes without a profile kept only their following count` : ''}`,
    );
  }
} finally {
  await opened.close();
}
