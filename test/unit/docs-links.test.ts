import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

/** README.md and every page under docs/. */
const pages = [
  'README.md',
  ...readdirSync('docs', { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => join('docs', file)),
];

/** Markdown without what is not rendered as links: fenced blocks, inline code, HTML comments. */
function prose(markdown: string): string {
  return markdown
    .replace(/^```[\s\S]*?^```/gm, '')
    .replace(/`[^`\n]*`/g, '')
    .replace(/<!--[\s\S]*?-->/g, '');
}

/** The targets of a page's inline links, `[text](target)`. */
function linkTargets(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]!);
}

/** The anchors GitHub gives a page's headings (as github-slugger makes them). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const text = heading!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*_]/g, (c) => (c === '_' ? c : ''));
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

function brokenLinks(page: string, markdown = readFileSync(page, 'utf8')): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(markdown)) {
    if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    const [path = '', anchor] = target.split('#');
    const file = path === '' ? page : normalize(join(dirname(page), decodeURIComponent(path)));
    const headings = () => (file === page ? markdown : readFileSync(file, 'utf8'));
    if (!existsSync(file)) {
      broken.push(`${target}: no file ${file}`);
      continue;
    }
    if (anchor === undefined) continue;
    if (statSync(file).isDirectory() || !file.endsWith('.md'))
      broken.push(`${target}: an anchor into ${file}, which has no headings`);
    else if (!anchors(headings()).has(anchor)) broken.push(`${target}: ${file} has no heading #${anchor}`);
  }
  return broken;
}

describe('the docs', () => {
  it('are README.md and the pages under docs/', () => {
    expect(pages).toEqual(expect.arrayContaining(['README.md', join('docs', 'architecture.md')]));
  });

  it.each(pages)('%s links only to files and headings that exist', (page) => {
    expect(brokenLinks(page)).toEqual([]);
  });

  it('finds a link that leads nowhere, and an anchor that names no heading', () => {
    const page = join('docs', 'architecture.md');
    const markdown =
      '# Here\n[a](design/cache.md#cost), [b](#here), [c](design/none.md), [d](design/cache.md#none), [e](#nowhere), `[f](none.md)`';
    expect(brokenLinks(page, markdown)).toEqual([
      'design/none.md: no file docs/design/none.md',
      'design/cache.md#none: docs/design/cache.md has no heading #none',
      '#nowhere: docs/architecture.md has no heading #nowhere',
    ]);
    expect(
      anchors(
        '# Title\n## The read pipeline\n## Relation sets (embedded backend)\n## `code` and *stress*\n## Twice\n## Twice',
      ),
    ).toEqual(
      new Set(['title', 'the-read-pipeline', 'relation-sets-embedded-backend', 'code-and-stress', 'twice', 'twice-1']),
    );
  });
});
