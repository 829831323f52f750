/**
 * Rules named for the kind of work a tool call does (operators/action/call-work.ts): the error
 * handling, log line or test a call writes, the test runner it starts, in the rule's language.
 */
import { describe, it, expect } from '@jest/globals';
import { matchAction } from '../../operators/action/index.js';
import { call, ids, info, kb, memory } from '../helpers/action.js';

const notes = kb({
  'documents/go-errors.md': memory(
    'go-error-wrapping',
    'Go errors are wrapped with %w; handle or return, never log-and-return',
    'Wrap with context; never log and return the same error.',
  ),
  'documents/rust-errors.md': memory(
    'rust-error-handling',
    'No panicking shortcuts in non-test Rust code',
    'Handle the None case explicitly or return an error with context.',
  ),
  'documents/logging.md': memory('logging-privacy', 'Never log payloads or headers; log ids and counts', 'Redact anything else.'),
  'documents/go-tests.md': memory('go-test-style', 'Go tests are table-driven with t.Run', 'Table-driven, testify require.'),
  'documents/rust-tests.md': memory(
    'Rust tests run with nextest',
    'Plain runs collide on the shared fixture',
    'Every test in its own process.',
  ),
  'documents/pr.md': memory(
    'PR descriptions need a Testing section',
    'PR bodies list the commands that were run',
    'When opening a PR (`gh pr create`) against the main branch the body has Why, What, Testing.',
  ),
  'documents/flaky.md': `---
id: lrn-flaky-tests
title: Flaky tests from fake timers
learning_type: bug-fix
---
Timers leaked between tests.
`,
});

const edit = (file: string, oldString: string, newString: string): string[] =>
  ids(notes, 'Edit', { file_path: `/home/dev/shop/${file}`, old_string: oldString, new_string: newString });
const run = (command: string): string[] => ids(notes, 'Bash', { command });

describe('rules named for the work a call does', () => {
  it('gives the Go error rule for a Go edit that logs in an error branch; not for the same lines in Rust or a README', () => {
    const before = '\tif err := check(ev); err != nil {\n\t\treturn err\n\t}';
    const after = '\tif err := check(ev); err != nil {\n\t\tv.log.Error("check failed", "err", err)\n\t\treturn err\n\t}';
    expect(edit('internal/ingest/validate.go', before, after)).toContain('go-error-wrapping');
    expect(edit('compactor/src/validate.rs', before, after)).not.toContain('go-error-wrapping');
    expect(edit('docs/errors.md', 'x', 'write `if err != nil { return err }`')).toEqual([]);
  });

  it('gives the Rust rule for an unwrap outside tests; not inside a test module the rule leaves out', () => {
    expect(edit('compactor/src/flush.rs', 'let last = segs.last();', 'let last = segs.last().unwrap();')).toEqual(['rust-error-handling']);
    const inTests = edit(
      'compactor/src/manifest.rs',
      '#[cfg(test)]\nmod tests {\n    use super::*;\n',
      '#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn roundtrip() {\n        let m = from_str(&s).unwrap();\n    }\n',
    );
    expect(inTests).not.toContain('rust-error-handling');
  });

  it('gives the logging rule for a log line that logs a payload; not for one of ids and counts only', () => {
    expect(edit('server/app.ts', 'next();', 'logger.info({ req, body: req.body }, "incoming");\nnext();')).toEqual(['logging-privacy']);
    expect(
      edit('billing/service.py', 'commit()', 'commit()\nlogger.info("finalized", extra={"invoice_id": invoice.id, "count": n})'),
    ).toEqual([]);
  });

  it("gives a test rule for a run of its language's tests and for writing a test; a rule named for running, only to a run", () => {
    expect(run('go test ./internal/auth/...')).toEqual(['go-test-style']);
    expect(edit('internal/auth/token_test.go', 'x', 'func TestExpiry(t *testing.T) {}')).toEqual(['go-test-style']);
    expect(run('cargo test -p core')).toEqual(['Rust-tests-run-with-nextest-648599']);
    expect(edit('compactor/tests/flush.rs', 'x', 'fn flushes() {}')).toEqual([]);
  });

  it('gives nothing from a name that is about a git step, or from a learning that is no rule', () => {
    expect(run('npm test')).toEqual([]);
    expect(run('pytest -q')).toEqual([]);
  });
});

