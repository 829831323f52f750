/**
 * The action matcher's general rules for what counts as evidence (operators/action): an edit is read
 * by what it changes; a run or an edit that does what a note recommends is quiet; the program's name, and the
 * place of a change, are one piece of evidence each; an identifier made of a note's phrase counts.
 */
import { describe, it, expect } from '@jest/globals';
import { matchAction, spanStances } from '../../operators/action/index.js';
import { call, ids, info, kb } from '../helpers/action.js';

describe('what counts as evidence for a tool call', () => {
  it('reads an edit by what it changes: a token only in the unchanged lines it quotes is not enough alone', () => {
    const groups = kb({
      'documents/groups.md': `---
id: lrn-groups
title: "Consumer group ids are frozen"
key_insight: "Renaming \`compactor-v1\` resets its offsets; a new consumer gets a new group id."
---
Body.
`,
    });
    const edit = (old_string: string, new_string: string) =>
      matchAction(groups, call('Edit', { file_path: '/home/dev/shop/ids.go', old_string, new_string }), '/', { info }).map((m) => m.id);
    // Renaming the frozen id: the dropped line is part of the change.
    expect(edit('\tCompactor = "compactor-v1"', '\tCompactor = "compactor"')).toEqual(['lrn-groups']);
    // Adding a new group beside it: the frozen id is only quoted to place the edit.
    expect(edit('\tCompactor = "compactor-v1"', '\tCompactor = "compactor-v1"\n\tAudit = "audit-sink"')).toEqual([]);
    // Nor with the file's name sharing a word of the note: the path and the quoted lines are one place.
    expect(
      matchAction(
        groups,
        call('Edit', {
          file_path: '/home/dev/shop/groups.go',
          old_string: '\tCompactor = "compactor-v1"',
          new_string: '\tCompactor = "compactor-v1"\n\tAudit = "audit-sink"',
        }),
        '/',
        { info },
      ),
    ).toEqual([]);
  });

  it('gives nothing for a run that does what a note recommends, as written; the note for what it warns about', () => {
    const notes = kb({
      'documents/nextest.md': `---
id: lrn-nextest
title: "Rust tests run with nextest"
key_insight: "Run the tests with \`cargo nextest run --workspace\`, not \`cargo test\`: integration tests collide on the fixture."
---
Body.
`,
      'documents/fixups.md': `---
id: lrn-fixups
title: "Review fixup commits"
key_insight: "After review has started, address comments with \`git commit --fixup=<sha>\` and a plain \`git push\`; never \`git push --force\` before approval."
---
Body.
`,
      'documents/tmux.md': `---
id: lrn-tmux
title: "Never kill the tmux server"
key_insight: "Use \`tmux kill-session -t <exact-name>\` only; \`tmux kill-server\` destroys every session."
---
Body.
`,
    });
    const run = (command: string) => ids(notes, 'Bash', { command });
    expect(run('cargo nextest run --workspace')).toEqual([]);
    expect(run('cd compactor && cargo test -p compactor')).toEqual(['lrn-nextest']);
    expect(run('git push')).toEqual([]);
    expect(run('git commit --fixup=4e1c2a9')).toEqual([]);
    expect(run('git push --force origin data-1931-retry')).toEqual(['lrn-fixups']);
    expect(run('tmux kill-session -t shop-dev')).toEqual([]);
    expect(run('tmux kill-server')).toEqual(['lrn-tmux']);
  });

  it('counts the words naming the program and its subcommand as one piece of evidence', () => {
    const gh = kb({
      'documents/gh.md': `---
id: lrn-gh-graphql
title: "gh api graphql pagination needs explicit cursor loops"
key_insight: "gh api graphql has no --paginate for nested connections; loop on pageInfo.endCursor manually."
---
Body.
`,
    });
    // The same tool for something else: only its name is shared.
    expect(
      ids(gh, 'Bash', { command: `gh api graphql -f query='mutation { addComment(input: {body: "hi"}) { clientMutationId } }'` }),
    ).toEqual([]);
    expect(ids(gh, 'Bash', { command: "gh api graphql --paginate -f query='query($endCursor: String) { nodes }'" })).toEqual([
      'lrn-gh-graphql',
    ]);
  });

  it('counts an identifier that joins two words a note writes side by side (its phrase), not the same words apart', () => {
    const notes = kb({
      'documents/phrase.md': `---
id: lrn-phrase
title: "Connection pool exhaustion under burst load"
key_insight: "Size the pool to peak concurrency."
---
Body.
`,
      'documents/apart.md': `---
id: lrn-apart
title: "Pool workers drop their broker connection when idle"
key_insight: "Heartbeats keep it open."
---
Body.
`,
    });
    // Words fairly common in English: two of them alone stay under the bar.
    const common = (): number => 0.8;
    const edit = (text: string) =>
      matchAction(notes, call('Edit', { file_path: '/home/dev/shop/cache.py', old_string: '', new_string: text }), '/', {
        info: common,
      }).map((m) => m.id);
    expect(edit('pool = ConnectionPool.from_url(url)')).toEqual(['lrn-phrase']);
    expect(edit('pool = make_pool(connection)')).toEqual([]);
  });

  it('counts the words of where the change is (its file path) as one piece of evidence', () => {
    const nginx = kb({
      'documents/nginx.md': `---
id: lrn-nginx
title: "Nginx gateway upstream keepalive"
key_insight: "Set keepalive in the upstream block and proxy_http_version 1.1."
---
Body.
`,
    });
    const edit = (text: string) =>
      ids(nginx, 'Edit', { file_path: '/home/dev/shop/deploy/nginx/gateway/upstream.conf', old_string: '', new_string: text });
    expect(edit('client_max_body_size 50m;')).toEqual([]);
    expect(edit('keepalive 64;')).toEqual(['lrn-nginx']);
  });

  it('counts a token the note names in passing as what it is about when its words are the phrase of its title', () => {
    const note = (title: string) => `---
id: lrn-idle
title: "${title}"
key_insight: "Do not hold a transaction open during slow work."
---
Raising \`idle_in_transaction_session_timeout\` hides the problem.
`;
    const run = (title: string) =>
      ids(kb({ 'documents/idle.md': note(title) }), 'Bash', {
        command: `psql "$URL" -c "ALTER ROLE etl SET idle_in_transaction_session_timeout = '2h';"`,
      });
    expect(run('Postgres kills sessions idle in transaction')).toEqual(['lrn-idle']);
    expect(run('Postgres kills slow sessions')).toEqual([]);
  });

  it('reads what a note says of each code span: advice, or a warning, a symptom or a mere mention', () => {
    const stance = (text: string) => spanStances(text).map((x) => `${x.span}:${x.recommended ? 'do' : '-'}`);
    expect(stance('Run the tests with `cargo nextest run`, not `cargo test`.')).toEqual(['cargo nextest run:do', 'cargo test:-']);
    expect(stance('Log ids (`invoice_id`), never user objects.')).toEqual(['invoice_id:do']);
    expect(stance('Every script failed with `bad interpreter`; recreate it with `python -m venv .venv`.')).toEqual([
      'bad interpreter:-',
      'python -m venv .venv:do',
    ]);
    expect(stance('Run `terraform force-unlock` only after the lock holder is dead.')).toEqual(['terraform force-unlock:-']);
    expect(stance('`tmux kill-server` destroys every session.')).toEqual(['tmux kill-server:-']);
    // A failure word that says when to run a command, in a part of the clause before a comma, is no warning.
    expect(stance('For local connection errors, first check `docker compose ps` and the port.')).toEqual(['docker compose ps:do']);
    expect(stance('**How to apply:** For local connection errors, first check `docker compose ps`.')).toEqual(['docker compose ps:do']);
    expect(stance('When it fails, never run `git push --force`.')).toEqual(['git push --force:-']);
    expect(stance('After the upgrade, every job failed with `ENOSPC`.')).toEqual(['ENOSPC:-']);
  });

  it('gives nothing for writing a token the note only recommends; the note for one it warns about', () => {
    const logs = kb({
      'documents/pii.md': `---
id: lrn-pii
title: "Redact PII in logs"
key_insight: "Never log \`req.body\` or user objects."
---
A debug line \`logger.info({ req })\` shipped request bodies. Log ids (\`invoice_id\`), never user objects.
`,
    });
    const edit = (text: string) => ids(logs, 'Edit', { file_path: '/home/dev/shop/billing/service.py', old_string: '', new_string: text });
    // The logger call the note tells of, with the id it recommends logging: following it.
    expect(edit('logger.info("invoice finalized", extra={"invoice_id": invoice.id})')).toEqual([]);
    expect(edit('logger.info("incoming", extra={"body": req.body})')).toEqual(['lrn-pii']);
  });

  it('gives nothing for an edit that writes what a note recommends and nothing it warns of', () => {
    const cron = kb({
      'documents/cron.md': `---
id: lrn-cron-dst
title: "Cron schedules between 01:00 and 03:00 local time are skipped on DST days"
tags: [cron, dst]
key_insight: "Schedule cron jobs in UTC or outside 01:00-03:00 local; never set \`CRON_TZ\` to a local zone."
fix: "Set timeZone: Etc/UTC on the CronJob and make the job idempotent per date."
---
Body.
`,
    });
    const write = (spec: string) =>
      ids(cron, 'Write', { file_path: '/home/dev/shop/k8s/cronjobs/export.yaml', content: `kind: CronJob\nspec:\n${spec}\n` });
    // In UTC, as the note says: only its topic's words are left.
    expect(write('  schedule: "*/15 * * * *"\n  timeZone: "Etc/UTC"')).toEqual([]);
    // A local zone: the note applies.
    expect(write('  schedule: "30 2 * * *"\n  timeZone: "America/New_York"')).toEqual(['lrn-cron-dst']);
    // UTC written, and the local-zone setting it warns of too: not following it.
    expect(write('  timeZone: "Etc/UTC"\n  env:\n    - CRON_TZ=America/New_York')).toEqual(['lrn-cron-dst']);
    // An edit that drops the UTC setting for a local zone undoes the note: the line it removes is
    // not a setting it writes.
    const edit = (old_string: string, new_string: string) =>
      ids(cron, 'Edit', { file_path: '/home/dev/shop/k8s/cronjobs/export.yaml', old_string, new_string });
    const cronJob = (schedule: string, zone: string) => `kind: CronJob\nspec:\n  schedule: "${schedule}"\n  timeZone: "${zone}"`;
    expect(edit(cronJob('0 7 * * *', 'Etc/UTC'), cronJob('30 2 * * *', 'Europe/Berlin'))).toEqual(['lrn-cron-dst']);
    expect(edit(cronJob('30 2 * * *', 'Europe/Berlin'), cronJob('0 7 * * *', 'Etc/UTC'))).toEqual([]);
  });

  it('gives a note for an edit of a file its "How to apply" names: a file type, a folder, a file', () => {
    const notes = kb({
      'documents/proto.md': `---
name: proto-field-changes
description: Never renumber protobuf fields
metadata:
  type: feedback
---
Never change a field's number.

**How to apply:** Any \`.proto\` edit.
`,
      'documents/kafka.md': `---
name: no-kafka-mocks
description: Producer and consumer code is tested against a real broker container
metadata:
  type: feedback
---
No mocked clients.

**How to apply:** Anything under \`internal/kafka\`; set \`KAFKA_URL=localhost:9092\` first.
`,
    });
    const edit = (file: string) => ids(notes, 'Edit', { file_path: `/home/dev/shop/${file}`, old_string: '', new_string: 'x := 1' });
    expect(edit('api/v2/event.proto')).toEqual(['proto-field-changes']);
    expect(edit('internal/kafka/producer_test.go')).toEqual(['no-kafka-mocks']);
    expect(edit('internal/ingest/batcher.go')).toEqual([]);
    expect(ids(notes, 'Read', { file_path: '/home/dev/shop/api/v2/event.proto' })).toEqual([]);
  });
});

