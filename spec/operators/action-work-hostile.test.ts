/**
 * Everyday calls that do no work a rule is named for, and hostile call text
 * (operators/action/call-work.ts): a rule named for a kind of work is given only for that work.
 */
import { describe, it, expect } from '@jest/globals';
import { callWork } from '../../operators/action/call-work.js';
import { ids, kb, call, memory } from '../helpers/action.js';

const notes = kb({
  'documents/go-errors.md': memory('go-error-wrapping', 'Go errors are wrapped with %w', 'Wrap with context.'),
  'documents/py-errors.md': memory('python-error-handling', 'Raise domain errors, never bare except', 'Use domain errors.'),
  'documents/logging.md': memory('logging-privacy', 'Never log payloads or headers; log ids and counts', 'Redact anything else.'),
  'documents/testing.md': memory('testing-conventions', 'Tests use the shared fixtures', 'One fixture per suite.'),
  'documents/ts-errors.md': memory('typescript-error-handling', 'No swallowed errors in non-test TypeScript', 'Rethrow with cause.'),
});

const edit = (file: string, oldString: string, newString: string): string[] =>
  ids(notes, 'Edit', { file_path: `/home/dev/shop/${file}`, old_string: oldString, new_string: newString });

describe('everyday calls that do no work a rule is named for', () => {
  it('a comment or string that says "raise" or "throw new" is no error handling', () => {
    expect(edit('internal/pool/pool.go', 'size := 10', '// raise the pool size when traffic grows\nsize := 20')).toEqual([]);
    expect(edit('billing/limits.py', 'LIMIT = 10', '# raise this if the batch job times out\nLIMIT = 20')).toEqual([]);
    expect(edit('billing/limits.py', 'x', 'msg = "please raise a ticket with ops"')).toEqual([]);
    // A real raise still is.
    expect(edit('billing/limits.py', 'x', '    raise ValueError("bad limit")')).toEqual(['python-error-handling']);
  });

  it("a regular expression's .test('…') in production code is no test, and does not hide a rule from it", () => {
    const added = "if (!/^[a-z]+$/.test('abc')) { try { load() } catch (e) { }\n}";
    expect(
      callWork(call('Edit', { file_path: '/home/dev/shop/src/slug.ts', old_string: 'x', new_string: added }), ['src/slug.ts']).inTests,
    ).toBe(false);
    expect(edit('src/slug.ts', 'x', added)).toEqual(['typescript-error-handling']);
  });

  it('a design doc under specs/ or a data file under testdata/ is no test', () => {
    expect(edit('docs/specs/checkout.md', 'a', 'b')).toEqual([]);
    expect(edit('api/specs/openapi.yaml', 'a', 'b')).toEqual([]);
    expect(edit('internal/parse/testdata/golden.json', 'a', 'b')).toEqual([]);
    // A test file still is.
    expect(edit('internal/parse/parse_test.go', 'a', 'b')).toEqual(['testing-conventions']);
  });

  it('a JS assertion `.expect(200)` or a `.context(` call is no error handling; a Rust `.expect(` is', () => {
    const rules = kb({
      'documents/errors.md': memory('error-handling', 'Errors carry their cause', 'Never swallow an error.'),
    });
    const work = (file: string, added: string): string[] =>
      ids(rules, 'Edit', { file_path: `/home/dev/shop/${file}`, old_string: 'x', new_string: added });
    expect(work('test/api.test.ts', "await request(app).get('/health').expect(200);")).toEqual([]);
    expect(work('web/src/Canvas.tsx', "const ctx = audio.context('2d');")).toEqual([]);
    expect(work('compactor/src/flush.rs', 'let seg = segs.last().expect("no segment");')).toEqual(['error-handling']);
    expect(work('compactor/src/slot.rs', '*slot = next.unwrap();')).toEqual(['error-handling']);
  });
});

describe('names that say a work word of another thing', () => {
  it('an error budget, test accounts or log retention are not the work of writing errors, tests or logs', () => {
    const others = kb({
      'documents/budget.md': memory('error-budget-policy', 'Freeze feature deploys when the error budget is spent', 'Ask SRE.', 'project'),
      'documents/accounts.md': memory('staging-test-accounts', 'Logins for the staging test accounts', 'In 1Password.', 'reference'),
      'documents/retention.md': memory('log-retention', 'Logs are kept 30 days in Loki', 'Ask infra for longer.', 'project'),
    });
    const work = (file: string, added: string): string[] =>
      ids(others, 'Edit', { file_path: `/home/dev/shop/${file}`, old_string: 'x', new_string: added });
    expect(work('internal/pay/charge.go', '\tif err != nil {\n\t\treturn fmt.Errorf("charge: %w", err)\n\t}')).toEqual([]);
    expect(work('internal/pay/charge_test.go', 'func TestCharge(t *testing.T) {}')).toEqual([]);
    expect(work('server/app.ts', 'logger.info({ body: req.body }, "incoming");')).toEqual([]);
    expect(ids(others, 'Bash', { command: 'go test ./...' })).toEqual([]);
  });
});

describe('log lines that log more than ids and counts', () => {
  it('a template literal that interpolates a payload is logged payload', () => {
    expect(edit('server/app.ts', 'next();', 'logger.info(`incoming ${JSON.stringify(req.body)}`);\nnext();')).toEqual(['logging-privacy']);
    expect(edit('server/app.ts', 'next();', 'logger.info(`handled ${count} events`);\nnext();')).toEqual([]);
  });

  it("a test's print is no service log", () => {
    expect(edit('web/src/cart.test.ts', 'x', '  console.log(result);\n  expect(result.total).toBe(3);')).toEqual(['testing-conventions']);
    expect(edit('billing/tests/test_invoice.py', 'x', '    print(inv)\n    logging.info("got %s", inv)')).toEqual(['testing-conventions']);
  });

  it('a size taken with len() of a batch is a count', () => {
    expect(edit('ingest/flush.go', 'x', '\tlog.Info("flushed", "rows", len(batch))')).toEqual([]);
  });
});

describe('hostile call text', () => {
  it('a log line of an unterminated string of backslashes is read in time', () => {
    const line = `logger.info('${'\\\\'.repeat(20)} x`;
    const t0 = Date.now();
    callWork(call('Edit', { file_path: '/home/dev/shop/server/app.ts', old_string: 'x', new_string: line }), ['server/app.ts']);
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});