describe('a rule learning named for work by its title', () => {
  const learnings = kb({
    'documents/retry.md': `---
id: lrn-retry-503
title: Retry 503 errors from the payment API
learning_type: decision
tags: [payments, retry, http]
---
Retry with backoff.
`,
    'documents/pii.md': `---
id: lrn-pii-logs
title: Redact PII in structured logs at the logger
learning_type: decision
tags: [logging, pii]
---
Configure redaction once.
`,
  });
  const edit = (file: string, newString: string): string[] =>
    ids(learnings, 'Edit', { file_path: `/home/dev/shop/${file}`, old_string: 'x', new_string: newString });

  it('counts the kind its title names only when its tags name it too', () => {
    expect(edit('billing/charge.go', 'if err != nil {\n\treturn fmt.Errorf("charge: %w", err)\n}')).toEqual([]);
    expect(edit('server/app.ts', 'logger.info({ req, body: req.body }, "incoming");')).toEqual(['lrn-pii-logs']);
  });
});

describe('work an edit does by what its code changes', () => {
  const rules = kb({
    'documents/migrations.md': memory(
      'alembic-migrations',
      'Schema changes go through expand/contract migrations over two releases',
      'Never rename a column in one release.',
    ),
    'documents/errors.md': memory(
      'api-error-handling',
      'Services raise typed errors with stable codes; the web app keys messages on the code',
      'Never match on message text.',
    ),
  });
  const edit = (file: string, oldString: string, newString: string): string[] =>
    ids(rules, 'Edit', { file_path: `/home/dev/shop/${file}`, old_string: oldString, new_string: newString });
  // What gave the error rule (every word counts as rare in these specs, so the words alone could).
  const why = (file: string, oldString: string, newString: string): string[] =>
    matchAction(
      rules,
      call('Edit', { file_path: `/home/dev/shop/${file}`, old_string: oldString, new_string: newString }),
      '/home/dev/shop',
      {
        info,
        threshold: 0,
      },
    ).flatMap((m) => m.why.filter((w) => w.startsWith('work:')));

  it('reads a changed database column as migration work, wherever the model lives', () => {
    const before = '    notes: Mapped[str | None] = mapped_column(Text)';
    expect(edit('api/models/appointment.py', before, before.replace('notes', 'internal_notes'))).toEqual(['alembic-migrations']);
    expect(edit('api/models/appointment.py', '    # TODO', '    # TODO: tidy')).toEqual([]);
  });

  it('reads code written inside a handler the edit quotes as error handling; not code next to a plain call', () => {
    const inCatch = why(
      'web/BookingForm.tsx',
      '    } catch (err) {\n      toast.show("Something went wrong");\n',
      '    } catch (err) {\n      if (err instanceof Error && err.message.includes("booked")) toast.show("Taken");\n',
    );
    expect(inCatch).toEqual(['work:error']);
    expect(why('web/BookingForm.tsx', '    setOpen(true);\n    track("x");', '    setOpen(true);\n    track("y");')).not.toContain(
      'work:error',
    );
  });
});

describe('a value a note pins, replaced by an edit', () => {
  const pins = kb({
    'documents/stripe.md': memory(
      'stripe-api-version-pin',
      'Stripe stays on API version 2024-06-20 until the billing migration; do not bump the SDKs',
      'The webhook endpoint is on `2024-06-20`.',
      'project',
    ),
  });
  const edit = (oldString: string, newString: string): string[] =>
    matchAction(
      pins,
      call('Edit', { file_path: '/home/dev/shop/billing/stripe_client.py', old_string: oldString, new_string: newString }),
      '/home/dev/shop',
      {
        info,
        threshold: 0,
      },
    ).flatMap((m) => m.why.filter((w) => w.startsWith('changes:')));

  it('gives the note for an edit that replaces the value; not for one that keeps or only quotes it', () => {
    expect(edit('stripe.api_version = "2024-06-20"', 'stripe.api_version = "2025-03-31.basil"')).toEqual(['changes:2024-06-20']);
    expect(edit('stripe.api_version = "2024-06-20"\nTIMEOUT = 10', 'stripe.api_version = "2024-06-20"\nTIMEOUT = 20')).toEqual([]);
  });
});

