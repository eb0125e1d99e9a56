/**
 * A user's sign-in alone and while another address floods the service with sign-ins of its own right
 * password (issue 29: 16 loops, each sending the next as soon as the last is answered, refusals included),
 * in alternating windows against one service at the production scrypt cost. The user connects from
 * 127.0.0.1, the flood from 127.0.0.2: two client addresses to the service, on loopback. A second flood
 * of only as many loops as the pool takes from one address (running and waiting, none refused) tells
 * the hashes' share of the slowdown from that of answering refusals.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { median, quantile, round } from './loops.js';
import { type Service, sleep, startService, stopService } from './service.js';

const SIGN_UP = 'mutation($input: SignUpInput!) { signUp(input: $input) { user { id } } }';
const SIGN_IN = 'mutation($input: SignInInput!) { signIn(input: $input) { user { id } } }';
const PASSWORD = 'benchmark password 1234';
const FLOOD_LOOPS = 16;
/** The sign-in under the issue's flood may take at most this many times as long as alone. */
const GOAL_RATIO = 2;

export interface SignInFloodPlan {
  rounds: number;
  signInsPerWindow: number;
}

export interface Flood {
  loops: number;
  p50Ms: number;
  p99Ms: number;
  /** Under this flood ÷ alone, p50s. */
  p50Ratio: number;
  /** What the flood got while the user signed in: hashes run for it (signed in) and requests refused. */
  signedInPerSecond: number;
  refusedPerSecond: number;
  otherErrors: number;
}

export interface SignInFloodResult {
  scryptLog2N: number;
  signIns: number;
  alone: { p50Ms: number; p99Ms: number };
  /** The issue's flood, then one the pool takes whole. */
  floods: [Flood, Flood];
  goal: string;
  met: boolean;
}

/** One GraphQL POST from `agent`'s local address; resolves with the codes of its errors (none: it succeeded). */
function post(url: string, agent: Agent, query: string, variables: Record<string, unknown>): Promise<string[]> {
  const body = JSON.stringify({ query, variables });
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/graphql`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            errors?: { extensions?: { code?: string } }[];
          };
          resolve((answer.errors ?? []).map((error) => error.extensions?.code ?? 'unknown'));
        });
        response.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function signedUp(url: string, agent: Agent, handle: string): Promise<void> {
  const codes = await post(url, agent, SIGN_UP, { input: { handle, password: PASSWORD } });
  if (codes.length > 0) throw new Error(`signUp of ${handle} failed: ${codes.join()}`);
}

export async function signInUnderFlood(
  endpoint: string,
  plan: SignInFloodPlan,
  log: (message: string) => void,
): Promise<SignInFloodResult> {
  // The production cost, as a sign-in pays it.
  const scryptLog2N = loadConfig({}).passwordScryptLog2N;
  const service: Service = await startService(endpoint, {
    TABLE_PREFIX: `bench_signin_${Date.now()}_`,
    WORKER_ENABLED: 'false',
    PASSWORD_SCRYPT_LOG2_N: String(scryptLog2N),
    // The pool alone holds the flood, as it must when it comes from many addresses: the per-address limit would refuse it first.
    PASSWORD_CHECKS_PER_ADDRESS: '1000000',
  });
  const user = new Agent({ keepAlive: true, localAddress: '127.0.0.1' });
  const flooder = new Agent({ keepAlive: true, localAddress: '127.0.0.2' });
  try {
    const suffix = Date.now().toString(36);
    await signedUp(service.url, user, `bench_user_${suffix}`);
    await signedUp(service.url, flooder, `bench_flood_${suffix}`);
    const signIn = async (agent: Agent, handle: string): Promise<string[]> =>
      post(service.url, agent, SIGN_IN, { input: { handle, password: PASSWORD } });
    const timedSignIn = async (): Promise<number> => {
      const started = performance.now();
      const codes = await signIn(user, `bench_user_${suffix}`);
      if (codes.length > 0) throw new Error(`the user's sign-in failed: ${codes.join()}`);
      return performance.now() - started;
    };
    // Warm-up: connections, the decoy hash, the JIT.
    for (let i = 0; i < 2; i++) await timedSignIn();

    const alone: number[] = [];
    const defaults = loadConfig({});
    const floods = [
      FLOOD_LOOPS,
      Math.max(1, defaults.passwordHashConcurrency - 1) + defaults.passwordHashQueuePerAddress,
    ].map((loops) => ({
      loops,
      latencies: [] as number[],
      signedIn: 0,
      refused: 0,
      otherErrors: 0,
      ms: 0,
    }));
    for (let r = 0; r < plan.rounds; r++) {
      log(
        `sign-in round ${r + 1} of ${plan.rounds}: alone, then under floods of ${floods.map((f) => f.loops).join(' and ')} loops from 127.0.0.2`,
      );
      for (let i = 0; i < plan.signInsPerWindow; i++) alone.push(await timedSignIn());
      for (const flood of floods) {
        let flooding = true;
        // The flood's answers while the user's sign-ins are timed.
        let measuring = false;
        const loop = async () => {
          while (flooding) {
            const codes = await signIn(flooder, `bench_flood_${suffix}`).catch(() => ['request failed']);
            if (!measuring) continue;
            if (codes.length === 0) flood.signedIn += 1;
            else if (codes.every((code) => code === 'RATE_LIMITED')) flood.refused += 1;
            else flood.otherErrors += 1;
          }
        };
        const loops = Array.from({ length: flood.loops }, loop);
        // Until the flood's hashes hold the pool.
        await sleep(1_000);
        measuring = true;
        const started = performance.now();
        for (let i = 0; i < plan.signInsPerWindow; i++) flood.latencies.push(await timedSignIn());
        flood.ms += performance.now() - started;
        measuring = false;
        flooding = false;
        await Promise.all(loops);
      }
    }
    const [issue, whole] = floods.map((flood): Flood => ({
      loops: flood.loops,
      p50Ms: round(median(flood.latencies)),
      p99Ms: round(quantile(flood.latencies, 0.99)),
      p50Ratio: round(median(flood.latencies) / median(alone), 2),
      signedInPerSecond: round(flood.signedIn / (flood.ms / 1000)),
      refusedPerSecond: round(flood.refused / (flood.ms / 1000)),
      otherErrors: flood.otherErrors,
    })) as [Flood, Flood];
    return {
      scryptLog2N,
      signIns: alone.length,
      alone: { p50Ms: round(median(alone)), p99Ms: round(quantile(alone, 0.99)) },
      floods: [issue, whole],
      goal: `under the flood of ${FLOOD_LOOPS} loops ≤ ${GOAL_RATIO}× alone (p50)`,
      met: issue.p50Ratio <= GOAL_RATIO,
    };
  } finally {
    user.destroy();
    flooder.destroy();
    await stopService(service);
  }
}
