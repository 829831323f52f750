/**
 * A program run through a package manager (`pnpm --filter @app/web exec vitest run …`): the runner's
 * words say which package it runs in, not what it does, so a note that shares only them is not given
 * (operators/action/features.ts), and a note's command run that way is the program it runs
 * (`pnpm exec playwright test`, patterns.ts); a test file of the same language (`.ts` for the note's
 * `.tsx`) is another instance of the file the note's command names (commands.ts).
 */
import { describe, it, expect } from '@jest/globals';
import { ids, kb, memory } from '../helpers/action.js';

const notes = kb({
  'documents/unit.md': memory(
    'vitest-ipc-mocks',
    'Front-end unit tests fake the backend with mockIPC, never vi.mock of the IPC module',
    'Run a single file with `pnpm --filter @acme/desktop exec vitest run src/notes/useNotes.test.tsx`.',
  ),
  'documents/e2e.md': memory(
    'playwright-e2e-selectors',
    'Playwright e2e tests select by role or test id, never by CSS class or position',
    'Run them with `pnpm --filter @acme/desktop exec playwright test e2e/`.',
  ),
});
const run = (command: string): string[] => ids(notes, 'Bash', { command }, '/home/dev/acme');

describe('a program run through a package manager', () => {
  it('gets no note that shares only the runner, its options and its package', () => {
    expect(run('pnpm --filter @acme/desktop exec vitest run src/lib/wordcount.test.ts')).not.toContain('playwright-e2e-selectors');
    // What it runs still counts: the e2e runner is the e2e note's.
    expect(run('pnpm --filter @acme/desktop exec playwright test e2e/rename.spec.ts --headed')).toContain('playwright-e2e-selectors');
  });

  it("follows the note's command with another test file of the same language", () => {
    expect(run('pnpm --filter @acme/desktop exec vitest run src/lib/wordcount.test.ts')).not.toContain('vitest-ipc-mocks');
  });
});
