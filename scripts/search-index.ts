/**
 * `npm run search:index`: a data migration. Writes the search entries (see docs/design/search.md) of
 * every profile, for accounts created before searchUsers existed, on the configured DynamoDB (the
 * embedded one by default). Idempotent: an entry is a put of the same item. An entry of a name
 * changed meanwhile is left out of results by the search's rules, which check every candidate's profile.
 */
import { toUserRecord } from '../src/stores/dynamo/dynamo-user-store.js';
import { batchWrite, put, scanPages } from '../src/stores/dynamo/batch.js';
import { searchKeys } from '../src/stores/dynamo/search-items.js';
import { PROFILE_OPEN } from '../src/stores/dynamo/keys.js';
import { openConfiguredStores } from './configured-stores.js';

const opened = await openConfiguredStores();
try {
  let users = 0;
  const pages = scanPages(opened.client, opened.table, {
    // A profile has a handle (follow counts an account's deletion left on its key have none); a closed one has left search.
    FilterExpression: `sk = :profile AND begins_with(pk, :user) AND ${PROFILE_OPEN}`,
    ExpressionAttributeValues: { ':profile': 'PROFILE', ':user': 'USER#' },
  });
  for await (const items of pages) {
    const profiles = items.map(toUserRecord);
    await batchWrite(
      opened.client,
      opened.table,
      profiles.flatMap((user) => searchKeys(user).map((key) => put({ ...key, userId: user.id }))),
    );
    users += profiles.length;
  }
  console.log(`search entries written for ${users} users`);
} finally {
  await opened.close();
}