describe('what a note says is fine, or leaves out of its rule', () => {
  const notes = kb({
    'documents/gitops.md': `---
name: deploys-via-argocd
description: Deploys go through Argo CD; never kubectl apply/edit/scale/set env, selfHeal reverts it
metadata:
  type: project
---
Replicas and env vars are PRs to the deploy repo. \`kubectl scale\` and \`kubectl set env\` are reverted within minutes.

**How to apply:** deploy and scaling questions. Read-only kubectl (get, describe, logs, port-forward) is fine.
`,
    'documents/clock.md': `---
name: inject-clock
description: Take a clock.Clock instead of calling time.Now in ingestd and queryd
metadata:
  type: feedback
---
No direct \`time.Now()\` or \`time.Since\` outside \`main.go\`. Tests use \`clock.NewFake\`.
`,
  });
  const run = (command: string) => ids(notes, 'Bash', { command });
  const edit = (file: string, text: string) =>
    ids(notes, 'Edit', { file_path: `/home/dev/shop/${file}`, old_string: 'func x() {', new_string: `func x() {\n\t${text}` });

  it('gives nothing for a command the note says is fine; the note for the one it warns about', () => {
    expect(run('kubectl scale deploy/ingestd --replicas=12')).toEqual(['deploys-via-argocd']);
    // Sharing its words (the Argo namespace, a deploy) does not make a read-only command what it warns about.
    expect(run('kubectl -n argo get deploy ingestd -o yaml')).toEqual([]);
    expect(run('kubectl -n argo logs deploy/ingestd --tail=50')).toEqual([]);
    // One command it warns about among them is enough.
    expect(run('kubectl get deploy ingestd && kubectl scale deploy/ingestd --replicas=3')).toEqual(['deploys-via-argocd']);
  });

  it('still gives the note for a longer command it names than the one it says is fine', () => {
    const push = kb({
      'documents/push.md': `---
id: lrn-push
title: "Never force-push a branch under review"
key_insight: "\`git push\` is fine; \`git push --force\` wipes the reviewer's 'changes since last review'."
---
Body.
`,
    });
    expect(ids(push, 'Bash', { command: 'git push --force origin feature' })).toEqual(['lrn-push']);
  });

  it('gives nothing for an edit only where the rule does not hold (outside `main.go`)', () => {
    expect(edit('internal/rollup/hourly.go', 'start := time.Now()')).toEqual(['inject-clock']);
    expect(edit('cmd/ingestd/main.go', 'start := time.Now()')).toEqual([]);
  });
});
