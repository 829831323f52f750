/**
 * Steps a tool call takes in another form than the note writes (operators/action): a dependency
 * added to a manifest by hand is the command that adds it; a command taken another way than a
 * note's "How to apply" writes is still the step it applies to. And what is no evidence: a
 * language's keywords, one word pair counted twice.
 */
import { describe, it, expect } from '@jest/globals';
import { manifestCommands } from '../../operators/action/manifests.js';
import { matchAction } from '../../operators/action/index.js';
import { call, ids, info, kb } from '../helpers/action.js';

const DEPENDENCIES = `---
name: new-dependency-policy
description: Ask before adding any Go module or Rust crate or npm package
metadata:
  type: feedback
---
Don't \`go get\`, \`cargo add\` or \`npm install\` anything new without asking.

**How to apply:** When a task seems to need a new library: propose it first, then wait.
`;

describe('a dependency added to a manifest by hand', () => {
  it('reads as the commands that add it, in each ecosystem', () => {
    expect(manifestCommands('/p/cli/Cargo.toml', 'indicatif = "0.17"\nserde = { version = "1", features = ["derive"] }')).toEqual([
      ['cargo', 'add', 'indicatif'],
      ['cargo', 'add', 'serde'],
    ]);
    expect(manifestCommands('/p/go.mod', 'require github.com/axiomhq/hyperloglog v0.2.0')).toEqual([
      ['go', 'get', 'github.com/axiomhq/hyperloglog'],
    ]);
    expect(manifestCommands('/p/go.mod', '\tgithub.com/twmb/franz-go v1.17.0')).toEqual([['go', 'get', 'github.com/twmb/franz-go']]);
    expect(manifestCommands('/p/package.json', '    "@scope/ui": "^3.24.1",')).toEqual([
      ['npm', 'install', '@scope/ui'],
      ['pnpm', 'add', '@scope/ui'],
      ['yarn', 'add', '@scope/ui'],
    ]);
    expect(manifestCommands('/p/requirements-dev.txt', 'httpx[http2]>=0.27  # client\nrich')).toEqual([
      ['pip', 'install', 'httpx'],
      ['pip', 'install', 'rich'],
    ]);
    expect(manifestCommands('/p/Gemfile', "gem 'sidekiq', '~> 7.0'")).toEqual([['bundle', 'add', 'sidekiq']]);
  });

  it("reads nothing from a manifest's own fields, from comments, or from any other file", () => {
    expect(manifestCommands('/p/package.json', '  "version": "1.4.0",\n  "name": "web",\n  "node": ">=20"')).toEqual([]);
    expect(manifestCommands('/p/Cargo.toml', 'edition = "2021"\nversion = "0.3.1"\nrust-version = "1.80"')).toEqual([]);
    expect(manifestCommands('/p/requirements.txt', '# pinned for the CI image\n')).toEqual([]);
    expect(manifestCommands('/p/src/config.toml', 'serde = "1"')).toEqual([]);
    expect(manifestCommands('/p/go.mod', '\tgithub.com/x/y v1.2.3 => ../y\ngo 1.22\ntoolchain go1.22.4')).toEqual([]);
  });

  it('gives the dependency note for an edit that adds a dependency, not for one that only bumps the version', () => {
    const idx = kb({ 'documents/deps.md': DEPENDENCIES });
    const edit = (file_path: string, old_string: string, new_string: string) => ids(idx, 'Edit', { file_path, old_string, new_string });
    const deps = '[dependencies]\nanyhow = { workspace = true }';
    expect(edit('/home/dev/skerry/cli/Cargo.toml', deps, `${deps}\nindicatif = "0.17"`)).toEqual(['new-dependency-policy']);
    expect(edit('/home/dev/web/package.json', '"dependencies": {', '"dependencies": {\n    "zod": "^3.24.1",')).toEqual([
      'new-dependency-policy',
    ]);
    // The package's own version bumped: no dependency is added.
    expect(edit('/home/dev/web/package.json', '  "version": "1.4.0",', '  "version": "1.5.0",')).toEqual([]);
  });
});

