import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { capturingLogger, startTestApp, type TestApp } from '../helpers/app.js';

const REQUEST_TIMEOUT_MS = 1_000;
const HEADERS_TIMEOUT_MS = 500;
const KEEP_ALIVE_TIMEOUT_MS = 300;

const logger = capturingLogger();
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp(
    {
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
    },
    { logger },
  );
});
afterAll(async () => {
  await t.stop();
});

/** A raw loopback connection that records what it receives and when the server closes it. */
interface RawClient {
  socket: Socket;
  received: () => string;
  /** Milliseconds from connecting to the connection's end, or null while it is open. */
  closedAfter: () => number | null;
}

const clients: { socket: Socket; drip?: NodeJS.Timeout }[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) {
    clearInterval(client.drip);
    client.socket.destroy();
  }
});

async function rawClient(): Promise<RawClient> {
  const { hostname, port } = new URL(t.url);
  const socket = connect(Number(port), hostname);
  clients.push({ socket });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const connectedAt = Date.now();
  let received = '';
  let closedAfter: number | null = null;
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  socket.on('error', () => {});
  socket.on('close', () => (closedAfter = Date.now() - connectedAt));
  return { socket, received: () => received, closedAfter: () => closedAfter };
}

/** Writes `chunk` every `everyMs`, like a client that trickles its request to hold the connection. */
function trickle(client: RawClient, chunk: string, everyMs: number): void {
  const drip = setInterval(() => {
    if (!client.socket.destroyed) client.socket.write(chunk);
  }, everyMs);
  clients.push({ socket: client.socket, drip });
}

const clientsGone = () =>
  logger.entries.filter((entry) => entry.msg === 'client went away before sending its whole request').length;
const errorsLogged = () => logger.entries.filter((entry) => entry.level === 'error' || entry.level === 'warn');

describe('HTTP timeouts', () => {
  it('answers 408 and closes a connection whose body trickles in, after HTTP_REQUEST_TIMEOUT_MS', async () => {
    const client = await rawClient();
    const before = clientsGone();
    client.socket.write(
      'POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{',
    );
    // A byte every 100 ms: the connection is never idle, so only the request timeout can end it.
    trickle(client, ' ', 100);
    await vi.waitFor(() => expect(client.closedAfter()).not.toBeNull(), { timeout: 5_000, interval: 50 });
    expect(client.closedAfter()).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    await vi.waitFor(() => expect(clientsGone()).toBe(before + 1));
    expect(errorsLogged()).toEqual([]);
  });

  it('answers 408 and closes a connection whose headers trickle in, after HTTP_HEADERS_TIMEOUT_MS', async () => {
    const client = await rawClient();
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
    trickle(client, 'X-Slow: 1\r\n', 100);
    await vi.waitFor(() => expect(client.closedAfter()).not.toBeNull(), { timeout: 4_000, interval: 50 });
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(errorsLogged()).toEqual([]);
  });

  it('closes an idle keep-alive connection after HTTP_KEEP_ALIVE_TIMEOUT_MS (Node adds a second of grace)', async () => {
    const client = await rawClient();
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await vi.waitFor(() => expect(client.received()).toMatch(/^HTTP\/1\.1 200 [^]*"status":"ok"/), { timeout: 5_000 });
    await vi.waitFor(() => expect(client.closedAfter()).not.toBeNull(), { timeout: 4_000, interval: 50 });
  });

  it('does not log a client that hangs up halfway through its request as an error', async () => {
    const client = await rawClient();
    const before = clientsGone();
    // Node answers "100 Continue" as it hands the request to the service, so the service is reading the body when the client leaves.
    client.socket.write(
      'POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n',
    );
    await vi.waitFor(() => expect(client.received()).toMatch(/^HTTP\/1\.1 100 Continue/));
    client.socket.write('{"query": "{ viewer { id');
    client.socket.destroy();
    await vi.waitFor(() => expect(clientsGone()).toBe(before + 1));
    expect(errorsLogged()).toEqual([]);
  });

  it('still serves ordinary requests', async () => {
    const result = await t.gql('{ viewer { id } }');
    expect(result).toMatchObject({ status: 200, data: { viewer: null } });
  });
});
