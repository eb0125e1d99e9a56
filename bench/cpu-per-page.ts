/**
 * Issue 34's first goal: the CPU a home page costs the service, against the CPU a bare SDK client spends making
 * exactly that page's store requests. The requests are captured from a real page through a loopback proxy, then
 * replayed by processes of their own (bench/replay-process.ts). A third side serves the same page from memory with
 * Apollo Server (bench/apollo-floor-server.ts): the least any service on it spends besides its store calls. All run in
 * rotating windows of the same run.
 */
import * as dynamodb from '@aws-sdk/client-dynamodb';
import { type IncomingMessage, type ServerResponse, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fork } from 'node:child_process';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../src/stores/dynamo/embedded-engine.js';
import { CpuMeter } from './cpu.js';
import { fetchPage, pageRequest } from './home-vs-floor.js';
import { type Summary, round, runLoops, summarize, type Window } from './loops.js';
import { type Answer, type Service, builtBenchProcess, startService, stopService } from './service.js';

export const CPU_GOAL = 1.5;

export interface CapturedRequest {
  /** The DynamoDB operation, as `X-Amz-Target` names it (`Query`, `BatchGetItem`, ...). */
  operation: string;
  input: Record<string, unknown>;
  /** The round trip it was sent in, from 1 (see captureProxy). */
  wave: number;
}

/**
 * While the service has sent nothing new for this long, the answers it waits for are released together: what it sent
 * meanwhile could not have needed them.
 */
const WAVE_QUIET_MS = 30;

/**
 * A loopback proxy to the engine that records the requests passing through while `recording` is on, with the wave
 * each was sent in. While recording it holds the engine's answers back until the service has been quiet for
 * `quietMs` with none outstanding, then releases them together and starts the next wave: timing alone cannot
 * tell a request sent after an answer from one that needed it.
 */
export async function captureProxy(engineEndpoint: string, quietMs = WAVE_QUIET_MS) {
  const engine = new URL(engineEndpoint);
  const captured: CapturedRequest[] = [];
  let recording = false;
  let wave = 1;
  let outstanding = 0;
  let held: (() => void)[] = [];
  let quiet: NodeJS.Timeout | undefined;
  const releaseWhenQuiet = () => {
    clearTimeout(quiet);
    quiet = setTimeout(() => {
      if (outstanding > 0) return;
      wave += 1;
      const answers = held;
      held = [];
      for (const answer of answers) answer();
    }, quietMs);
  };
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const target = String(incoming.headers['x-amz-target'] ?? '');
      const recorded = recording && target !== '';
      let settled = false;
      /** Holds a recorded request's answer (or its failure) until the wave ends; once per request. */
      const hold = (answer: () => void) => {
        if (settled) return;
        settled = true;
        held.push(answer);
        outstanding -= 1;
        releaseWhenQuiet();
      };
      if (recorded) {
        captured.push({
          operation: target.slice(target.indexOf('.') + 1),
          input: JSON.parse(body.toString('utf8')) as Record<string, unknown>,
          wave,
        });
        outstanding += 1;
        releaseWhenQuiet();
      }
      const forwarded = httpRequest(
        {
          host: engine.hostname,
          port: engine.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
        },
        (answer) => {
          if (!recorded) {
            outgoing.writeHead(answer.statusCode ?? 500, answer.headers);
            answer.pipe(outgoing);
            return;
          }
          const parts: Buffer[] = [];
          answer.on('data', (part: Buffer) => parts.push(part));
          answer.on('error', () => hold(() => outgoing.destroy()));
          answer.on('end', () =>
            hold(() => {
              outgoing.writeHead(answer.statusCode ?? 500, answer.headers);
              outgoing.end(Buffer.concat(parts));
            }),
          );
        },
      );
      forwarded.on('error', () => (recorded ? hold(() => outgoing.destroy()) : outgoing.destroy()));
      forwarded.end(body);
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** The requests `run` sends through the proxy. */
    async record(run: () => Promise<void>): Promise<CapturedRequest[]> {
      captured.length = 0;
      wave = 1;
      recording = true;
      try {
        await run();
      } finally {
        recording = false;
      }
      return [...captured];
    },
    close: () => new Promise<void>((closed) => server.close(() => closed())),
  };
}

