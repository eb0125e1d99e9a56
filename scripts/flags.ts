import { type ParseArgsConfig, parseArgs } from 'node:util';

/** parseArgs for a script's command line: an unknown flag or a value it will not take is one line and exit 1, not a stack. */
export function parseFlags<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    if (!String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) throw error;
    console.error((error as Error).message);
    process.exit(1);
  }
}
