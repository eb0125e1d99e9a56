/**
 * `npx tsx bench/sdk-call.ts` (alone; not part of `npm run bench`): the CPU one DynamoDB call costs the SDK itself,
 * with a request handler that answers at once (no network, no engine), for three configurations of the client:
 * - the SDK's defaults, as the benchmark's replay runs them;
 * - with the service's `sha256` (HMAC keys as KeyObjects, see src/stores/dynamo/signing.ts);
 * - with that and one signer a client (`reuseSigner`).
 * Each call carries an abort signal, as the service's do. The three alternate in rounds; medians of the rounds. First,
 * what one HMAC costs Node keyed with bytes, as the SDK keys it, and with a KeyObject.
 */
import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { DynamoDBClient, GetItemCommand, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { SigningSha256, reuseSigner } from '../src/stores/dynamo/signing.js';
import { median } from './loops.js';

const ROUNDS = 7;
const CALLS = 4_000;
const ANSWER = Buffer.from(JSON.stringify({ Item: { pk: { S: 'a' }, sk: { S: 'b' } } }));

function client(config: Partial<DynamoDBClientConfig>, reused: boolean): DynamoDBClient {
  const made = new DynamoDBClient({
    region: 'eu-west-1',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
    requestHandler: {
      // The SDK takes any object with a status code and headers as a response.
      handle: async () => ({
        response: {
          statusCode: 200,
          headers: { 'content-type': 'application/x-amz-json-1.0' },
          body: new Blob([ANSWER]).stream(),
        },
      }),
    },
    ...config,
  });
  if (reused) reuseSigner(made);
  return made;
}

const sides = [
  { name: "the SDK's defaults", client: client({}, false), perCallUs: [] as number[] },
  { name: 'HMAC keys as KeyObjects', client: client({ sha256: SigningSha256 }, false), perCallUs: [] as number[] },
  { name: 'and one signer', client: client({ sha256: SigningSha256 }, true), perCallUs: [] as number[] },
];

async function calls(target: DynamoDBClient, count: number): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const command = new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' }, sk: { S: 'b' } } });
    const answer = await target.send(command, { abortSignal: new AbortController().signal });
    if (answer.Item?.sk?.S !== 'b') throw new Error('the call did not read its answer');
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / count;
}

/** CPU µs one HMAC of a string to sign takes with `key`, median of the rounds. */
function hmacUs(key: Uint8Array | ReturnType<typeof createSecretKey>): number {
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.cpuUsage();
    for (let i = 0; i < CALLS * 5; i++) createHmac('sha256', key).update('AWS4-HMAC-SHA256\n20261129T000000Z').digest();
    const used = process.cpuUsage(started);
    rounds.push((used.user + used.system) / (CALLS * 5));
  }
  return median(rounds);
}
const signingKey = new Uint8Array(randomBytes(32));
console.log(
  `one HMAC, Node ${process.versions.node}: ${hmacUs(signingKey).toFixed(1)} µs keyed with bytes, ` +
    `${hmacUs(createSecretKey(signingKey)).toFixed(1)} µs with a KeyObject`,
);

for (const side of sides) await calls(side.client, CALLS);
for (let round = 0; round < ROUNDS; round++)
  for (let i = 0; i < sides.length; i++) {
    const side = sides[(round + i) % sides.length]!;
    side.perCallUs.push(await calls(side.client, CALLS));
  }
const base = median(sides[0]!.perCallUs);
console.log(`| client (Node ${process.versions.node}) | CPU µs a call, median of ${ROUNDS} | ÷ defaults |`);
console.log('|---|---:|---:|');
for (const side of sides) {
  const us = median(side.perCallUs);
  console.log(`| ${side.name} | ${us.toFixed(1)} | ${(us / base).toFixed(2)}× |`);
}
for (const side of sides) side.client.destroy();