describe('the step a note\'s "How to apply" names, taken another way', () => {
  const DEV_MACHINE = `---
name: user-dev-machine
description: User works on an M3 MacBook (arm64); images for the cluster must be built for amd64
metadata:
  type: user
---
The laptop builds arm64 images by default.

**How to apply:** Any image that will run in a cluster: \`docker buildx build --platform linux/amd64 ...\`.
`;

  it('gives the note for the same program and subcommand run without what the note writes', () => {
    const idx = kb({ 'documents/dev.md': DEV_MACHINE });
    const run = (command: string) => ids(idx, 'Bash', { command, description: 'x' });
    expect(run('docker build -t registry.local/ingestd:dev -f cmd/ingestd/Dockerfile .')).toEqual(['user-dev-machine']);
    // Following the note as written needs no reminder; another step of the same program is not it.
    expect(run('docker buildx build --platform linux/amd64 -t registry.local/queryd:dev --push .')).toEqual([]);
    expect(run('docker run --rm -it alpine sh')).toEqual([]);
    expect(run('docker ps')).toEqual([]);
  });
});

describe('what is no evidence', () => {
  it("does not count a language's keywords as a word a contrast sets aside (Go's `package` clause)", () => {
    const idx = kb({
      'documents/errors.md': `---
name: go-error-wrapping
description: Wrap errors with %w; error strings are lowercase
metadata:
  type: feedback
---
Wrap with \`fmt.Errorf("...: %w", err)\`.

**How to apply:** When editing a function that logs and returns, fix that function only, not the whole package.
`,
    });
    const helper =
      'package tenant\n\n// ValidSlug reports whether s is lowercase letters and digits.\nfunc ValidSlug(s string) bool {\n\treturn s != ""\n}\n';
    const m = matchAction(idx, call('Write', { file_path: '/home/dev/skerry/internal/tenant/slug.go', content: helper }), '/', {
      info,
      threshold: 0,
    });
    expect(m.flatMap((x) => x.why).filter((w) => /packag/.test(w))).toEqual([]);
  });

  it('counts a word pair once per note, however many identifiers of the call join it', () => {
    const idx = kb({
      'documents/usage.md': `---
name: prod-clickhouse-access
description: Per-tenant daily counts come from the usage hourly table
metadata:
  type: reference
---
Query the usage hourly table read-only.
`,
    });
    const m = matchAction(
      idx,
      call('Edit', {
        file_path: '/home/dev/skerry/migrations/0057.sql',
        old_string: 'ALTER TABLE usage_hourly MODIFY TTL hour + INTERVAL 40 DAY;',
        new_string: 'ALTER TABLE usage_hourly_local MODIFY TTL hour + INTERVAL 400 DAY;',
      }),
      '/',
      { info, threshold: 0 },
    );
    expect(m[0]!.why.filter((w) => w.startsWith('phrase:'))).toEqual(['phrase:usag hourli']);
  });
});

describe('a note named for a git step', () => {
  it('is about every run of that step, and a note that only mentions the word is not', () => {
    const idx = kb({
      'documents/commits.md': `---
name: commit-message-format
description: Commits use Conventional Commits with a component scope and a Refs trailer
metadata:
  type: feedback
---
Subject \`type(scope): summary\`.

**How to apply:** Every commit I create.
`,
      'documents/kafka.md': `---
name: no-kafka-mocks
description: Code that produces, consumes or commits offsets is tested against a real Redpanda
metadata:
  type: feedback
---
Never mock the Kafka client.
`,
    });
    const run = (command: string) => ids(idx, 'Bash', { command, description: 'x' });
    expect(run('git add batcher.go && git commit -m "Fix flush race in batcher"')).toEqual(['commit-message-format']);
    expect(run('git -C ../skerry commit --amend -m "fix flush"')).toEqual(['commit-message-format']);
    // Looking at commits is not making one.
    expect(run('git log --oneline -5')).toEqual([]);
    expect(run('git show HEAD')).toEqual([]);
  });
});

describe('a git word in the name of a note about something else', () => {
  it('names no git step: the note must say something of git besides the word', () => {
    const idx = kb({
      'documents/apns.md': `---
name: push-notifications-apns
description: APNs certificates expire yearly; renew the push certificate before the main thread stalls on TLS errors
metadata:
  type: project
---
The push certificate lives in the keychain.
`,
      'documents/offsets.md': `---
name: kafka-commit-offsets
description: Consumers commit offsets only after the downstream write succeeded
metadata:
  type: feedback
---
Use CommitRecords after the write.
`,
    });
    const run = (command: string) => ids(idx, 'Bash', { command, description: 'x' });
    expect(run('git push origin main')).toEqual([]);
    expect(run('git commit -m "feat: add retries"')).toEqual([]);
  });
});
