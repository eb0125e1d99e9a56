/**
 * Fails when a generated file is not what `npm run codegen` makes from codegen.yml today (the
 * resolver types in src/graphql/generated, the client examples' typed documents in
 * examples/generated), or when a generated folder holds a file codegen no longer makes.
 * Generates in memory and compares; writes nothing.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { generate, loadCodegenConfig } from '@graphql-codegen/cli';

const { config } = await loadCodegenConfig({ configFilePath: 'codegen.yml' });
// `generate` is typed loosely (its watch mode returns nothing); without saving, it returns the files.
const outputs = (await generate({ ...config, silent: true }, false)) as { filename: string; content: string }[];
const made = new Map(outputs.map((output) => [resolve(output.filename), output.content]));

const stale: string[] = [];
for (const [file, content] of made) {
  if (!existsSync(file) || readFileSync(file, 'utf8') !== content) stale.push(relative('.', file));
}
for (const target of Object.keys(config.generates)) {
  if (!target.endsWith('/') || !existsSync(target)) continue;
  for (const file of readdirSync(target)) if (!made.has(resolve(join(target, file)))) stale.push(join(target, file));
}

if (stale.length > 0) {
  console.error(`stale generated code: ${stale.join(', ')}. Run \`npm run codegen\` and commit the result.`);
  process.exit(1);
}
console.log('generated code is current');
