/**
 * The README is the front door (issue 38): short, the Claude Code install from a clone on its first
 * screen, the test command CI runs, a link to every docs page and to CONTRIBUTING.md; and every
 * relative link of the README, CONTRIBUTING.md and docs/ names a file that exists and, with a
 * `#fragment`, one of its headings, so a moved section shows up here and not as a reader's 404.
 */
import { describe, it, expect } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { DOC_FILES, readDoc, repo, shLines } from '../helpers/docs.js';

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a markdown file's headings (outside code blocks). */
function anchors(text: string): Set<string> {
  const out = new Set<string>();
  for (const block of text.split(/^\s*```.*$/m).filter((_, i) => i % 2 === 0))
    for (const m of block.matchAll(/^#{1,6} (.+)$/gm)) out.add(anchor(m[1]!));
  return out;
}

describe('the README is the front door', () => {
  const readmeText = readDoc('README.md');

  it('is at most 250 lines, and says how to install into Claude Code from a clone in its first 60', () => {
    const lines = readmeText.split('\n');
    expect(lines.length).toBeLessThanOrEqual(250);
    const head = lines.slice(0, 60).join('\n');
    expect(head).toMatch(/^## Install into Claude Code$/m);
    expect(head).toContain('From a clone');
    expect(head).toContain('claude plugin marketplace add ./dist/plugin');
  });

  it('names the test command CI runs (.ci/run runs `npm test`)', () => {
    expect(fs.readFileSync(path.join(repo, '.ci', 'run'), 'utf8')).toMatch(/^npm test$/m);
    expect(shLines(readmeText)).toContain('npm test');
  });

  it('links every docs page and CONTRIBUTING.md', () => {
    const linked = new Set([...readmeText.matchAll(/\]\(((?:docs\/)?[A-Za-z-]+\.md)(#[^)]*)?\)/g)].map((m) => m[1]));
    const pages = DOC_FILES.filter((f) => f !== 'README.md');
    expect(pages.filter((f) => !linked.has(f))).toEqual([]);
  });

  it('every relative link of the README, CONTRIBUTING.md and docs/ names a file that exists, and a heading of it', () => {
    const broken: string[] = [];
    for (const file of DOC_FILES) {
      const text = readDoc(file);
      const prose = text
        .split(/^\s*```.*$/m)
        .filter((_, i) => i % 2 === 0)
        .join('\n');
      for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        const [rel, hash] = target.split('#') as [string, string | undefined];
        const to = rel ? path.join(path.dirname(path.join(repo, file)), rel) : path.join(repo, file);
        if (!fs.existsSync(to)) broken.push(`${file}: ${target} (no such file)`);
        else if (hash !== undefined && to.endsWith('.md') && !anchors(fs.readFileSync(to, 'utf8')).has(hash))
          broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