describe('more kinds of work a call does: jobs, UI text, dependencies, Android logs, error responses', () => {
  const rules = kb({
    'documents/jobs.md': memory('sidekiq-job-args', 'Sidekiq job arguments are primitive ids', 'Pass `order.id`, never the record.'),
    'documents/strings.md': memory('strings-via-lokalise', 'User-visible Android text goes in strings.xml', 'No hard-coded text.'),
    'documents/deps.md': memory('deps-version-catalog', 'New packages need the user OK and a pin', 'Ask first.'),
    'documents/pii.md': memory('no-pii-in-logs', 'Never log emails, phones or addresses', 'Log ids only.'),
    'documents/errors.md': memory('rails-api-errors', 'Rails API raises typed Errors classes', 'No ad-hoc error bodies.'),
  });
  const why = (tool: string, input: Record<string, unknown>): string[] =>
    matchAction(rules, call(tool, input), '/home/dev/cartwheel', { info, threshold: 0 }).flatMap((m) =>
      m.why.filter((w) => w.startsWith('work:')).map((w) => `${m.id} ${w}`),
    );
  const edit = (file: string, newString: string): string[] =>
    why('Edit', { file_path: `/home/dev/cartwheel/${file}`, old_string: '    x\n', new_string: `    x\n${newString}\n` });

  it('reads each from the code an edit writes, in its language', () => {
    expect(edit('api/app/services/eta.rb', '    NearbyPushJob.perform_async(order) if eta <= 5')).toEqual(['sidekiq-job-args work:job']);
    expect(edit('android/feature/cart/EmptyCart.kt', '            Text("Browse stores")')).toEqual(['strings-via-lokalise work:ui-text']);
    expect(edit('android/feature/Checkout.kt', '        Log.d("Checkout", "placing order for ${user.email}")')).toEqual([
      'no-pii-in-logs work:log',
    ]);
    expect(
      edit('api/app/controllers/promos_controller.rb', '      return render json: { message: "expired" }, status: :unprocessable_entity'),
    ).toEqual(['rails-api-errors work:error']);
    expect(edit('android/core/ui/build.gradle.kts', '    implementation("io.coil-kt:coil-svg:2.6.0")')).toEqual([
      'deps-version-catalog work:dependency',
    ]);
  });

  it('reads a run that adds a package; not one that installs what the lockfile holds', () => {
    expect(why('Bash', { command: 'cd api && bundle add phonelib' })).toEqual(['deps-version-catalog work:dependency']);
    expect(why('Bash', { command: 'pnpm add zod --filter web' })).toEqual(['deps-version-catalog work:dependency']);
    expect(why('Bash', { command: 'pnpm install' })).toEqual([]);
    expect(why('Bash', { command: 'go get github.com/twmb/franz-go@v1.17.0' })).toEqual(['deps-version-catalog work:dependency']);
    expect(why('Bash', { command: 'npm install @tanstack/react-query' })).toEqual(['deps-version-catalog work:dependency']);
    expect(why('Bash', { command: 'go get ./...' })).toEqual([]);
    expect(why('Bash', { command: 'pip install -r requirements.txt' })).toEqual([]);
  });

  it('reads no UI text from a string resource, no job from a plain method call', () => {
    expect(edit('android/feature/cart/EmptyCart.kt', '            Text(stringResource(R.string.empty_cart_cta))')).toEqual([]);
    expect(edit('api/app/services/eta.rb', '    NearbyPush.perform(order)')).toEqual([]);
  });
});
