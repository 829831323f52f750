/**
 * `applies_when`: `recall add --when` and the MCP save tool's field write the list into the note's
 * frontmatter, checked like every other field, and the tool-call hook honours it.
 */
import { describe, it, expect, afterAll } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { tempKb } from '../helpers/kb.js';
import { RECALL_BIN, env, runHook, envelope } from '../hooks/helpers.js';
import { checkLearning } from '../../pipeline/learnings/index.js';
import { noteText } from '../../sinks/note-writer.js';
import { parseNote } from '../../core/note/index.js';

const k = tempKb();
afterAll(() => {
  spawnSync(process.execPath, [RECALL_BIN, 'daemon', 'stop'], { env: env(k), encoding: 'utf8' });
  k.cleanup();
});

describe('applies_when', () => {
  it('`recall add --when` writes the list, and the tool-call hook gives the note for a matching call only', () => {
    const add = spawnSync(
      process.execPath,
      [
        RECALL_BIN,
        'add',
        '--kb',
        k.root,
        '--title',
        'Contracts use pnpm',
        '--insight',
        'The contracts package is built by pnpm.',
        '--when',
        'pnpm|npm install',
        '--when',
        'apps/api/**',
        '--json',
      ],
      { env: env(k), encoding: 'utf8', timeout: 20_000 },
    );
    expect(add.status).toBe(0);
    const file = (JSON.parse(add.stdout) as { path: string }).path;
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('applies_when: ["pnpm|npm install", "apps/api/**"]');
    expect(parseNote(text, path.basename(file), 'documents').frontmatter['applies_when']).toEqual(['pnpm|npm install', 'apps/api/**']);
    const id = (JSON.parse(add.stdout) as { id: string }).id;
    const call = (session: string, tool_name: string, tool_input: Record<string, unknown>) => {
      const e = envelope(
        runHook(
          'pre-tool-use',
          JSON.stringify({ session_id: session, cwd: k.root, hook_event_name: 'PreToolUse', tool_name, tool_input }),
          env(k),
        ),
      );
      return (e['hookSpecificOutput'] as { additionalContext: string }).additionalContext;
    };
    expect(call('w1', 'Bash', { command: 'npm install left-pad' })).toContain(`**[${id}]**`);
    expect(call('w2', 'Write', { file_path: '/home/dev/shop/apps/api/routes.ts', content: 'export {}' })).toContain(`**[${id}]**`);
    expect(call('w3', 'Bash', { command: 'npm run build' })).toBe('');
  });

  it('refuses a multi-line or oversized entry with the field named', () => {
    const bad = spawnSync(
      process.execPath,
      [RECALL_BIN, 'add', '--kb', k.root, '--title', 'T', '--insight', 'I', '--when', 'a'.repeat(201)],
      {
        env: env(k),
        encoding: 'utf8',
      },
    );
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/applies_when: an entry of 201 characters, at most 200/);
  });

  it('the MCP save tool takes applies_when through the same check and writer', () => {
    const note = checkLearning({ title: 'T', insight: 'I', applies_when: [' terraform force-unlock ', '*.tf', '*.tf'] });
    expect(note.appliesWhen).toEqual(['terraform force-unlock', '*.tf']);
    expect(noteText(note, new Date('2026-12-05T10:00:00Z')).text).toContain('applies_when: ["terraform force-unlock", "*.tf"]');
    expect(() => checkLearning({ title: 'T', insight: 'I', applies_when: ['a\nb'] })).toThrow(/applies_when: .* must be one line/);
    expect(() => checkLearning({ title: 'T', insight: 'I', applies_when: Array.from({ length: 21 }, (_, i) => `c${i}`) })).toThrow(
      /applies_when: 21 entries, at most 20/,
    );
  });
});
