/**
 * Hostile review of the call-work readers (operators/action/edit-work.ts, call-work.ts, commands.ts):
 * what a careless call or a note's own wording must not turn into evidence, or into silence.
 */
import { describe, it, expect } from '@jest/globals';
import { matchAction } from '../../operators/action/index.js';
import { features } from '../../operators/action/features.js';
import { stemOf } from '../../core/stems.js';
import { call, info, kb } from '../helpers/action.js';

const memory = (name: string, description: string, body: string, type = 'feedback'): string =>
  `---\nname: ${name}\ndescription: ${description}\nmetadata:\n  type: ${type}\n---\n${body}\n`;

describe('a note that says not to pass an option', () => {
  const notes = kb({
    'documents/hooks.md': memory(
      'never-skip-hooks',
      'Never pass `--no-verify` to git commit: the pre-commit hook runs the secret scanner',
      'Do not pass `--no-verify`; fix what the hook reports instead.',
    ),
  });
  it('is not silenced by a run that passes exactly that option', () => {
    const got = matchAction(notes, call('Bash', { command: 'git commit --no-verify -m "wip"' }), '/home/dev/shop', { info });
    expect(got.map((m) => m.id)).toContain('never-skip-hooks');
  });

  it('nor by one that passes the option the note says to pass instead of', () => {
    const force = kb({
      'documents/push.md': memory(
        'no-force-push',
        'Force pushes rewrite shared history on release branches',
        'Use `--force-with-lease` rather than passing `--force`.',
      ),
    });
    const got = matchAction(force, call('Bash', { command: 'git push --force origin release/2.3' }), '/home/dev/shop', { info });
    expect(got.map((m) => m.id)).toContain('no-force-push');
  });
});

describe('work read from code that is not that work', () => {
  const rules = kb({
    'documents/jobs.md': memory('sidekiq-job-args', 'Sidekiq job arguments are primitive ids', 'Pass `order.id`, never the record.'),
    'documents/strings.md': memory('strings-via-lokalise', 'User-visible text goes through Lokalise', 'No hard-coded text.'),
    'documents/errors.md': memory('api-error-envelope', 'Error responses use the shared error envelope', 'Never an ad-hoc body.'),
  });
  const work = (file: string, newString: string): string[] =>
    matchAction(
      rules,
      call('Edit', { file_path: `/home/dev/shop/${file}`, old_string: '  x\n', new_string: `  x\n${newString}\n` }),
      '/home/dev/shop',
      { info, threshold: 0 },
    ).flatMap((m) => m.why.filter((w) => w.startsWith('work:')).map((w) => `${m.id} ${w}`));

  it('reads no background job from a JS promise delay, jQuery or a queue data structure', () => {
    expect(work('web/src/retry.ts', '  await timers.delay(250 * attempt);')).toEqual([]);
    expect(work('web/src/banner.js', "  $('#banner').delay(400).fadeOut();")).toEqual([]);
    expect(work('web/src/bfs.ts', '    frontier.enqueue(next);')).toEqual([]);
    // Still one in the languages whose job libraries spell it so.
    expect(work('api/tasks.py', '    send_receipt.delay(order.id)')).toEqual(['sidekiq-job-args work:job']);
  });

  it('reads no error reply from a status in a test fixture', () => {
    expect(work('web/src/api.test.ts', '    fetchMock.mockResolvedValue({ status: 404, json: async () => ({}) });')).toEqual([]);
    expect(work('web/src/api.ts', '    return res.status(404).json({ error: "not found" });')).toEqual(['api-error-envelope work:error']);
  });

  it('reads no UI text from a Text( call outside UI languages', () => {
    expect(work('cli/report.py', '    console.print(Text("Done in 3s", style="green"))')).toEqual([]);
    expect(work('android/Cart.kt', '            Text("Browse stores")')).toEqual(['strings-via-lokalise work:ui-text']);
  });
});

describe('a value a note names, replaced by an edit', () => {
  const notes = kb({
    'documents/stripe.md': memory(
      'stripe-api-version-pin',
      'Stripe stays on API version 2024-06-20 until the billing migration',
      'The webhook endpoint is on `2024-06-20`.',
      'project',
    ),
    'documents/sdk.md': memory('widget-sdk', 'The widget SDK 1.0.0 dropped the legacy init', 'Call init2.', 'project'),
    'documents/outage.md': memory(
      'outage-march',
      'Outage on 2024-03-14: the queue stalled when the consumer lagged',
      'Lag alerts now.',
      'project',
    ),
  });
  const edit = (file: string, oldString: string, newString: string): string[] =>
    matchAction(
      notes,
      call('Edit', { file_path: `/home/dev/shop/${file}`, old_string: oldString, new_string: newString }),
      '/home/dev/shop',
      {
        info,
      },
    ).map((m) => m.id);

  it('gives the note when the edit is about what the note is about', () => {
    expect(edit('billing/stripe_client.py', 'stripe.api_version = "2024-06-20"', 'stripe.api_version = "2025-03-31.basil"')).toEqual([
      'stripe-api-version-pin',
    ]);
  });

  it('gives nothing for the same value in an unrelated package version or fixture date', () => {
    expect(edit('package.json', '  "version": "1.0.0",', '  "version": "1.0.1",')).toEqual([]);
    expect(edit('spec/fixtures/orders.json', '  "placed_at": "2024-03-14",', '  "placed_at": "2024-04-01",')).toEqual([]);
  });
});

describe("the project's own name, left out of a call's words", () => {
  const stems = (cwd: string): string[] => [...features(call('Bash', { command: 'grep -rn "users" src/' }), cwd).stems].sort();

  it('is the last folder of a Windows path too, not every folder of it', () => {
    expect(stems('C:\\Users\\dev\\shop')).toEqual(stems('/home/dev/shop'));
    expect(stems('C:\\Users\\dev\\shop')).toContain(stemOf('users'));
  });
});

describe('a run that installs the project itself', () => {
  const rules = kb({ 'documents/deps.md': memory('deps-policy', 'New packages need the user OK and a pin', 'Ask first.') });
  const run = (command: string): string[] =>
    matchAction(rules, call('Bash', { command }), '/home/dev/shop', { info, threshold: 0 }).flatMap((m) =>
      m.why.filter((w) => w.startsWith('work:')),
    );

  it('adds no package; naming one does', () => {
    expect(run('pip install .')).toEqual([]);
    expect(run('pip install .[dev]')).toEqual([]);
    expect(run('pip install httpx')).toEqual(['work:dependency']);
  });
});
