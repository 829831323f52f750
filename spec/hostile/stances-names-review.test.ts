/**
 * Hostile review of span stances and file types (operators/action/stances.ts, names.ts): a symptom
 * after a comma is still no advice, "check for X" does not recommend X, and a glob of every folder
 * still names its file type.
 */
import { describe, it, expect } from '@jest/globals';
import { matchAction } from '../../operators/action/index.js';
import { spanStances } from '../../operators/action/stances.js';
import { call, info, kb } from '../helpers/action.js';

const stance = (text: string): string[] => spanStances(text).map((x) => `${x.span}:${x.recommended ? 'do' : '-'}`);

describe('what a note says of a span', () => {
  it('keeps a symptom after a comma a symptom, unless the comma closes a condition', () => {
    expect(stance('The deploy failed, with `ECONNREFUSED` in the log.')).toEqual(['ECONNREFUSED:-']);
    expect(stance('It crashes on start, always with `SIGSEGV`.')).toEqual(['SIGSEGV:-']);
    expect(stance('If the import fails, try `pip install -U pip`.')).toEqual(['pip install -U pip:do']);
  });

  it('does not take "check for" a span as running or writing it', () => {
    expect(stance('Check for `console.log` before committing.')).toEqual(['console.log:-']);
    expect(stance('First check `docker compose ps`.')).toEqual(['docker compose ps:do']);
  });
});

describe('a glob in a note', () => {
  const types = (title: string, file_path: string): string[] =>
    matchAction(
      kb({ 'n.md': `---\nid: lrn-n\ntitle: "${title}"\n---\nBody.\n` }),
      call('Edit', { file_path, old_string: 'a', new_string: 'b' }),
      '/home/dev/app',
      { info, threshold: 0 },
    )
      .flatMap((x) => x.why)
      .filter((w) => w.startsWith('type:'));

  it('of every folder names the file type; of a folder at any depth does not', () => {
    expect(types('Every **/*.tf change needs terraform fmt', '/home/dev/app/infra/main.tf')).toEqual(['type:.tf']);
    expect(types('Strict null checks in src/**/*.ts', '/home/dev/app/lib/x.ts')).toEqual([]);
  });
});
