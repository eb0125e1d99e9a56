/**
 * Issue 34's first goal: the CPU a home page costs the service, against the CPU a bare SDK client spends making
 * exactly that page's store requests. The requests are captured from a real page through a loopback proxy, then
 * replayed from this process. A third side serves the same page from memory with Apollo Server
 * (bench/apollo-floor-server.ts): the least any service on it spends besides its store calls. The three run in
 * rotating windows of the same run.
 */
import * as dynamodb from '@aws-sdk/client-dynamodb';
import { type IncomingMessage, type ServerResponse, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../src/stores/dynamo/embedded-engine.js';
import { CpuMeter } from './cpu.js';
import { fetchPage, pageRequest } from './home-vs-floor.js';
import { type Summary, round, runLoops, summarize, type Window } from './loops.js';
import { type Service, startService, stopService } from './service.js';

export const CPU_GOAL = 1.5;

export interface CapturedRequest {
  /** The DynamoDB operation, as `X-Amz-Target` names it (`Query`, `BatchGetItem`, ...). */
  operation: string;
  input: Record<string, unknown>;
}

/** A loopback proxy to the engine that records the requests passing through while `recording` is on. */
export async function captureProxy(engineEndpoint: string) {
  const engine = new URL(engineEndpoint);
  const captured: CapturedRequest[] = [];
  let recording = false;
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const target = String(incoming.headers['x-amz-target'] ?? '');
      if (recording && target)
        captured.push({
          operation: target.slice(target.indexOf('.') + 1),
          input: JSON.parse(body.toString('utf8')) as Record<string, unknown>,
        });
      const forwarded = httpRequest(
        {
          host: engine.hostname,
          port: engine.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 500, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forwarded.on('error', () => outgoing.destroy());
      forwarded.end(body);
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** The requests `run` sends through the proxy. */
    async record(run: () => Promise<void>): Promise<CapturedRequest[]> {
      captured.length = 0;
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

/** The captured requests, sent again by a bare low-level client: all at once, as a page's waves are no CPU of their own. */
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
  const commands = requests.map(({ operation, input }) => {
    const Command = (dynamodb as unknown as Record<string, new (input: unknown) => dynamodb.ScanCommand>)[
      `${operation}Command`
    ];
    if (!Command) throw new Error(`no command for the captured operation ${operation}`);
    return () => new Command(input);
  });
  return {
    replay: async () => {
      await Promise.all(commands.map((command) => client.send(command())));
    },
    close: () => client.destroy(),
  };
}

/**
 * Service CPU per page against the replay's client CPU and against the page served from memory by Apollo Server
 * (`floor`), one connection, in `rounds` windows each, the sides' order turning every round.
 */
export async function cpuPerPage(options: {
  page: () => Promise<void>;
  replay: () => Promise<void>;
  serviceCpu: CpuMeter;
  floor: { page: () => Promise<void>; cpu: CpuMeter };
  requests: readonly CapturedRequest[];
  plan: { warmupS: number; seconds: number; rounds: number };
}) {
  const sides = {
    page: { run: options.page, cpu: options.serviceCpu, windows: [] as Window[] },
    replay: { run: options.replay, cpu: new CpuMeter({}), windows: [] as Window[] },
    floor: { run: options.floor.page, cpu: options.floor.cpu, windows: [] as Window[] },
  };
  const order = Object.values(sides);
  for (const side of order) await runLoops(1, options.plan.warmupS, side.run, side.cpu);
  for (let round = 0; round < options.plan.rounds; round++) {
    const seconds = options.plan.seconds / options.plan.rounds;
    for (let i = 0; i < order.length; i++) {
      const side = order[(round + i) % order.length]!;
      side.windows.push(await runLoops(1, seconds, side.run, side.cpu));
    }
  }
  const page: Summary = summarize(1, sides.page.windows);
  const replay: Summary = summarize(1, sides.replay.windows);
  const floor: Summary = summarize(1, sides.floor.windows);
  const serviceMs = page.cpuMsPerOperation.service ?? null;
  const clientMs = replay.cpuMsPerOperation.client ?? null;
  const floorMs = floor.cpuMsPerOperation.floor ?? null;
  const ratio = serviceMs === null || clientMs === null ? null : round(serviceMs / clientMs, 2);
  return {
    page,
    replay,
    floor,
    requests: options.requests.map((request) => request.operation),
    serviceCpuMsPerPage: serviceMs,
    clientCpuMsPerReplay: clientMs,
    apolloFloorCpuMsPerPage: floorMs,
    /** What the service spends beyond the store requests' client CPU and Apollo Server's floor. */
    remainderCpuMsPerPage:
      serviceMs === null || clientMs === null || floorMs === null ? null : round(serviceMs - clientMs - floorMs, 2),
    ratio,
    goal: `service CPU per page ≤ ${CPU_GOAL}× a bare client's CPU for the same requests`,
    met: ratio !== null && ratio <= CPU_GOAL,
  };
}
