import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layers of src/, lowest first: a file may import its own layer and those below it, never one
 * above. Paths are relative to src/; a folder ends with '/'.
 */
const LAYERS: { name: string; paths: string[] }[] = [
  { name: 'lib', paths: ['lib/'] },
  { name: 'domain', paths: ['domain/'] },
  // Settings, logging and metering are read by every layer above and read none of them.
  { name: 'config, logger, observability', paths: ['config.ts', 'config/', 'logger.ts', 'observability/'] },
  { name: 'stores', paths: ['stores/'] },
  { name: 'auth', paths: ['auth/'] },
  { name: 'use cases', paths: ['usecases/'] },
  { name: 'graphql, http, worker', paths: ['graphql/', 'http/', 'worker/'] },
  // seed and simulate build on stores, use cases (and a worker) for scripts and the benchmark, as app.ts does for the service.
  {
    name: 'composition and entry points',
    paths: ['app.ts', 'main.ts', 'worker-main.ts', 'process-lifecycle.ts', 'seed/', 'simulate/'],
  },
];

const MAX_LINES = 450;
const MAX_APP_LINES = 150;
/** Written by `npm run codegen`, not by hand: in the import graph, but not held to the size limit. */
const GENERATED = 'graphql/generated/';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
  .map((path) => path.split('\\').join('/'))
  .filter((path) => path.endsWith('.ts'))
  .sort();
const known = new Set(files);
const text = new Map(files.map((file) => [file, readFileSync(join(SRC, file), 'utf8')]));

/** The files of src/ a file imports (import, import type, export from, import()), as paths relative to src/. */
function importsOf(file: string): string[] {
  const specifiers = ts.preProcessFile(text.get(file)!, true, true).importedFiles.map((imported) => imported.fileName);
  const local = specifiers
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) =>
      relative(SRC, join(SRC, dirname(file), specifier))
        .split('\\')
        .join('/'),
    );
  return [...new Set(local.map((path) => path.replace(/\.js$/, '.ts')).filter((path) => known.has(path)))];
}

const imports = new Map(files.map((file) => [file, importsOf(file)]));

function layerOf(file: string): number {
  return LAYERS.findIndex((layer) =>
    layer.paths.some((path) => (path.endsWith('/') ? file.startsWith(path) : file === path)),
  );
}

/** Strongly connected components of more than one file (or a file importing itself): each holds at least one cycle. */
function cycles(): string[][] {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    order.set(file, order.size);
    low.set(file, order.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of imports.get(file)!) {
      if (!order.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, order.get(next)!));
      }
    }
    if (low.get(file) !== order.get(file)) return;
    const component: string[] = [];
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      onStack.delete(member);
      component.push(member);
      if (member === file) break;
    }
    if (component.length > 1 || imports.get(file)!.includes(file)) found.push(component.sort());
  };
  for (const file of files) if (!order.has(file)) visit(file);
  return found;
}

/** One cycle through the component's first file, found breadth first within the component: a → b → … → a. */
function cyclePath(component: string[]): string {
  const members = new Set(component);
  const start = component[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const next of imports.get(file)!.filter((path) => members.has(path))) {
      if (next === start) {
        const path = [start];
        for (let at = file; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start].join(' → ');
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, file);
        queue.push(next);
      }
    }
  }
  return component.join(', ');
}

const lineCount = (file: string) => text.get(file)!.split('\n').length - (text.get(file)!.endsWith('\n') ? 1 : 0);

describe('the architecture of src/', () => {
  it('puts every source file in a layer', () => {
    expect(files.filter((file) => layerOf(file) === -1).map((file) => `src/${file} is in no layer of LAYERS`)).toEqual(
      [],
    );
  });

  it('has no import pointing up a layer', () => {
    const upward = files.flatMap((file) =>
      imports
        .get(file)!
        .filter((target) => layerOf(target) > layerOf(file))
        .map(
          (target) =>
            `src/${file} → src/${target} (${LAYERS[layerOf(file)]?.name} imports ${LAYERS[layerOf(target)]?.name})`,
        ),
    );
    expect(upward).toEqual([]);
  });

  it('has no import cycle', () => {
    const report = (component: string[]) => {
      const path = cyclePath(component).replace(/(^|→ )/g, '$1src/');
      return component.length > path.split(' → ').length - 1
        ? `cycle: ${path}, among ${component.map((file) => `src/${file}`).join(', ')}`
        : `cycle: ${path}`;
    };
    expect(cycles().map(report)).toEqual([]);
  });

  it(`has no source file over ${MAX_LINES} lines (generated code aside)`, () => {
    const long = files.filter((file) => !file.startsWith(GENERATED) && lineCount(file) > MAX_LINES);
    expect(long.map((file) => `src/${file}: ${lineCount(file)} lines`)).toEqual([]);
  });

  it(`keeps src/app.ts, the composition root, within ${MAX_APP_LINES} lines`, () => {
    expect(lineCount('app.ts')).toBeLessThanOrEqual(MAX_APP_LINES);
  });

  it('reads the imports it checks', () => {
    // The parser sees `import type`, re-exports and import(): a test that found no imports would pass vacuously.
    expect(imports.get('app.ts')).toContain('stores/open-stores.ts');
    expect(imports.get('stores/dynamo/graph/dynamo-graph-store.ts')).toContain('config.ts');
    expect(imports.get('config.ts')).toEqual(expect.arrayContaining(['config/settings.ts', 'config/setting-kinds.ts']));
  });
});
