/**
 * The action matcher (operators/action): a tool call against notes' triggers. Precision first: a
 * call that only looks, or that shares one word with a note, gives nothing; the command, package,
 * config key or path a note is specifically about gives that note.
 */
import { describe, it, expect } from '@jest/globals';
import { parseNote } from '../../core/note/index.js';
import {
  buildTriggerIndex,
  globRegExp,
  matchAction,
  noteTriggers,
  onlyLooks,
  readToolCall,
  shellCommands,
  type TriggerIndex,
} from '../../operators/action/index.js';

/** Every stem counts as rare: the matcher's own rules, without the English word counts. */
const info = (): number => 1;

function kb(files: Record<string, string>): TriggerIndex {
  const notes = Object.entries(files).map(([rel, text]) => parseNote(text, rel, 'documents'));
  return buildTriggerIndex(notes.map((n) => noteTriggers(n, n.displayId)));
}

const PNPM = `---
name: use-pnpm
description: This repo uses pnpm workspaces; never run npm or yarn, they write a second lockfile
metadata:
  type: feedback
---
Use pnpm for every install: \`pnpm install\`, \`pnpm add zod --filter @acme/contracts\`. Never \`npm install\` or \`yarn add\`.

**How to apply:** whenever adding or updating a dependency, use pnpm with \`--filter\`.
`;
const TERRAFORM = `---
id: lrn-tf-lock
title: "Never force-unlock Terraform state while a CI job holds it"
tags: [terraform, state, locking]
key_insight: "Check the lock's Who/Created before terraform force-unlock; a running apply holds it."
---
Run \`terraform force-unlock <LOCK_ID>\` only after the run named in the lock is confirmed dead.
`;
const EXPLICIT = `---
id: lrn-api-migrations
title: "API migrations run with lock_timeout"
applies_when: ["alembic upgrade", "apps/api/migrations/**"]
key_insight: "Every migration sets lock_timeout."
---
Body.
`;
const REDIS = `---
id: lrn-redis-pool
title: "Redis connection pool exhaustion under burst load"
tags: [redis, connection-pool]
key_insight: "Size max_connections for bursts and set socket_timeout; a full pool blocks callers."
---
Body.
`;

const call = (tool_name: string, tool_input: Record<string, unknown>) => readToolCall({ tool_name, tool_input })!;
const ids = (idx: TriggerIndex, tool: string, input: Record<string, unknown>, cwd = '/home/dev/shop') =>
  matchAction(idx, call(tool, input), cwd, { info }).map((m) => m.id);

describe('matchAction', () => {
  const idx = kb({ 'pnpm.md': PNPM, 'tf.md': TERRAFORM, 'documents/api.md': EXPLICIT, 'documents/redis.md': REDIS });

  it('gives the pnpm rule memory for npm install, npm i and yarn add (the command it names)', () => {
    expect(ids(idx, 'Bash', { command: 'npm install zod@^3.24.1' })).toEqual(['use-pnpm']);
    expect(ids(idx, 'Bash', { command: 'cd packages/contracts && npm i zod' })).toEqual(['use-pnpm']);
    expect(ids(idx, 'Bash', { command: 'yarn add zod' })).toEqual(['use-pnpm']);
  });

  it('gives nothing for calls that only look or run generic things', () => {
    for (const command of [
      'ls -la',
      'git status --short',
      'cat package.json | wc -l',
      'npm outdated',
      'terraform plan -out=tfplan',
      'git log --oneline -5',
    ])
      expect(ids(idx, 'Bash', { command })).toEqual([]);
    expect(ids(idx, 'Read', { file_path: '/home/dev/shop/README.md' })).toEqual([]);
  });

  it('gives the note whose subcommand the call runs, not one that only shares the program', () => {
    expect(ids(idx, 'Bash', { command: 'cd envs/prod && terraform force-unlock -force 4c1d2e9a' })).toEqual(['lrn-tf-lock']);
    expect(ids(idx, 'Bash', { command: 'terraform fmt -recursive' })).toEqual([]);
  });

  it('honours applies_when: a command pattern and a path glob', () => {
    expect(ids(idx, 'Bash', { command: 'alembic upgrade head' })).toEqual(['lrn-api-migrations']);
    expect(ids(idx, 'Write', { file_path: '/home/dev/shop/apps/api/migrations/versions/0042_fee.py', content: 'x = 1' })).toEqual([
      'lrn-api-migrations',
    ]);
    expect(ids(idx, 'Write', { file_path: '/home/dev/shop/apps/web/page.tsx', content: 'x = 1' })).toEqual([]);
  });

  it('gives a note for two of its rare words in an edit, never for one', () => {
    expect(
      ids(idx, 'Edit', {
        file_path: '/home/dev/shop/cache.py',
        old_string: '',
        new_string: 'pool = redis.ConnectionPool(socket_timeout=2)',
      }),
    ).toEqual(['lrn-redis-pool']);
    expect(ids(idx, 'Edit', { file_path: '/home/dev/shop/notes.py', old_string: '', new_string: 'redis_url = settings.url' })).toEqual([]);
  });

  it('gives a note for a config key or API it warns about, alone, but not for the code its fix recommends', () => {
    const keys = kb({
      'documents/pool.md': `---
id: lrn-pool
title: "Test database pool"
key_insight: "Never raise pool_size to hide leaked connections in tests."
fix: "engine = create_engine(url, poolclass=NullPool)"
---
Body.
`,
    });
    const edit = (text: string) =>
      matchAction(keys, call('Edit', { file_path: '/home/dev/shop/tests/conftest.py', old_string: '', new_string: text }), '/', { info });
    expect(edit('engine = create_engine(URL, pool_size=40)').map((m) => m.id)).toEqual(['lrn-pool']);
    // The fix's own code is weak evidence: one token of it is not enough.
    expect(edit('conn = make(URL, poolclass=NullPool)')).toEqual([]);
  });

  it('counts the prompt only for a note the call already points at', () => {
    const a = call('Bash', { command: 'terraform state list' });
    expect(matchAction(idx, a, '/', { info, contextStems: new Set(['lock', 'unlock', 'forc']) })).toEqual([]);
    const weak = call('Edit', { file_path: '/x/app/cache.py', old_string: '', new_string: 'redis' });
    expect(matchAction(idx, weak, '/', { info })).toEqual([]);
    expect(matchAction(idx, weak, '/', { info, contextStems: new Set(['burst', 'exhaust']) }).map((m) => m.id)).toEqual(['lrn-redis-pool']);
  });

  it('an empty KB gives nothing', () => {
    expect(matchAction(buildTriggerIndex([]), call('Bash', { command: 'npm install zod' }), '/', { info })).toEqual([]);
  });
});

