/**
 * Every relative link in README.md and docs/ resolves: the file or folder exists, and a
 * `#anchor` names a heading of the target as GitHub renders it (lower case, punctuation
 * dropped, spaces as hyphens, a repeated heading's anchor suffixed -1, -2, ...).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOC_FILES, ROOT } from '../helpers/docs.js';

/** GitHub's heading anchors for a Markdown file (headings inside code fences are not headings). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    const m = !fence && /^#{1,6} (.+)$/.exec(line);
    if (!m) continue;
    const slug = m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** Inline links and images outside code, with the line they are on. */
function links(markdown: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  let fence = false;
  markdown.split('\n').forEach((text, i) => {
    if (text.startsWith('```')) fence = !fence;
    if (fence) return;
    for (const m of text.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) out.push({ target: m[1]!, line: i + 1 });
  });
  return out;
}

describe('documentation links', () => {
  it('covers the README and the topic files', () => {
    expect(DOC_FILES).toContain('README.md');
    expect(DOC_FILES.filter((f) => f.startsWith('docs/')).length).toBeGreaterThanOrEqual(8);
  });

  it.each(DOC_FILES)('%s: every relative link and anchor resolves', (file) => {
    const broken: string[] = [];
    for (const { target, line } of links(readFileSync(join(ROOT, file), 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: and the like
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const resolved = path ? normalize(join(dirname(join(ROOT, file)), decodeURIComponent(path))) : join(ROOT, file);
      if (!resolved.startsWith(ROOT) || !existsSync(resolved)) {
        broken.push(`${file}:${line}: ${target} (no such file)`);
      } else if (anchor !== undefined) {
        const isFile = statSync(resolved).isFile() && resolved.endsWith('.md');
        if (!isFile || !anchors(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${file}:${line}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
