import { AppError } from '../../domain/errors.js';

/** For fields that a later issue builds: a clear NOT_IMPLEMENTED error, nothing else. */
export function notImplemented(feature: string): never {
  throw new AppError('NOT_IMPLEMENTED', `${feature} is not implemented yet`);
}
