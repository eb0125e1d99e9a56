/**
 * `npm run counters:migrate`: a data migration. Posts with one counter shard keep their counts on the post
 * item; this moves them there from the `COUNT#0` item of posts written before, on the configured DynamoDB
 * (the embedded one by default). Run it with no older instance running, before the new version serves (older ones
 * write to COUNT#0): until then such posts show no counts. Idempotent, and exact beside new instances.
 */
import { mapConcurrently } from '../src/lib/collections.js';
import { openConfiguredStores } from './configured-stores.js';
import { PostCountsMigration } from './post-counts-migration.js';

const opened = await openConfiguredStores();
try {
  const migration = new PostCountsMigration({ client: opened.client, tableName: opened.table });
  let moved = 0;
  for await (const postIds of migration.postsToMigrate()) {
    const done = await mapConcurrently(postIds, 8, (postId) => migration.migrate(postId));
    moved += done.filter(Boolean).length;
  }
  console.log(`counts moved onto ${moved} post items`);
} finally {
  await opened.close();
}