/**
 * The store requests of a home page as `token`'s viewer, and of each of `others` (given the service's URL), recorded
 * through a service of its own behind a capture proxy, with the page's answer. `started` sees that service as soon
 * as it is up, so that a caller can stop it on the way out.
 */
export async function capturePage<K extends string>(
  engineEndpoint: string,
  token: string,
  others: Record<K, (url: string) => Promise<void>>,
  started: (service: Service) => void = () => {},
) {
  const proxy = await captureProxy(engineEndpoint);
  try {
    const capturing = await startService(proxy.endpoint, { BATCHING: 'true', WORKER_ENABLED: 'false', CACHE: 'off' });
    started(capturing);
    try {
      const page = pageRequest(capturing.url, token);
      // The first pages read what a page then finds in memory (the outbox authors' list, the schema's plan).
      for (let i = 0; i < 3; i++) await page();
      const requests = await proxy.record(page);
      const answer = await fetchPage(capturing.url, token);
      const waves = byWave(requests).length;
      const reported = (answer as Answer).extensions?.cost?.waves;
      if (waves !== reported) throw new Error(`the capture saw ${waves} waves where the page reports ${reported}`);
      const recorded = {} as Record<K, CapturedRequest[]>;
      for (const name of Object.keys(others) as K[])
        recorded[name] = await proxy.record(() => others[name](capturing.url));
      return { requests, answer, others: recorded };
    } finally {
      await stopService(capturing);
    }
  } finally {
    await proxy.close();
  }
}

/**
 * The captured requests, sent again by a bare low-level client wave by wave, as any client must: a request that needs
 * another's answer cannot go before it. Each wave's requests go at once.
 */
export function replayRequest(
  engineEndpoint: string,
  requests: readonly CapturedRequest[],
): { replay: () => Promise<void>; close: () => void } {
  const client = new dynamodb.DynamoDBClient({
    endpoint: engineEndpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    maxAttempts: 1,
  });
  const command = ({ operation, input }: CapturedRequest) => {
    const Command = (dynamodb as unknown as Record<string, new (input: unknown) => dynamodb.ScanCommand>)[
      `${operation}Command`
    ];
    if (!Command) throw new Error(`no command for the captured operation ${operation}`);
    return () => new Command(input);
  };
  const inOrder = byWave(requests).map((wave) => wave.map(command));
  return {
    replay: async () => {
      for (const wave of inOrder) await Promise.all(wave.map((command) => client.send(command())));
    },
    close: () => client.destroy(),
  };
}

/** Something measured in windows at one connection: a service's pages, or a replay process. */
interface Measured {
  window(seconds: number): Promise<Window>;
}

/** Pages sent from this process, the CPU of the processes `cpu` names read around each window. */
export function measuredHere(run: () => Promise<void>, cpu: CpuMeter): Measured {
  return { window: (seconds) => runLoops(1, seconds, run, cpu) };
}

/** What bench/replay-process.ts is told. */
export type ReplayMessage =
  | { kind: 'start'; endpoint: string; requests: readonly CapturedRequest[] }
  | { kind: 'window'; seconds: number }
  | { kind: 'stop' };

/** What it answers a window with; its CPU is read from here. */
export type ReplayWindow = Omit<Window, 'cpuMs'>;

