import { createHash, createHmac } from 'node:crypto';
import { DynamoDBClient, GetItemCommand, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { clearCredentialCache } from '@smithy/signature-v4';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SigningSha256, reuseSigner } from '../../src/stores/dynamo/signing.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

async function digestOf(secret: string | Uint8Array | ArrayBuffer | undefined, ...parts: string[]) {
  const hash = new SigningSha256(secret);
  for (const part of parts) hash.update(Buffer.from(part));
  return hex(await hash.digest());
}

const SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';

type SignerFactory = DynamoDBClient['config']['signer'];

/**
 * The Authorization headers a client signs `requests` GetItems with, taken before they are sent. Its signing key is
 * derived anew: the SDK keeps signing keys in a cache that every client of the process shares.
 */
async function authorizations(
  config: Partial<DynamoDBClientConfig>,
  { reused = false, requests = 1, factory = (build: SignerFactory): SignerFactory => build } = {},
): Promise<string[]> {
  clearCredentialCache();
  const seen: string[] = [];
  const client = new DynamoDBClient({
    region: 'eu-west-1',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: SECRET },
    maxAttempts: 1,
    requestHandler: {
      handle: async (request: { headers: Record<string, string> }) => {
        seen.push(request.headers.authorization ?? '');
        throw new Error('not sent');
      },
    },
    ...config,
  });
  client.config.signer = factory(client.config.signer);
  if (reused) reuseSigner(client);
  for (let i = 0; i < requests; i++)
    await client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } })).catch(() => {});
  client.destroy();
  return seen;
}

const authorization = async (config: Partial<DynamoDBClientConfig>) => (await authorizations(config))[0];

/** The date and the invocation id are signed too: both fixed, so that two clients' signatures compare. */
function fixSignedValues() {
  vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-29T01:02:03Z') });
  vi.spyOn(globalThis.crypto, 'randomUUID').mockReturnValue('00000000-0000-4000-8000-000000000000');
}

describe('the SHA-256 the DynamoDB client signs with', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('hashes and keys HMACs as node:crypto does, whatever form the key takes, key after key', async () => {
    const key = new Uint8Array([1, 2, 3, 4]);
    const expected = createHmac('sha256', Buffer.from(key)).update('ab').digest('hex');
    expect(await digestOf(key, 'a', 'b')).toBe(expected);
    expect(await digestOf(key, 'ab')).toBe(expected);
    expect(await digestOf(key.buffer, 'ab')).toBe(expected);
    expect(await digestOf(new Uint8Array([9]), 'ab')).toBe(
      createHmac('sha256', Buffer.from([9]))
        .update('ab')
        .digest('hex'),
    );
    expect(await digestOf('secret', 'ab')).toBe(createHmac('sha256', 'secret').update('ab').digest('hex'));
    expect(await digestOf(undefined, 'ab')).toBe(createHash('sha256').update('ab').digest('hex'));
    expect(await digestOf('', 'ab')).toBe(createHash('sha256').update('ab').digest('hex'));
  });

  it('starts again after reset, and refuses more data once an HMAC is digested', async () => {
    const hash = new SigningSha256('secret');
    hash.update(Buffer.from('x'));
    await hash.digest();
    expect(() => hash.update(Buffer.from('y'))).toThrow(/finished/);
    hash.reset();
    hash.update(Buffer.from('ab'));
    expect(hex(await hash.digest())).toBe(createHmac('sha256', 'secret').update('ab').digest('hex'));
  });

  it('makes the signature the SDK makes with its own', async () => {
    fixSignedValues();
    const own = await authorization({});
    const ours = await authorization({ sha256: SigningSha256 });
    expect(own).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20261129\/eu-west-1\/dynamodb\/aws4_request, .*Signature=[0-9a-f]{64}$/,
    );
    expect(ours).toBe(own);
  });
});

describe('a signer reused from request to request', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('signs each request as a signer made for it would', async () => {
    fixSignedValues();
    const own = await authorizations({}, { requests: 3 });
    expect(new Set(own).size).toBe(1);
    expect(await authorizations({ sha256: SigningSha256 }, { reused: true, requests: 3 })).toEqual(own);
  });

  it('signs with the credentials the provider gives at each request', async () => {
    fixSignedValues();
    const signedWith = async (reused: boolean) => {
      let served = 0;
      // Expiring within the SDK's five-minute margin: asked for again at every request.
      const rotating = async () => ({
        accessKeyId: `AKID${++served}`,
        secretAccessKey: SECRET,
        expiration: new Date(Date.now() + 60_000),
      });
      const signed = await authorizations({ credentials: rotating }, { reused, requests: 2 });
      return signed.map((header) => /Credential=(\w+)\//.exec(header)?.[1]);
    };
    const own = await signedWith(false);
    expect(own[0]).not.toBe(own[1]);
    expect(await signedWith(true)).toEqual(own);
  });

  it('builds one signer for all requests, and builds again after its factory failed', async () => {
    let builds = 0;
    const failingOnce = (build: SignerFactory): SignerFactory => {
      return (authScheme) => {
        builds += 1;
        return builds === 1 ? Promise.reject(new Error('no region yet')) : build(authScheme);
      };
    };
    const signed = await authorizations({ sha256: SigningSha256 }, { reused: true, requests: 4, factory: failingOnce });
    expect(builds).toBe(2);
    expect(signed).toHaveLength(3);
  });
});
