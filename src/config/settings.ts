import { BEHAVIOUR_SETTINGS } from './settings-behaviour.js';
import { PLATFORM_SETTINGS } from './settings-platform.js';

export { type CacheMode, TRENDS_READ_MAX_QUERIES } from './settings-behaviour.js';
export { DYNAMO_TIMEOUT_DEFAULTS, type WriteApi } from './settings-platform.js';

/**
 * Every environment variable the service reads, declared once (name, default, meaning): loadConfig
 * validates them, and docs/reference/configuration.md is generated from them (`npm run docs`).
 */
export const SETTINGS = { ...PLATFORM_SETTINGS, ...BEHAVIOUR_SETTINGS } as const;
