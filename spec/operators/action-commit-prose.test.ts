/**
 * What a commit message or a pull request's text says is prose, not the call's action: a heredoc
 * message (`-m "$(cat <<'EOF' … EOF)"`, as Claude Code writes commits) runs none of its lines, and
 * the words of a message share a topic with a learning no more for this commit than for any other.
 */
import { describe, it, expect } from '@jest/globals';
import { shellCommands } from '../../operators/action/index.js';
import { ids, kb, memory } from '../helpers/action.js';

const heredoc = (message: string): string => `git add -A && git commit -m "$(cat <<'EOF'\n${message}\nEOF\n)" && git push`;

describe('a heredoc inside a command substitution of cat', () => {
  it('is the text of one argument, none of its lines a command', () => {
    expect(shellCommands(heredoc('fix(api): pin rollup\n\nnpm install no longer pulls the musl build.'))).toEqual([
      ['git', 'add', '-A'],
      ['git', 'commit', '-m', 'fix(api): pin rollup npm install no longer pulls the musl build.'],
      ['git', 'push'],
    ]);
    expect(shellCommands(`gh pr create --title "fix: a" --body "$(cat <<EOF\n## Why\nrm -rf is gone\nEOF\n)"`)).toEqual([
      ['gh', 'pr', 'create', '--title', 'fix: a', '--body', '## Why rm -rf is gone'],
    ]);
  });

  it('leaves a heredoc a program reads as its input, and an unterminated one, as written', () => {
    expect(shellCommands('psql "$DB" <<SQL\nALTER TABLE invoices ADD COLUMN region text;\nSQL')).toContainEqual([
      'ALTER',
      'TABLE',
      'invoices',
      'ADD',
      'COLUMN',
      'region',
      'text',
    ]);
    expect(shellCommands(`git commit -m "$(cat <<'EOF'\nfix: a\nnpm publish`)).toContainEqual(['npm', 'publish']);
  });
});

describe('the message of a commit', () => {
  const idx = kb({
    'pnpm.md': memory('pnpm-only', 'Use pnpm, never npm', 'Install with `pnpm add`, never `npm install`.'),
    'grpc.md': memory(
      'grpc-message-size',
      'Big Batch calls failing with ResourceExhausted: MaxRecvMsgSize and max_request_bytes go up together',
      "Raise ingestd's `MaxRecvMsgSize` and Envoy's `max_request_bytes` together when batch size grows.",
      'project',
    ),
  });
  const run = (command: string): string[] => ids(idx, 'Bash', { command, description: 'x' });

  it('gives no learning the words it shares', () => {
    expect(run(heredoc('fix(ingestd): raise MaxRecvMsgSize for big batch size\n\nnpm install no longer needed.'))).toEqual([]);
    expect(run("git commit -m 'fix(ingestd): bound batch size by bytes' -m 'ResourceExhausted on big batches'")).toEqual([]);
    expect(run('gh pr create -t "ingestd: raise MaxRecvMsgSize" -b "max_request_bytes goes up too"')).toEqual([]);
  });

  it('while what the call runs still does', () => {
    expect(run('npm install zod')).toEqual(['pnpm-only']);
  });
});
