/**
 * Fails when src/graphql/generated is not what `npm run codegen` makes from schema.graphql
 * today: generates into a temporary copy and compares.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const target = 'src/graphql/generated/resolvers-types.ts';
const dir = mkdtempSync(join(tmpdir(), 'codegen-'));
try {
  const config = readFileSync('codegen.yml', 'utf8').replace(`${target}:`, `${join(dir, 'out.ts')}:`);
  const configPath = join(dir, 'codegen.yml');
  writeFileSync(configPath, config);
  execFileSync('npx', ['graphql-codegen', '--config', configPath, '--silent'], { stdio: 'inherit' });
  const fresh = readFileSync(join(dir, 'out.ts'), 'utf8');
  const committed = readFileSync(target, 'utf8');
  if (fresh !== committed) {
    console.error(`${target} is stale: run \`npm run codegen\` and commit the result.`);
    process.exit(1);
  }
  console.log('generated code is current');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