describe('readToolCall', () => {
  it('reads Claude Code Bash, Edit, MultiEdit and Read calls', () => {
    expect(call('Bash', { command: 'sudo -u app NODE_OPTIONS=--x npx jest' }).commands).toEqual([['jest', 'NODE_OPTIONS=--x']]);
    const edit = call('MultiEdit', {
      file_path: '/a/b.ts',
      edits: [
        { old_string: 'a', new_string: 'b' },
        { old_string: 'c', new_string: 'd' },
      ],
    });
    // What an edit changes is the lines it adds and the lines it drops.
    expect(edit).toMatchObject({ kind: 'edit', paths: ['/a/b.ts'], text: 'b\na\nd\nc', before: 'a\nc', context: '\n' });
    expect(call('Read', { file_path: '/a/README.md' }).kind).toBe('read');
  });

  it("reads Codex's apply_patch and Copilot's toolName/toolArgs (an object or its JSON text)", () => {
    const patch = '*** Begin Patch\n*** Update File: src/db.ts\n@@\n engine = make(\n-old\n+pool_size = 40\n*** End Patch';
    expect(readToolCall({ tool_name: 'apply_patch', tool_input: { command: patch } })).toMatchObject({
      kind: 'edit',
      paths: ['src/db.ts'],
      text: 'pool_size = 40\nold',
      context: 'engine = make(',
    });
    expect(readToolCall({ toolName: 'bash', toolArgs: '{"command":"npm i zod"}' })?.commands).toEqual([['npm', 'install', 'zod']]);
    expect(readToolCall({ toolName: 'edit', toolArgs: { path: '/a.py', old_str: 'x', new_str: 'y' } })).toMatchObject({
      kind: 'edit',
      text: 'y\nx',
    });
    expect(readToolCall({})).toBeNull();
    expect(readToolCall({ tool_name: 'Bash', tool_input: 'not an object' })?.commands).toEqual([]);
  });
});

describe('shell and glob helpers', () => {
  it('splits a shell line into simple commands', () => {
    expect(shellCommands('cd x && npm ci; git status | head -3')).toEqual([
      ['cd', 'x'],
      ['npm', 'ci'],
      ['git', 'status'],
      ['head', '-3'],
    ]);
  });
  it('onlyLooks: every command of the line only reads', () => {
    expect(onlyLooks(shellCommands('ls src | wc -l'))).toBe(true);
    expect(onlyLooks(shellCommands('git worktree list'))).toBe(true);
    expect(onlyLooks(shellCommands('ls && rm -rf build'))).toBe(false);
    // A reporting word after a subcommand that acts is what it acts on, not a report.
    expect(onlyLooks(shellCommands('terraform apply plan'))).toBe(false);
    expect(onlyLooks(shellCommands('pip install check'))).toBe(false);
    expect(onlyLooks(shellCommands('gh pr view 42'))).toBe(true);
  });
  it('globs match at a folder boundary, ** across folders', () => {
    expect(globRegExp('apps/api/**').test('/home/x/apps/api/a/b.ts')).toBe(true);
    expect(globRegExp('apps/api/**').test('/home/x/myapps/api/b.ts')).toBe(false);
    expect(globRegExp('*.tf').test('/infra/main.tf')).toBe(true);
    expect(globRegExp('*.tf').test('/infra/main.tfvars')).toBe(false);
    // A glob written to backtrack answers at once on a long path.
    const t0 = performance.now();
    expect(globRegExp('**/**/**/**/**/**/**/**/**/x*y*z*w').test(`/${'a/'.repeat(2000)}b`)).toBe(false);
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});
