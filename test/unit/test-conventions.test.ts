import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const TEST = fileURLToPath(new URL('../', import.meta.url));
const everyFile = readdirSync(TEST, { recursive: true, encoding: 'utf8' })
  .map((path) => path.split('\\').join('/'))
  .filter((path) => path.endsWith('.ts'))
  .sort()
  .map((name) => ({ name, text: readFileSync(`${TEST}${name}`, 'utf8') }));
const apiTests = everyFile.filter((file) => file.name.startsWith('api/') && file.name.endsWith('.test.ts'));

/** Whether the file reads or writes stored items: item commands, key builders, or a scan of the table (not only the table's name). */
function reachesItems(text: string): boolean {
  const imports = ts.preProcessFile(text, true, false).importedFiles.map((imported) => imported.fileName);
  if (imports.some((path) => path === '@aws-sdk/lib-dynamodb' || path.endsWith('/helpers/table.js'))) return true;
  return /import \{[^}]*\b(keys|partitions)\b[^}]*\} from '[./]+\/src\/stores\/dynamo\/keys\.js'/.test(text);
}

describe('tests', () => {
  it('of the API that look at stored items group those tests in a "stored items: …" block (docs/testing.md)', () => {
    const unmarked = apiTests
      .filter((file) => reachesItems(file.text) && !/describe\(\s*['"`]stored items: /.test(file.text))
      .map((file) => file.name);
    expect(unmarked).toEqual([]);
  });

  it('wait with expect.poll or vi.waitFor, not a loop of their own around a sleep', () => {
    const sleeping = everyFile
      .filter((file) => /while \(Date\.now\(\) < /.test(file.text) || /\beventually\(/.test(file.text))
      .map((file) => file.name);
    expect(sleeping).toEqual([]);
  });
});
