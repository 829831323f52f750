/**
 * What a note only seems to say is fine, or to leave out of its rule (operators/action/exemptions.ts):
 * a denied or conditional "is fine", a fine command that is only an argument, a flag the note warns
 * about, a place where the rule holds ("keep changes outside `gen/`") and a place of wildcards.
 */
import { describe, it, expect } from '@jest/globals';
import { ids, kb, memory } from '../helpers/action.js';

describe('what a note only seems to say is fine, or to leave out', () => {
  const one = (id: string, title: string, insight: string) =>
    kb({ [`documents/${id}.md`]: `---\nid: ${id}\ntitle: "${title}"\nkey_insight: "${insight}"\n---\nBody.\n` });
  const run = (idx: ReturnType<typeof kb>, command: string) => ids(idx, 'Bash', { command });

  it('takes the fine command only as what a call runs, not as a later argument (`make deploy test`)', () => {
    const make = one('lrn-make', 'Never deploy from a laptop', '`make test` is fine; `make deploy` goes through CI.');
    expect(run(make, 'make test')).toEqual([]);
    expect(run(make, 'make deploy test')).toEqual(['lrn-make']);
  });

  it('reads a program written as code before its list of fine subcommands', () => {
    const ro = one('lrn-ro', 'Deploys go through Argo CD', 'Read-only `kubectl` (get, describe, logs) is fine; never `kubectl scale`.');
    expect(run(ro, 'kubectl -n argo describe deploy web')).toEqual([]);
    expect(run(ro, 'kubectl -n argo scale deploy web --replicas=3')).toEqual(['lrn-ro']);
  });

  it('takes nothing a negation or a belief reaches for fine', () => {
    const apply = one('lrn-apply', 'kubectl apply bypasses Argo CD', '`kubectl apply` is not fine, `kubectl get` is fine.');
    expect(run(apply, 'kubectl apply -f deploy.yaml')).toEqual(['lrn-apply']);
    expect(run(apply, 'kubectl get deploy web -o yaml')).toEqual([]);
    const force = one('lrn-force', 'Rewriting shared history breaks clones', 'Never assume `git push --force` is fine.');
    expect(run(force, 'git push --force origin main')).toEqual(['lrn-force']);
  });

  it('takes no fine with a condition a call cannot be checked against (until, locally, only)', () => {
    const old = one('lrn-old', 'kubectl apply bypasses Argo CD', 'The old behaviour of `kubectl apply` is fine until the migration lands.');
    expect(run(old, 'kubectl apply -f deploy.yaml')).toEqual(['lrn-old']);
    const npm = one('lrn-npm', 'npm install rewrites the lockfile', 'Plain npm (install, update) is fine locally but never in CI.');
    expect(run(npm, 'npm install lodash')).toEqual(['lrn-npm']);
  });

  it('takes a flag the note warns about, in prose, as no longer the fine command (`git push --force`)', () => {
    const push = one('lrn-push', 'Never force-push a branch under review', '`git push` is fine; a forced push wipes the review.');
    expect(run(push, 'git push origin feature')).toEqual([]);
    expect(run(push, 'git push --force origin feature')).toEqual(['lrn-push']);
  });

  it('takes "keep changes outside `gen/`" for where the rule holds, and a place of wildcards for none', () => {
    const edit = (idx: ReturnType<typeof kb>, file: string, text: string) =>
      ids(idx, 'Edit', { file_path: `/home/dev/shop/${file}`, old_string: 'func x() {', new_string: `func x() {\n\t${text}` });
    const gen = one('lrn-gen', 'Generated protobuf code is overwritten', 'Never hand-edit generated code; keep changes outside `gen/`.');
    expect(edit(gen, 'gen/api/v1/api.pb.go', 'x := 1 // hand-edit generated')).toEqual(['lrn-gen']);
    for (const place of ['*', '**', './'])
      expect(
        edit(
          one('lrn-clock', 'Inject the clock', `No direct \`time.Now()\` outside \`${place}\`.`),
          'internal/hourly.go',
          'start := time.Now()',
        ),
      ).toEqual(['lrn-clock']);
  });

  it('reads what an "Exempt:" label names as left out: a class by its file, a folder as itself', () => {
    const money = kb({
      'documents/money.md': memory(
        'money-amounts',
        'Money is Money (minor units), never BigDecimal or double',
        'Amounts are `Money`; `BigDecimal` for amounts fails review.\n\nExempt: `FxRate` holds a `BigDecimal` (a rate is no money), and the `reporting/` exports.',
      ),
    });
    const edit = (file: string) =>
      ids(money, 'Edit', {
        file_path: `/home/dev/pay/${file}`,
        old_string: '}',
        new_string: '  BigDecimal inverse() { return BigDecimal.ONE; }\n}',
      });
    expect(edit('api/src/main/java/com/x/fx/FxRate.java')).toEqual([]);
    expect(edit('reporting/src/Export.java')).toEqual([]);
    expect(edit('api/src/main/java/com/x/fees/FeeCalculator.java')).toEqual(['money-amounts']);
  });
});
