/**
 * `npm run timelines:retention`: a data migration for home timelines kept by age (HOME_RETENTION_DAYS). Sets the
 * expiry (`expiresAt`) of every home entry and repost marker that has none, from its feed position, and deletes the
 * size estimates (`HOMESIZE#`) of the trimming it replaces, on the configured DynamoDB (the embedded one by default).
 * Until then, reads still stop at the retention, but DynamoDB never deletes those entries. Idempotent, and safe
 * beside a running service: an entry is only given an expiry while it exists without one.
 */
import { HomeRetention } from '../src/usecases/home-retention.js';
import { openConfiguredStores } from './configured-stores.js';
import { HomeRetentionMigration } from './home-retention-migration.js';

const opened = await openConfiguredStores();
try {
  const retention = new HomeRetention(opened.config.homeRetentionDays, opened.stores.clock);
  const migration = new HomeRetentionMigration({ client: opened.client, tableName: opened.table }, (position) =>
    retention.expiresAt(position),
  );
  const done = { expiring: 0, sizeEstimates: 0 };
  for await (const page of migration.unmigrated()) {
    const migrated = await migration.migrate(page);
    done.expiring += migrated.expiring;
    done.sizeEstimates += migrated.sizeEstimates;
  }
  console.log(
    `expiry (HOME_RETENTION_DAYS ${opened.config.homeRetentionDays}) set on ${done.expiring} home entries and markers; ${done.sizeEstimates} size estimates deleted`,
  );
} finally {
  await opened.close();
}
