import { PARTITION_LIMITS, SECONDS_PER_MONTH, TTL_DELETION_LAG_DAYS } from './dynamodb-capacity.js';
import type { ModelInput, ModelResult } from './model-types.js';

const COMPACT = new Intl.NumberFormat('en-US', { notation: 'compact', maximumSignificantDigits: 3 });

/** 1234567 → "1.23M": figures spanning ten orders of magnitude stay readable. */
export function compact(value: number): string {
  if (value === 0) return '0';
  return Math.abs(value) < 1 ? value.toPrecision(2) : COMPACT.format(value);
}

/** Storage in binary units (DynamoDB bills a GB as 2^30 bytes). */
function bytes(value: number): string {
  const units: [number, string][] = [
    [2 ** 40, 'TiB'],
    [2 ** 30, 'GiB'],
    [2 ** 20, 'MiB'],
  ];
  const [size, unit] = units.find(([size]) => value >= size) ?? [2 ** 10, 'KiB'];
  return `${(value / size).toPrecision(3)} ${unit}`;
}

const usd = (value: number) => `$${value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(2)}`;

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  // Text in the first and last columns, figures between.
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 || i === cells.length - 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The model's answer for one network, as `npm run simulate` prints it. */
export function formatReport(input: ModelInput, result: ModelResult): string {
  const { network: n, rates: r, settings: s } = { ...result, settings: input.settings };
  const w = input.workload;
  const out: string[] = [];
  out.push(`=== ${n.users.toLocaleString('en-US')} users ===`);
  out.push(
    `Network: ${compact(n.follows)} follows (mean ${compact(n.meanFollowers)} followers, most followed ${compact(n.maxFollowers)}); ` +
      `${compact(n.outboxAuthors)} outbox authors (> FANOUT_MAX_FOLLOWERS ${s.fanoutMaxFollowers}), ${compact(n.hotAuthors)} hot authors (≥ HOT_AUTHOR_FOLLOWERS ${s.hotAuthorFollowers}: ${s.counterShards} counter shards).`,
  );
  out.push(
    `Largest fan-out of one post: ${compact(n.largestFanOut.entries)} home entries in ${compact(n.largestFanOut.pages)} pages of FANOUT_PAGE_SIZE ${s.fanoutPageSize}, ${compact(n.largestFanOut.writeUnits)} write units.`,
  );
  out.push(
    `Average rates: ${compact(r.postsPerSecond)} posts/s, ${compact(r.homeReadsPerSecond)} home pages/s, ${compact(r.likesPerSecond)} likes/s, ${compact(r.repostsPerSecond)} reposts/s, ${compact(r.followsPerSecond)} follows/s; ` +
      `fan-out ${compact(r.fanOutEntriesPerPost)} entries a post = ${compact(r.fanOutEntriesPerSecond)} entries/s, ${compact(r.fanOutEntriesPerSecond * SECONDS_PER_MONTH)} a month; ${(r.outboxPostShare * 100).toFixed(2)}% of posts go to outboxes.`,
  );
  out.push('');
  out.push('Capacity by item kind (average; on-demand request units = capacity units):');
  out.push(
    table(
      ['item', 'WCU/s', 'RCU/s', 'WRU/month', 'RRU/month', 'written and read by'],
      [
        ...result.lines.map((line) => [
          line.item,
          compact(line.writeUnitsPerSecond),
          compact(line.readUnitsPerSecond),
          compact(line.writeUnitsPerSecond * SECONDS_PER_MONTH),
          compact(line.readUnitsPerSecond * SECONDS_PER_MONTH),
          line.by,
        ]),
        [
          'total',
          compact(result.totals.writeUnitsPerSecond),
          compact(result.totals.readUnitsPerSecond),
          compact(result.cost.writeUnitsPerMonth),
          compact(result.cost.readUnitsPerMonth),
          '',
        ],
      ],
    ),
  );
  out.push('');
  out.push(
    `Storage after ${w.retentionDays} days (home entries: HOME_RETENTION_DAYS ${s.homeRetentionDays} + ${TTL_DELETION_LAG_DAYS} days before TTL deletes them; items + ${100} bytes each of overhead):`,
  );
  out.push(
    table(
      ['item', 'items', 'size'],
      [
        ...result.storage.map((line) => [line.item, compact(line.items), bytes(line.bytes)]),
        ['total', '', bytes(result.totals.storageBytes)],
      ],
    ),
  );
  out.push('');
  const p = input.prices;
  out.push(
    `On-demand cost a month (${p.region}, prices of ${p.asOf}: $${p.writeRequestUnitUsdPerMillion}/M write units, $${p.readRequestUnitUsdPerMillion}/M read units, $${p.storageUsdPerGbMonth}/GB-month): ` +
      `writes ${usd(result.cost.writeUsd)} + reads ${usd(result.cost.readUsd)} + storage ${usd(result.cost.storageUsd)} = ${usd(result.cost.totalUsd)}.`,
  );
  const monthlyUsd = (line: ModelResult['lines'][number]) =>
    ((line.writeUnitsPerSecond * SECONDS_PER_MONTH) / 1e6) * p.writeRequestUnitUsdPerMillion +
    ((line.readUnitsPerSecond * SECONDS_PER_MONTH) / 1e6) * p.readRequestUnitUsdPerMillion;
  const drivers = [...result.lines].sort((a, b) => monthlyUsd(b) - monthlyUsd(a)).slice(0, 3);
  out.push(`Largest costs: ${drivers.map((line) => `${line.item} ${usd(monthlyUsd(line))}`).join(', ')}.`);
  out.push('');
  out.push(
    `Hottest partitions at peak (${w.peakToAverage}× the average) against ${PARTITION_LIMITS.readUnits} RCU / ${PARTITION_LIMITS.writeUnits} WCU a partition:`,
  );
  out.push(
    table(
      ['partition', 'RCU/s', 'WCU/s', 'of limit', 'relieved by'],
      result.hotSpots.map((spot) => [
        spot.partition,
        compact(spot.readUnitsPerSecond),
        compact(spot.writeUnitsPerSecond),
        `${(spot.ofLimit * 100).toFixed(spot.ofLimit < 0.01 ? 2 : 0)}%${spot.ofLimit >= 1 ? ' THROTTLED' : ''}`,
        spot.relief,
      ]),
    ),
  );
  out.push('');
  out.push('What each is:');
  for (const spot of result.hotSpots) out.push(`  ${spot.partition}: ${spot.what}.`);
  return out.join('\n');
}
