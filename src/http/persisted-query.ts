import { createHash } from 'node:crypto';

/** How Apollo names a document by its hash: SHA-256, in lowercase hex. */
const SHA256_HEX = /^[0-9a-f]{64}$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Why a request's persisted-query extension (Apollo's automatic persisted queries) is malformed, or
 * null when it is well-formed or absent: a POST's parsed body, or a GET's search string. Apollo itself
 * answers these with uncoded errors, which would be masked and logged as internal ones.
 */
export function persistedQueryProblem(body: unknown, search: URLSearchParams): string | null {
  if (isRecord(body)) return problemOf(body.extensions, body.query);
  const extensions = search.get('extensions');
  if (body !== undefined || extensions === null) return null;
  try {
    return problemOf(JSON.parse(extensions), search.get('query') ?? undefined);
  } catch {
    // Apollo refuses extensions that are not JSON, with a code of its own.
    return null;
  }
}

function problemOf(extensions: unknown, query: unknown): string | null {
  // Apollo ignores a falsy persistedQuery; so does this check.
  if (!isRecord(extensions) || !extensions.persistedQuery) return null;
  const persisted = extensions.persistedQuery;
  if (!isRecord(persisted)) return 'extensions.persistedQuery must be an object { version: 1, sha256Hash }';
  if (persisted.version !== 1)
    return 'extensions.persistedQuery.version must be 1, the only version this server supports';
  const hash = persisted.sha256Hash;
  if (typeof hash !== 'string' || !SHA256_HEX.test(hash))
    return 'extensions.persistedQuery.sha256Hash must be the SHA-256 of the query in 64 lowercase hexadecimal digits';
  if (typeof query === 'string' && createHash('sha256').update(query).digest('hex') !== hash)
    return 'extensions.persistedQuery.sha256Hash is not the SHA-256 of the query sent with it';
  return null;
}
