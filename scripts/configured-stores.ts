/** The stores of the configured DynamoDB (the embedded one by default), as the maintenance scripts open them. */
import { type OpenStores, openStores } from '../src/stores/open-stores.js';
import { type Config, ConfigError, loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';

/** A script's bulk reads and writes are not a client's request: they may wait on a busy engine (the environment may still set them). */
export const SCRIPT_TIMEOUTS = { DYNAMODB_ATTEMPT_TIMEOUT_MS: '60000', DYNAMODB_TIMEOUT_MS: '180000' };

/** Opens the stores the environment configures, with that configuration; a configuration error is printed and the process exits 1. */
export async function openConfiguredStores(): Promise<OpenStores & { config: Config }> {
  let config;
  try {
    config = loadConfig({ ...SCRIPT_TIMEOUTS, ...process.env });
  } catch (error) {
    console.error(error instanceof ConfigError ? error.message : error);
    process.exit(1);
  }
  return Object.assign(await openStores({ config, logger: createLogger('warn') }), { config });
}
