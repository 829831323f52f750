/**
 * A call that already does what a memory says needs no reminder of it, nor of the older memory that
 * memory replaces (hooks/action-recall.ts, operators/action/followed.ts); a call that does what the
 * older memory said still gets the newer one.
 */
import { describe, it, expect } from '@jest/globals';
import { parseNote } from '../../core/note/index.js';
import { readToolCall } from '../../operators/action/index.js';
import { actionMatches } from '../../hooks/action-recall.js';
import type { RecallSession } from '../../pipeline/run.js';

const older = parseNote(
  `---
name: Python tests
description: Python tests use unittest with factory-boy fixtures and MockRedis; run them with make test
type: feedback
---
Tests in \`tests/\`: \`unittest.TestCase\`, \`factory-boy\` factories, \`self.redis = MockRedis()\` for the cache. Run everything with \`make test\`.

**How to apply:** Writing or running Python tests.
`,
  'memory/feedback_python_tests.md',
  'documents',
);
const newer = parseNote(
  `---
name: python-tests-pytest
description: Python tests moved to pytest with fixtures in conftest.py; run them per package, e.g. uv run pytest packages/api
metadata:
  type: feedback
---
Since the move to pytest:
- Fixtures live in \`conftest.py\`; factory-boy is gone from the lockfile and \`MockRedis\` was deleted.
- Run per package: \`uv run pytest packages/api\`, \`uv run pytest packages/worker\` (the worker package has no integration tests), narrowed with \`-k test_refund\`.

**How to apply:** Writing or running Python tests.
`,
  'memory/feedback_python_tests_pytest.md',
  'documents',
);

const session = { noteSets: () => [{ root: '/kb', version: null, notes: () => [older, newer] }] } as unknown as RecallSession;
const given = async (command: string): Promise<string[]> => {
  const call = readToolCall({ tool_name: 'Bash', tool_input: { command, description: 'Run the tests' } })!;
  return (await actionMatches(session, call, '/home/dev/shop', { info: () => 1, prompt: '' })).map((m) => m.note.key);
};

describe('a call that follows the memory that replaced another', () => {
  it('gets neither memory when it runs what the newer one says, with the option it says to narrow with', async () => {
    expect(await given('cd backend && uv run pytest packages/api -k test_invoice_totals')).toEqual([]);
  });

  it('gets the newer memory when it runs what the older one said', async () => {
    expect(await given('make test')).toEqual([newer.key]);
  });

  it('still warns when the older memory names the command the call runs', async () => {
    const never = parseNote(
      `---\nname: no laptop deploys\ndescription: Never deploy from a laptop\ntype: feedback\n---\nNever run \`make deploy\` or \`make release\` from a laptop; CI deploys main.\n`,
      'memory/feedback_no_laptop_deploys.md',
      'documents',
    );
    const moved = parseNote(
      `---\nname: deploys-in-ci\ndescription: Deploys run in CI only since May\nmetadata:\n  type: project\n---\nDeploys changed in May: \`make deploy\` and \`make release\` are gone. The CI deploy job is the only way to ship.\n`,
      'memory/project_deploys_in_ci.md',
      'documents',
    );
    const both = { noteSets: () => [{ root: '/kb', version: null, notes: () => [never, moved] }] } as unknown as RecallSession;
    const call = readToolCall({ tool_name: 'Bash', tool_input: { command: 'make deploy', description: 'Deploy' } })!;
    const got = (await actionMatches(both, call, '/home/dev/shop', { info: () => 1, prompt: '' })).map((m) => m.note.key);
    expect(got.length).toBeGreaterThan(0);
  });
});
