import { type AddressInfo, connect, createServer } from 'node:net';

const TARGET = /x-amz-target:\s*DynamoDB_\d+\.(\w+)/gi;

/**
 * A loopback TCP proxy to `target` that holds what its clients send while stalled, as a store that stops answering.
 * `targets` lists the DynamoDB operation of each request that reached it, held or not, in arrival order.
 */
export async function stallingProxy(target: string) {
  const { hostname, port } = new URL(target);
  let stalled = false;
  const held: (() => void)[] = [];
  const targets: string[] = [];
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    client.on('data', (chunk: Buffer) => {
      for (const [, operation] of chunk.toString('latin1').matchAll(TARGET)) targets.push(operation!);
      if (stalled) held.push(() => upstream.write(chunk));
      else upstream.write(chunk);
    });
    upstream.pipe(client);
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      socket.on('error', () => other.destroy());
      socket.on('close', () => other.destroy());
    }
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    targets,
    stall: () => {
      stalled = true;
    },
    resume: () => {
      stalled = false;
      for (const send of held.splice(0)) send();
    },
    close: () => server.close(),
  };
}
