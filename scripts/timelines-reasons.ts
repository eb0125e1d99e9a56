/**
 * `npm run timelines:reasons`: a data migration for home timelines. Copies each repost marker's reasons onto its
 * entry where the entry has none, so that a page shows another reason when the viewer hides the one shown, on the
 * configured DynamoDB (the embedded one by default). Until then such an entry shows only its own reason, until its
 * reasons next change or it expires. Idempotent, and safe beside a running service.
 */
import { openConfiguredStores } from './configured-stores.js';
import { HomeReasonsMigration } from './home-reasons-migration.js';

const opened = await openConfiguredStores();
try {
  const migration = new HomeReasonsMigration({ client: opened.client, tableName: opened.table });
  let found = 0;
  let written = 0;
  for await (const markers of migration.markers()) {
    found += markers.length;
    written += await migration.migrate(markers);
  }
  console.log(`reasons copied onto ${written} repost entries (${found} markers hold more than one)`);
} finally {
  await opened.close();
}
