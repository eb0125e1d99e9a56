/**
 * `npm run counters:verify [-- --repair]`: recomputes every counter from its source records
 * on the configured DynamoDB (the embedded one by default) and prints the drift it finds,
 * and records that disagree with each other (follows, a post's counter shards). Exits 1 when there is either (even
 * after repairing the drift), 0 when there is none.
 */
import { auditCounters } from '../src/stores/dynamo/counter-audit.js';
import { openConfiguredStores } from './configured-stores.js';

const repair = process.argv.includes('--repair');
const opened = await openConfiguredStores();
try {
  const { drift, mismatches } = await auditCounters(opened.client, opened.table, {
    repair,
    includeGraph: opened.stores.graph.backend === 'dynamodb',
  });
  for (const d of drift) {
    console.log(
      `${d.counter}: ${d.key.pk} ${d.field} recorded ${d.recorded}, actual ${d.actual}${repair ? ' (repaired)' : ''}`,
    );
  }
  for (const m of mismatches)
    console.log(`${m.records === 'follow' ? 'follows' : 'counter shards'}: ${m.problem}: ${m.key.pk} ${m.key.sk}`);
  console.log(
    drift.length === 0
      ? 'no drift: every counter matches its records'
      : `${drift.length} counters drifted${repair ? ', now repaired' : ''}`,
  );
  for (const records of ['follow', 'counter shard'] as const) {
    const disagreeing = mismatches.filter((m) => m.records === records).length;
    if (disagreeing > 0)
      console.log(
        `${disagreeing} ${records} records disagree with each other (not repaired: see docs/design/counters.md)`,
      );
  }
  process.exitCode = drift.length === 0 && mismatches.length === 0 ? 0 : 1;
} finally {
  await opened.close();
}
