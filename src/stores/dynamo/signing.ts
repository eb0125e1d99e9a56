import {
  type BinaryLike,
  type Hash,
  type Hmac,
  type KeyObject,
  createHash,
  createHmac,
  createSecretKey,
} from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** What the SDK hashes or keys an HMAC with. */
type SourceData = string | ArrayBuffer | ArrayBufferView;

/**
 * Keys as KeyObjects, by the bytes object the SDK holds: its signers share one signing key a day (a module-wide cache),
 * a fresh digest it never writes to. A string key goes as it is: Node's slow check is for objects only.
 */
const keyObjects = new WeakMap<object, KeyObject>();

function keyOf(secret: SourceData): string | KeyObject {
  if (typeof secret === 'string') return secret;
  let key = keyObjects.get(secret);
  if (!key) {
    const bytes = ArrayBuffer.isView(secret)
      ? Buffer.from(secret.buffer, secret.byteOffset, secret.byteLength)
      : Buffer.from(secret);
    key = createSecretKey(bytes);
    keyObjects.set(secret, key);
  }
  return key;
}

/**
 * The SDK's SHA-256 (config `sha256`), with an HMAC key given to Node as a KeyObject. Node 24 spends about 20 µs
 * checking whether a key given as bytes is a KeyObject; the signer makes an HMAC of each request with its signing key.
 */
export class SigningSha256 {
  /** As the SDK's own: an empty secret makes a plain hash. */
  private readonly key: string | KeyObject | null;
  private hash: Hash | Hmac;
  private finished = false;

  constructor(secret?: SourceData) {
    this.key = secret ? keyOf(secret) : null;
    this.hash = this.start();
  }

  update(data: BinaryLike): void {
    if (this.finished) throw new Error('Attempted to update an already finished hash.');
    this.hash.update(data);
  }

  async digest(): Promise<Uint8Array> {
    // An HMAC cannot be copied: it is finished by its digest, as the SDK's own is.
    let digest: Buffer;
    if (this.key === null) {
      digest = (this.hash as Hash).copy().digest();
    } else {
      this.finished = true;
      digest = this.hash.digest();
    }
    return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
  }

  reset(): void {
    this.hash = this.start();
    this.finished = false;
  }

  private start(): Hash | Hmac {
    return this.key === null ? createHash('sha256') : createHmac('sha256', this.key);
  }
}

type SignerFactory = DynamoDBClient['config']['signer'];

/**
 * Makes the client's signer once per auth scheme instead of once per request: the SDK's factory spreads the whole
 * client configuration and builds a new signer each time. The signer asks the client's credentials provider at every
 * signature, so credentials that rotate still do.
 */
export function reuseSigner(client: DynamoDBClient): void {
  const build: SignerFactory = client.config.signer;
  const signers = new Map<string, ReturnType<SignerFactory>>();
  client.config.signer = (authScheme) => {
    const key = JSON.stringify(authScheme ?? null);
    let signer = signers.get(key);
    if (!signer) {
      signer = build(authScheme);
      signers.set(key, signer);
      // A factory that failed (a region provider that threw) is asked again next time.
      signer.catch(() => {
        if (signers.get(key) === signer) signers.delete(key);
      });
    }
    return signer;
  };
}
