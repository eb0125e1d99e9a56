/**
 * Errors that the use cases raise on purpose. The GraphQL layer turns them into
 * GraphQL errors with a stable `extensions.code`; anything else is an internal error
 * and is masked for clients.
 */
export const ERROR_CODES = [
  'BAD_USER_INPUT',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'HANDLE_TAKEN',
  'RATE_LIMITED',
  'QUERY_TOO_EXPENSIVE',
  'BUDGET_EXCEEDED',
  'SERVICE_UNAVAILABLE',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export function badInput(field: string, message: string): AppError {
  return new AppError('BAD_USER_INPUT', `${field}: ${message}`, { field });
}

export function notFound(what: string, id: string): AppError {
  return new AppError('NOT_FOUND', `${what} ${id} does not exist`, { id });
}

export function unauthenticated(message = 'Sign in to do this'): AppError {
  return new AppError('UNAUTHENTICATED', message);
}

export function handleTaken(handle: string): AppError {
  return new AppError('HANDLE_TAKEN', `The handle "${handle}" is taken`, { field: 'handle' });
}

export function forbidden(message: string): AppError {
  return new AppError('FORBIDDEN', message);
}

/** Refused until `retryAfterSeconds` have passed (too many failed password checks, by default). */
export function rateLimited(retryAfterSeconds: number, why = 'Too many failed attempts'): AppError {
  return new AppError('RATE_LIMITED', `${why}: try again in ${retryAfterSeconds} s`, { retryAfterSeconds });
}

/** How long a client is asked to wait before retrying what a dependency's outage failed. */
export const RETRY_AFTER_SECONDS = 1;

/** A store the operation needs did not answer within its deadline, or could not be reached: nothing else was wrong, so a retry may pass. */
export function serviceUnavailable(cause?: unknown): AppError {
  const error = new AppError('SERVICE_UNAVAILABLE', 'A store did not answer in time: try again shortly', {
    retryAfterSeconds: RETRY_AFTER_SECONDS,
  });
  if (cause !== undefined) error.cause = cause;
  return error;
}

/** Whether an error is a dependency's outage (as serviceUnavailable makes), not a refusal or a bug. */
export function isServiceUnavailable(error: unknown): boolean {
  return error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE';
}
