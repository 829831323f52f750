/**
 * The project's documentation files and their ```sh lines, shared by the spec that runs those lines
 * (spec/cli/readme.e2e.test.ts) and the one that checks the README links every page
 * (spec/cli/docs-front-door.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The documentation files, in the order their commands run (a docs page's commands may build on an earlier page's). */
export const DOC_FILES = [
  'README.md',
  'CONTRIBUTING.md',
  ...fs
    .readdirSync(path.join(repo, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

/** A documentation file's text. */
export function readDoc(file: string): string {
  return fs.readFileSync(path.join(repo, file), 'utf8');
}

/** Lines of ```sh blocks, comments after two spaces removed. */
export function shLines(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const raw of m[1]!.split('\n')) {
      const line = raw.replace(/\s{2,}#.*$/, '').trim();
      if (line && !line.startsWith('#')) out.push(line);
    }
  }
  return out;
}
