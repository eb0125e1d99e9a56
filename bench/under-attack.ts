/**
 * Demand control under attack (issue 29): an unrelated client's cheap request, timed alone and
 * while three anonymous clients loop on the heaviest request the limits allow, in alternating
 * windows of one run. Each client sends from an address of its own on loopback (127.0.0.x), so
 * that each has its own rate bucket as distinct hosts would; the attackers ignore Retry-After.
 * Each attack opens on the points its clients' buckets refilled while they paused, which a client
 * looping without pause spends once: the cheap request's times are also split at the moment every
 * attacker has had a 429, into the attack's opening and what follows.
 */
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { median, round } from './loops.js';

/** The cheap request: a public page of 20 with authors (120 points), sent every PACE_MS as a frontend polling would, well within its bucket. */
const CHEAP = '{ publicTimeline(first: 20) { edges { node { id text author { handle } } } } }';
const PACE_MS = 200;
/**
 * The heaviest anonymous request the default limits allow: every post of a public page of 100 asks
 * three lists of its own (about 300 store requests, under MAX_STORE_REQUESTS).
 */
export const HEAVIEST = `{ publicTimeline(first: 100) { edges { node {
  likedBy(first: 1) { edges { node { id } } } repostedBy(first: 1) { edges { node { id } } } comments(first: 1) { edges { node { id } } }
} } } }`;
/** Goal of issue 29: the cheap request's median under attack within 3× its median alone. */
export const UNDER_ATTACK_GOAL = 3;

interface Answer {
  status: number;
  body: {
    errors?: { extensions?: { code?: string } }[];
    extensions?: { cost?: { estimated?: number; requests?: number } };
  };
}

/** One GraphQL request over a connection of its own from `from`. */
function post(url: string, query: string, from: string): Promise<Answer> {
  const target = new URL(`${url}/graphql`);
  const body = JSON.stringify({ query });
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        localAddress: from,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Answer['body'],
          }),
        );
        response.on('error', reject);
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

export interface UnderAttackPlan {
  /** Windows of each kind, alternating. */
  rounds: number;
  windowSeconds: number;
}

export async function cheapUnderAttack(url: string, plan: UnderAttackPlan) {
  const heavy = await post(url, HEAVIEST, '127.0.0.9');
  if (heavy.status !== 200 || heavy.body.errors)
    throw new Error(`the heaviest request was not allowed: ${JSON.stringify(heavy.body.errors)}`);
  const alone: number[] = [];
  const opening: number[] = [];
  const afterOpening: number[] = [];
  /** Per attack window: ms from its start until every attacker had had a 429, or null if not within the window. */
  const openingsMs: (number | null)[] = [];
  const outcomes = { allowed: 0, refused: 0 };
  /**
   * Times the cheap request for `seconds`, each run into the list `into` names when it is sent. One goes every
   * PACE_MS whether the one before has answered or not, so that a slow answer is not followed by fewer requests:
   * each stretch of the window weighs the same in the median.
   */
  const timeCheap = async (into: () => number[], seconds: number) => {
    const start = performance.now();
    const sent: Promise<void>[] = [];
    // Held until all have settled, so that a failure cannot end the process before its services are stopped.
    let failure: unknown = null;
    for (let at = 0; at < seconds * 1000; at += PACE_MS) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, start + at - performance.now())));
      const times = into();
      const t0 = performance.now();
      sent.push(
        post(url, CHEAP, '127.0.0.2')
          .then((answer) => {
            if (answer.status !== 200 || answer.body.errors)
              throw new Error(`the cheap request failed: ${answer.status} ${JSON.stringify(answer.body.errors)}`);
            times.push(performance.now() - t0);
          })
          .catch((error: unknown) => {
            failure ??= error;
          }),
      );
    }
    await Promise.all(sent);
    if (failure !== null) throw failure;
  };
  const addresses = ['127.0.0.3', '127.0.0.4', '127.0.0.5'];
  for (let attack = 0; attack < plan.rounds; attack++) {
    await timeCheap(() => alone, plan.windowSeconds);
    let attacking = true;
    const refusedOnce = new Set<string>();
    const started = performance.now();
    let openingMs: number | null = null;
    const attacker = async (from: string) => {
      while (attacking) {
        const answer = await post(url, HEAVIEST, from);
        if (answer.status === 429) {
          outcomes.refused += 1;
          refusedOnce.add(from);
          if (refusedOnce.size === addresses.length) openingMs ??= performance.now() - started;
        } else if (answer.status === 200) outcomes.allowed += 1;
        else throw new Error(`the attack got ${answer.status}`);
      }
    };
    const attackers = addresses.map(attacker);
    await timeCheap(() => (openingMs === null ? opening : afterOpening), plan.windowSeconds);
    attacking = false;
    await Promise.all(attackers);
    openingsMs.push(openingMs === null ? null : round(openingMs));
  }
  const attacked = [...opening, ...afterOpening];
  const aloneMs = median(alone);
  const attackedMs = median(attacked);
  const ratio = round(attackedMs / aloneMs, 2);
  const p50 = (times: number[]) => (times.length > 0 ? round(median(times), 2) : null);
  return {
    heaviest: { estimated: heavy.body.extensions?.cost?.estimated, requests: heavy.body.extensions?.cost?.requests },
    alone: { runs: alone.length, p50Ms: round(aloneMs, 2) },
    underAttack: {
      runs: attacked.length,
      p50Ms: round(attackedMs, 2),
      attacks: outcomes,
      opening: { runs: opening.length, p50Ms: p50(opening), lastedMs: openingsMs },
      afterOpening: { runs: afterOpening.length, p50Ms: p50(afterOpening) },
    },
    ratio,
    goal: `p50 under attack ≤ ${UNDER_ATTACK_GOAL}× alone`,
    met: ratio <= UNDER_ATTACK_GOAL,
  };
}

export type UnderAttackResult = Awaited<ReturnType<typeof cheapUnderAttack>>;