/** The replay of `requests` in a process of its own (bench/replay-process.ts), its CPU read from /proc as `client`. */
export async function replayProcess(
  engineEndpoint: string,
  requests: readonly CapturedRequest[],
): Promise<Measured & { close(): void }> {
  // Compiled, as the service: no tsx loader (a fork would inherit this process's).
  const child = fork(builtBenchProcess('replay-process'), [], {
    execArgv: [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const next = <T>(kind: string) =>
    new Promise<T>((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`the replay process exited (code ${code})`));
      child.once('exit', exited);
      child.once('message', (message: { kind: string }) => {
        child.off('exit', exited);
        if (message.kind === kind) resolve(message as T);
        else reject(new Error(`the replay process answered ${message.kind}, not ${kind}`));
      });
    });
  const ready = next('ready');
  child.send({ kind: 'start', endpoint: engineEndpoint, requests } satisfies ReplayMessage);
  await ready;
  const cpu = new CpuMeter({ replay: child.pid });
  return {
    async window(seconds) {
      const stopCpu = cpu.start();
      const answer = next<{ window: ReplayWindow }>('window');
      child.send({ kind: 'window', seconds } satisfies ReplayMessage);
      const { window } = await answer;
      // Named `client`, as the replay's CPU has always been reported.
      return { ...window, cpuMs: new Map([['client', stopCpu().get('replay') ?? null]]) };
    },
    close: () => {
      if (child.connected) child.send({ kind: 'stop' } satisfies ReplayMessage);
    },
  };
}

/**
 * Service CPU per page against the replay's client CPU, against the page served from memory by Apollo Server (`floor`)
 * and against Apollo Server making the page's requests before it answers from memory (`platform`), one connection, in
 * `rounds` windows each, the sides' order turning every round. The page and the replay are each measured in several
 * processes, their windows pooled: identical processes can differ by a fifth.
 */
export async function cpuPerPage(options: {
  pages: Measured[];
  replays: Measured[];
  floor: Measured;
  platform: Measured;
  requests: readonly CapturedRequest[];
  plan: { warmupS: number; seconds: number; rounds: number };
}) {
  const sides = [
    ...options.pages.map((measured) => ({ measured, kind: 'page' as const, windows: [] as Window[] })),
    ...options.replays.map((measured) => ({ measured, kind: 'replay' as const, windows: [] as Window[] })),
    { measured: options.floor, kind: 'floor' as const, windows: [] as Window[] },
    { measured: options.platform, kind: 'platform' as const, windows: [] as Window[] },
  ];
  for (const side of sides) await side.measured.window(options.plan.warmupS);
  const seconds = options.plan.seconds / options.plan.rounds;
  for (let round = 0; round < options.plan.rounds; round++)
    for (let i = 0; i < sides.length; i++) {
      const side = sides[(round + i) % sides.length]!;
      side.windows.push(await side.measured.window(seconds));
    }
  const pooled = (kind: (typeof sides)[number]['kind']): Summary =>
    summarize(
      1,
      sides.filter((side) => side.kind === kind).flatMap((side) => side.windows),
    );
  const page = pooled('page');
  const replay = pooled('replay');
  const floor = pooled('floor');
  const platform = pooled('platform');
  const serviceMs = page.cpuMsPerOperation.service ?? null;
  const clientMs = replay.cpuMsPerOperation.client ?? null;
  const floorMs = floor.cpuMsPerOperation.floor ?? null;
  const platformMs = platform.cpuMsPerOperation.floor ?? null;
  const ratio = serviceMs === null || clientMs === null ? null : round(serviceMs / clientMs, 2);
  return {
    page,
    replay,
    floor,
    platform,
    requests: describeWaves(options.requests),
    serviceCpuMsPerPage: serviceMs,
    clientCpuMsPerReplay: clientMs,
    apolloFloorCpuMsPerPage: floorMs,
    /** What the service spends beyond the store requests' client CPU and Apollo Server's floor. */
    remainderCpuMsPerPage:
      serviceMs === null || clientMs === null || floorMs === null ? null : round(serviceMs - clientMs - floorMs, 2),
    /** Apollo Server making the page's requests with the bare client, its answer from memory. */
    platformCpuMsPerPage: platformMs,
    /** What any service on Apollo Server and the SDK spends on the page, against the replay. */
    platformRatio: platformMs === null || clientMs === null ? null : round(platformMs / clientMs, 2),
    /** What the service spends beyond that platform: its own code, against the replay. */
    ownRatio:
      serviceMs === null || platformMs === null || clientMs === null
        ? null
        : round((serviceMs - platformMs) / clientMs, 2),
    ratio,
    goal: `service CPU per page ≤ ${CPU_GOAL}× a bare client's CPU for the same requests`,
    met: ratio !== null && ratio <= CPU_GOAL,
  };
}

/** The requests by wave: `Query, BatchGetItem → BatchGetItem` (no `|`: it goes in a markdown table). */
export function describeWaves(requests: readonly CapturedRequest[]): string {
  return byWave(requests)
    .map((wave) => wave.map((request) => request.operation).join(', '))
    .join(' → ');
}

/** The requests grouped by the wave they were sent in, first wave first. */
export function byWave(requests: readonly CapturedRequest[]): CapturedRequest[][] {
  const waves: CapturedRequest[][] = [];
  for (const request of requests) (waves[request.wave - 1] ??= []).push(request);
  return waves.filter(Boolean);
}
