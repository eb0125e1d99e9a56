/**
 * Fan-out against the engine's raw write floor: how long one post by an author with 1,000
 * followers takes to reach every follower's home timeline, beside how long the same engine
 * takes to write those 1,000 entries itself with the same write API.
 */
import { performance } from 'node:perf_hooks';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { WriteApi } from '../src/config.js';
import type { OpenStores } from '../src/stores/open-stores.js';
import { newId } from '../src/domain/ids.js';
import { BATCH_CONCURRENCY, batchGet, del, put, writeItems } from '../src/stores/dynamo/batch.js';
import { homeEntryItem } from '../src/stores/dynamo/dynamo-timeline-store.js';
import { keys, partitions } from '../src/stores/dynamo/keys.js';
import { UNMETERED } from '../src/stores/graph/traversal.js';
import { median, round } from './loops.js';
import { gql, sleep } from './service.js';

const CREATE_POST = 'mutation($input: CreatePostInput!) { createPost(input: $input) { post { id } } }';
const WRITE_APIS: readonly WriteApi[] = ['transactWrite', 'batchWrite'];
const WATCH_INTERVAL_MS = 20;
/** A pause after each measurement, so that the engine's work left from one (its log, the task's last steps) does not fall into the next. */
const SETTLE_MS = 500;

/**
 * Fan-out of one post to the author's 1,000 followers against the engine's raw write floor,
 * both measured the same way, interleaved, in the same run. A floor run writes one home entry
 * per follower from here — the service's item builder, write API and concurrency budget,
 * under a post id no post has (removed again, untimed) — and is timed from its first request.
 * A fan-out run creates a post as the author and is timed from createPost returning. Each
 * ends when the same watcher has seen every follower's home timeline hold the entry. After
 * the interleaved runs, the floor is measured a few times with the other write API.
 */
export async function fanOutAgainstWriteFloor(
  url: string,
  opened: OpenStores,
  authorId: string,
  token: string,
  options: { writeApi: WriteApi; rounds: number; queueShards: number; counterShards: number },
) {
  const { writeApi, rounds, queueShards, counterShards } = options;
  const followers = (await opened.stores.graph.followers(authorId, { first: 5000, after: null }, UNMETERED)).items.map(
    (item) => item.id,
  );
  const entries = (postId: string) =>
    // Expiring as a new post's entries do (HOME_RETENTION_DAYS' default), though the bench deletes them first.
    followers.map((userId) => ({
      userId,
      postId,
      authorId,
      counterShards,
      expiresAt: Math.ceil(Date.now() / 1000) + 30 * 86_400,
    }));

  const writeFloor = async (api: WriteApi) => {
    const postId = newId('pst');
    const puts = entries(postId).map((e) => put(homeEntryItem(e)));
    const t0 = performance.now();
    let writtenMs = NaN;
    const writing = writeItems(opened.client, opened.table, puts, api).then(() => {
      writtenMs = performance.now() - t0;
    });
    const [, seenAt] = await Promise.all([writing, allHold(opened, followers, postId, t0)]);
    await writeItems(
      opened.client,
      opened.table,
      entries(postId).map((e) => del(keys.homeEntry(e.userId, e.postId))),
      writeApi,
    );
    await sleep(SETTLE_MS);
    return { seenMs: round(seenAt - t0), writtenMs: round(writtenMs) };
  };
  const fanOut = async (run: number) => {
    const t0 = performance.now();
    const answer = await gql(
      url,
      CREATE_POST,
      { input: { text: `Benchmark post ${run} at ${new Date().toISOString()}`, tags: ['bench'] } },
      token,
    );
    const returned = performance.now();
    if (answer.errors) throw new Error(`createPost failed: ${JSON.stringify(answer.errors)}`);
    const seenAt = await allHold(opened, followers, answer.data!.createPost.post.id as string, returned);
    // The task goes on after delivery (the last pages' bookkeeping); the next measurement must not share the engine with it.
    await queueEmpty(opened, queueShards);
    await sleep(SETTLE_MS);
    return { seenMs: round(seenAt - returned), createPostMs: round(returned - t0) };
  };

  const runs: { floor: Awaited<ReturnType<typeof writeFloor>>; fanOut: Awaited<ReturnType<typeof fanOut>> }[] = [];
  // One round first, unrecorded, as the warm-up; then every other round starts with the fan-out.
  for (let run = -1; run < rounds; run++) {
    let floor: Awaited<ReturnType<typeof writeFloor>>;
    let fanned: Awaited<ReturnType<typeof fanOut>>;
    if (run % 2 === 0) {
      fanned = await fanOut(run);
      floor = await writeFloor(writeApi);
    } else {
      floor = await writeFloor(writeApi);
      fanned = await fanOut(run);
    }
    if (run >= 0) runs.push({ floor, fanOut: fanned });
  }
  const otherApi = WRITE_APIS.find((api) => api !== writeApi)!;
  const otherFloors: Awaited<ReturnType<typeof writeFloor>>[] = [];
  for (let run = 0; run < Math.min(3, rounds); run++) otherFloors.push(await writeFloor(otherApi));

  const floorMs = median(runs.map((r) => r.floor.seenMs));
  const fanOutMs = median(runs.map((r) => r.fanOut.seenMs));
  return {
    followers: followers.length,
    writeApi,
    concurrency: BATCH_CONCURRENCY,
    runs,
    medianWriteFloorMs: floorMs,
    medianWrittenMs: median(runs.map((r) => r.floor.writtenMs)),
    medianFanOutMs: fanOutMs,
    fanOutToFloorRatio: round(fanOutMs / floorMs, 2),
    medianCreatePostMs: median(runs.map((r) => r.fanOut.createPostMs)),
    entriesPerSecond: Math.round(followers.length / (fanOutMs / 1000)),
    otherWriteApi: {
      writeApi: otherApi,
      runs: otherFloors,
      medianWriteFloorMs: median(otherFloors.map((r) => r.seenMs)),
      medianWrittenMs: median(otherFloors.map((r) => r.writtenMs)),
    },
  };
}

