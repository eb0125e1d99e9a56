import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** docs/operations: one example operation per file, shown in the README and opened in GraphiQL's tabs. */
export const OPERATIONS_DIR = fileURLToPath(new URL('../../docs/operations/', import.meta.url));

export interface ExampleOperation {
  /** The file name without `.graphql`, e.g. `sign-up`. */
  name: string;
  /** The operation with its leading description comment, without the variables line. */
  document: string;
  /** The example variables (JSON) from the file's `# Variables:` line; `{}` when it has none. */
  variables: string;
}

const VARIABLES_LINE = /^# Variables: (.*)\n/m;

export function readExampleOperation(file: string): ExampleOperation {
  const text = readFileSync(file, 'utf8');
  const variables = VARIABLES_LINE.exec(text)?.[1] ?? '{}';
  return { name: basename(file, '.graphql'), document: text.replace(VARIABLES_LINE, ''), variables };
}

export function readExampleOperations(dir = OPERATIONS_DIR): ExampleOperation[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.graphql'))
    .sort()
    .map((file) => readExampleOperation(join(dir, file)));
}
