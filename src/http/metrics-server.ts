import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';
import { serveMetrics } from './server.js';

/**
 * The standalone worker's only HTTP endpoint: GET /metrics, so that Prometheus scrapes each
 * worker process as it scrapes each API instance (a worker does its work between scrapes, so
 * pushing is not needed). Returns the server and the URL it listens on.
 */
export async function startMetricsServer(
  port: number,
  host: string,
  logger: Logger,
): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('Not found: this worker serves GET /metrics only\n');
      return;
    }
    serveMetrics(response).catch((error: unknown) => {
      logger.error('could not serve metrics', { error });
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { server, url: `http://${shownHost}:${address.port}/metrics` };
}