/** Resolves once no task is queued, i.e. the worker has finished everything the benchmark gave it. */
async function queueEmpty(opened: OpenStores, queueShards: number): Promise<void> {
  const deadline = performance.now() + 120_000;
  const queued = async (shard: number) =>
    (
      await opened.client.send(
        new QueryCommand({
          TableName: opened.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': partitions.queue(shard) },
          Limit: 1,
        }),
      )
    ).Items?.length ?? 0;
  const shards = Array.from({ length: queueShards }, (_, shard) => shard);
  while ((await Promise.all(shards.map(queued))).some((n) => n > 0)) {
    if (performance.now() > deadline) throw new Error('the worker did not finish its tasks within 120 s');
    await sleep(WATCH_INTERVAL_MS);
  }
}

/**
 * When every follower's home timeline holds the post: watches the follower written last until
 * it does, then reads the others' entries until none is missing. Fails after two minutes.
 */
async function allHold(opened: OpenStores, followers: readonly string[], postId: string, t0: number): Promise<number> {
  const deadline = t0 + 120_000;
  const waitOrFail = async () => {
    if (performance.now() > deadline)
      throw new Error(`post ${postId} did not reach all ${followers.length} followers within 120 s`);
    await sleep(WATCH_INTERVAL_MS);
  };
  const last = followers.at(-1)!;
  while (
    !(
      await opened.client.send(
        new GetCommand({ TableName: opened.table, Key: keys.homeEntry(last, postId), ProjectionExpression: 'pk' }),
      )
    ).Item
  )
    await waitOrFail();
  let missing = followers;
  for (;;) {
    const found = await batchGet(
      opened.client,
      opened.table,
      missing.map((id) => keys.homeEntry(id, postId)),
      { projection: 'pk, sk' },
    );
    missing = missing.filter((_, i) => !found[i]);
    if (missing.length === 0) return performance.now();
    await waitOrFail();
  }
}

const WRITE_API_NAMES: Record<WriteApi, string> = {
  batchWrite: 'BatchWriteItem, 25 per request',
  transactWrite: 'TransactWriteItems, 100 per request',
};

export function fanOutRows(fanOut: FanOutResult): string[] {
  const { runs, otherWriteApi: other } = fanOut;
  return [
    `| write floor: ${fanOut.followers} home entries written from the benchmark, ${fanOut.concurrency} requests in flight (${WRITE_API_NAMES[fanOut.writeApi]}) | | ${fanOut.medianWriteFloorMs} | ${Math.max(...runs.map((r) => r.floor.seenMs))} (max) | | median of ${runs.length}, interleaved with the fan-out; the write call itself returned after ${fanOut.medianWrittenMs} ms |`,
    `| createPost → all ${fanOut.followers} followers' timelines hold it (${WRITE_API_NAMES[fanOut.writeApi]}) | | ${fanOut.medianFanOutMs} | ${Math.max(...runs.map((r) => r.fanOut.seenMs))} (max) | | median of ${runs.length}, from createPost returning (itself ${fanOut.medianCreatePostMs} ms); ${fanOut.entriesPerSecond} timeline entries/s |`,
    `| fan-out ÷ write floor | | ${fanOut.fanOutToFloorRatio}× | | | medians of the same run, same write API, seen by the same watcher |`,
    `| same floor, ${WRITE_API_NAMES[other.writeApi]} | | ${other.medianWriteFloorMs} | ${Math.max(...other.runs.map((r) => r.seenMs))} (max) | | median of ${other.runs.length}, after the runs above; the write call itself returned after ${other.medianWrittenMs} ms |`,
  ];
}

export type FanOutResult = Awaited<ReturnType<typeof fanOutAgainstWriteFloor>>;
