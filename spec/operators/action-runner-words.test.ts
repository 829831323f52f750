/**
 * A test file of the same language (`.ts` for the note's `.tsx`) is another instance of the file a
 * note's recommended command names (operators/action/commands.ts): the run follows the note.
 */
import { describe, it, expect } from '@jest/globals';
import { ids, kb, memory } from '../helpers/action.js';

const notes = kb({
  'documents/unit.md': memory(
    'vitest-ipc-mocks',
    'Front-end unit tests fake the backend with mockIPC, never vi.mock of the IPC module',
    'Run a single file with `pnpm --filter @acme/desktop exec vitest run src/notes/useNotes.test.tsx`.',
  ),
});
const run = (command: string): string[] => ids(notes, 'Bash', { command }, '/home/dev/acme');

describe("a test file of the note's language", () => {
  it("follows the note's command with another test file of the same language, not of another", () => {
    expect(run('pnpm --filter @acme/desktop exec vitest run src/lib/wordcount.test.ts')).not.toContain('vitest-ipc-mocks');
    expect(run('pnpm --filter @acme/desktop exec vitest run src/lib/wordcount.test.tsx')).not.toContain('vitest-ipc-mocks');
    expect(run('pnpm --filter @acme/desktop exec vitest run src/lib/wordcount.test.py')).toContain('vitest-ipc-mocks');
  });
});
