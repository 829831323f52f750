/**
 * Kinds of evidence a tool call can share with a note beyond its words (operators/action):
 * a variable the note names in capitals (`$PATH` for "python in PATH"), a file of the type the note
 * is about (a `.plist` for "launchd plists"), and a code-like token of the note's symptoms
 * (`card.last4` for "card last4 visible in the logs"); and the packages a Go or Rust edit imports.
 * Each is checked with and without it, so a spec fails when the evidence is missing and when it
 * reaches too far.
 */
import { describe, it, expect } from '@jest/globals';
import { matchAction } from '../../operators/action/index.js';
import { call, kb } from '../helpers/action.js';

/** Everyday words count as they do in English (the real word counts give these values); others as rare. */
const EVERYDAY: Record<string, number> = { path: 0.59, python: 0.74, system: 0.5, custom: 0.56, card: 0.5, search: 0.5, dict: 0.6 };
const info = (stem: string): number => EVERYDAY[stem] ?? 1;

const match = (idx: ReturnType<typeof kb>, tool: string, input: Record<string, unknown>) =>
  matchAction(idx, call(tool, input), '/home/dev/app', { info });

const PYENV = `---
id: lrn-pyenv
title: "pyenv shims must precede system python in PATH"
tags: [pyenv, python]
key_insight: "If system python wins PATH resolution, pyenv pinning silently no-ops."
---
Body.
`;
const IMPORT_PATH = `---
id: lrn-import-path
title: "Python import path picks the installed copy first"
key_insight: "An editable install puts the source folder on the import path; a second copy shadows it."
---
Body.
`;

describe('a variable the note names in capitals', () => {
  const idx = kb({ 'pyenv.md': PYENV, 'import.md': IMPORT_PATH });

  it('gives the note when the call uses the variable ($PATH), as a token of its own', () => {
    const m = match(idx, 'Bash', { command: `which -a python python3; echo "$PATH" | tr ':' '\\n'` });
    expect(m.map((x) => x.id)).toEqual(['lrn-pyenv']);
    expect(m[0]!.why).toContain('variable:$PATH');
  });

  it('counts a variable the call sets (PATH=..., export PATH=...) too', () => {
    const m = match(idx, 'Bash', { command: 'PATH=/usr/local/bin:/usr/bin python -V' });
    expect(m[0]?.why).toContain('variable:$PATH');
  });

  it('does not give a note that writes the word in lower case (an import path is no variable)', () => {
    const m = matchAction(idx, call('Bash', { command: `echo "$PATH"; python -c 'import app'` }), '/home/dev/app', { info, threshold: 0 });
    expect(m.find((x) => x.id === 'lrn-import-path')?.why ?? []).not.toContain('variable:$PATH');
  });

  it('takes `NAME=` inside an argument or a line of code for no setting (SQL `WHERE ID=5`)', () => {
    const ids = kb({ 'sid.md': '---\nid: lrn-sid\ntitle: "The session `ID` must be hashed before it is logged"\n---\nBody.\n' });
    const variables = (tool: string, input: Record<string, unknown>): string[] =>
      matchAction(ids, call(tool, input), '/home/dev/app', { info, threshold: 0 })
        .flatMap((x) => x.why)
        .filter((w) => w.startsWith('variable:'));
    expect(variables('Bash', { command: 'psql -c "DELETE FROM sessions WHERE ID=5"' })).toEqual([]);
    expect(variables('Write', { file_path: '/home/dev/app/q.sql', content: 'SELECT * FROM sessions WHERE ID=$1;\n' })).toEqual([]);
    // A variable set as a word of its own, or on a line of its own, is one.
    expect(variables('Bash', { command: 'docker run -e ID=5 app' })).toEqual(['variable:$ID']);
    expect(variables('Write', { file_path: '/home/dev/app/.env', content: 'export ID=5\n' })).toEqual(['variable:$ID']);
  });

  it('takes an abbreviation in prose for no variable (CI runners), a name the note writes as code for one', () => {
    const ci = kb({
      'runners.md': '---\nid: lrn-ci-cache\ntitle: "CI runners reuse the npm cache between jobs"\n---\nBody.\n',
      'flag.md': '---\nid: lrn-ci-flag\ntitle: "Jest watches forever unless `CI=true` is set"\n---\nBody.\n',
    });
    const whys = (id: string): string[] =>
      matchAction(ci, call('Bash', { command: 'CI=true npm test' }), '/home/dev/app', { info, threshold: 0 }).find((m) => m.id === id)
        ?.why ?? [];
    expect(whys('lrn-ci-cache')).not.toContain('variable:$CI');
    expect(whys('lrn-ci-flag')).toContain('variable:$CI');
  });

  it('takes a name the note writes as `$NAME` in prose for a variable ($TZ)', () => {
    const tz = kb({ 'tz.md': '---\nid: lrn-tz\ntitle: "Rollup tests read $TZ and fail at midnight"\n---\nBody.\n' });
    const m = matchAction(tz, call('Bash', { command: 'TZ=UTC go test ./internal/rollup/...' }), '/home/dev/app', { info, threshold: 0 });
    expect(m.find((x) => x.id === 'lrn-tz')?.why ?? []).toContain('variable:$TZ');
  });

  it('takes no lower-case word of the call for the variable', () => {
    const m = matchAction(idx, call('Bash', { command: 'python -c "import sys; print(sys.path)"' }), '/home/dev/app', {
      info,
      threshold: 0,
    });
    expect(m.flatMap((x) => x.why).filter((w) => w.startsWith('variable:'))).toEqual([]);
  });
});

const LAUNCHD = `---
name: launchd-plist-env
title: "launchd jobs don't inherit shell environment variables"
tags: [launchd, macos]
key_insight: "launchd plists run with a minimal env; bake variables into an EnvironmentVariables dict or wrap with a login shell."
---
Body.
`;
const PLIST_CONTENT = `<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0">
<dict>
  <key>Label</key><string>com.dev.sync-photos</string>
  <key>ProgramArguments</key><array><string>/Users/dev/bin/sync-photos</string></array>
</dict>
</plist>
`;

describe('a file of the type the note is about', () => {
  const idx = kb({ 'launchd.md': LAUNCHD });
  const plist = '/Users/dev/Library/LaunchAgents/com.dev.sync-photos.plist';

  it('gives the note for writing a file of that type (a .plist for "launchd plists")', () => {
    const m = match(idx, 'Write', { file_path: plist, content: PLIST_CONTENT });
    expect(m.map((x) => x.id)).toEqual(['launchd-plist-env']);
    expect(m[0]!.why).toContain('type:.plist');
  });

  it('does not count the type of a file the call only reads', () => {
    const m = matchAction(idx, call('Read', { file_path: plist }), '/Users/dev/dotfiles', { info, threshold: 0 });
    expect(m.flatMap((x) => x.why).filter((w) => w.startsWith('type:'))).toEqual([]);
  });

  it('takes a dotfile by its name, not as a type (.zshrc), and no type that is a code word (.yaml)', () => {
    const zsh = kb({
      'zsh.md': '---\nid: lrn-zsh\ntitle: "zshrc globs fail under nomatch"\n---\nBody.\n',
      'k8s.md': '---\nid: lrn-yaml\ntitle: "yaml anchors are not merged by kubectl"\n---\nBody.\n',
    });
    const whys = (file_path: string): string[] =>
      matchAction(zsh, call('Edit', { file_path, old_string: 'a', new_string: 'b' }), '/home/dev/app', { info, threshold: 0 }).flatMap(
        (x) => x.why,
      );
    expect(whys('/home/dev/dotfiles/.zshrc').filter((w) => w.startsWith('type:'))).toEqual([]);
    expect(whys('/home/dev/app/deploy/api.yaml').filter((w) => w.startsWith('type:'))).toEqual([]);
  });

  it('counts a type only where the note writes it as files, not a language or tool it names (SQL, CSS)', () => {
    const langs = kb({
      'sql.md': '---\nid: lrn-sql\ntitle: "Raw SQL migrations must set lock_timeout"\n---\nBody.\n',
      'css.md': '---\nid: lrn-css\ntitle: "Tailwind purges classes the CSS build never sees as literal strings"\n---\nBody.\n',
      'proto.md': '---\nid: lrn-proto\ntitle: "Never renumber fields in .proto files"\n---\nBody.\n',
    });
    const types = (file_path: string): string[] =>
      matchAction(langs, call('Edit', { file_path, old_string: 'a', new_string: 'b' }), '/home/dev/app', { info, threshold: 0 })
        .flatMap((x) => x.why)
        .filter((w) => w.startsWith('type:'));
    // Any report query, any stylesheet: the note names the language, not these files.
    expect(types('/home/dev/app/reports/monthly_revenue.sql')).toEqual([]);
    expect(types('/home/dev/app/src/app.css')).toEqual([]);
    expect(types('/home/dev/app/api/billing.proto')).toEqual(['type:.proto']);
  });

  it('takes a glob inside a folder (`config/*.php`) for that folder, not for every file of its type', () => {
    const globs = kb({
      'cfg.md': '---\nid: lrn-cfg\ntitle: "env() only inside config/*.php"\n---\nOn the servers config is cached.\n',
      'tf.md': '---\nid: lrn-tf\ntitle: "Every *.tf change needs terraform fmt"\n---\nBody.\n',
    });
    const types = (file_path: string): string[] =>
      matchAction(globs, call('Edit', { file_path, old_string: 'a', new_string: 'b' }), '/home/dev/app', { info, threshold: 0 })
        .flatMap((x) => x.why)
        .filter((w) => w.startsWith('type:'));
    // Any model of a PHP project is a .php file: the note is about the config folder's files.
    expect(types('/home/dev/app/app/Models/Invoice.php')).toEqual([]);
    // A glob with no folder still names the type.
    expect(types('/home/dev/app/infra/main.tf')).toEqual(['type:.tf']);
  });

  it('is not enough alone for a type three notes name', () => {
    const three = kb({
      'a.md': LAUNCHD,
      'b.md': '---\nid: lrn-b\ntitle: "keys in plists are case-sensitive"\n---\nBody.\n',
      'c.md': '---\nid: lrn-c\ntitle: "binary plist files need plutil to diff"\n---\nBody.\n',
    });
    const m = matchAction(
      three,
      call('Edit', { file_path: plist, old_string: '<key>A</key>', new_string: '<key>B</key>' }),
      '/Users/dev/x',
      {
        info,
        threshold: 0,
      },
    );
    expect(m.filter((x) => x.why.includes('type:.plist')).every((x) => !x.strong)).toBe(true);
  });
});

const PII = `---
id: lrn-pii
title: "Redact PII in structured logs at the logger, not at call sites"
tags: [logging, pii]
symptoms:
  - "Customer email and card last4 visible in the log search"
rule: "Never log request bodies, headers, or user objects unredacted."
---
Body.
`;

describe("the code-like tokens of a note's symptoms", () => {
  const idx = kb({ 'pii.md': PII });

  it('gives the note for a log line that writes what its symptoms saw (card.last4)', () => {
    const m = match(idx, 'Edit', {
      file_path: '/home/dev/app/billing/charge.py',
      old_string: '    raise Declined(exc.code)',
      new_string: '    logger.warning("declined %s %s", customer.email, card.last4)\n    raise Declined(exc.code)',
    });
    expect(m.map((x) => x.id)).toEqual(['lrn-pii']);
    expect(m[0]!.why).toContain('token:last4');
  });

  it("takes no everyday word of the symptoms (a call that writes 'customer' and 'search')", () => {
    const m = matchAction(
      idx,
      call('Edit', { file_path: '/home/dev/app/search.py', old_string: 'x = 1', new_string: 'results = search(customer)' }),
      '/home/dev/app',
      { info, threshold: 0 },
    );
    expect(m.flatMap((x) => x.why).filter((w) => /custom|search/.test(w))).toEqual([]);
  });
});

const GO_TESTS = `---
name: go-test-style
description: Go tests are table-driven with t.Run and testify/require (not assert)
metadata:
  type: feedback
---
Use \`require\` from testify, not \`assert\`.
`;
const SERDE = `---
id: lrn-serde-untagged
title: "serde untagged enums swallow the real deserialize error"
---
Body.
`;

describe('the packages a Go or Rust edit imports', () => {
  const idx = kb({ 'go_tests.md': GO_TESTS, 'serde.md': SERDE });
  const whys = (file_path: string, content: string): string[] =>
    matchAction(idx, call('Write', { file_path, content }), '/home/dev/app', { info: () => 0.8, threshold: 0 }).flatMap((m) => m.why);

  it('reads a Go import block by the named parts of each path, not its host or layout folders', () => {
    const test = 'package auth\n\nimport (\n\t"testing"\n\n\t"github.com/stretchr/testify/assert"\n)\n';
    expect(whys('/home/dev/app/internal/auth/header_test.go', test)).toEqual(expect.arrayContaining(['import:testify', 'import:assert']));
    expect(whys('/home/dev/app/internal/auth/header_test.go', test).filter((w) => /import:(github|pkg)/.test(w))).toEqual([]);
  });

  it('reads an edit that adds one line to a Go import block (the line is only the path)', () => {
    const m = matchAction(
      idx,
      call('Edit', {
        file_path: '/home/dev/app/x_test.go',
        old_string: '\t"testing"',
        new_string: '\t"testing"\n\t"github.com/stretchr/testify/assert"',
      }),
      '/home/dev/app',
      { info: () => 0.8, threshold: 0 },
    );
    expect(m.flatMap((x) => x.why)).toContain('import:testify');
  });

  it('reads a Rust use by its crate, and neither form outside its language', () => {
    expect(whys('/home/dev/app/src/config.rs', 'use serde::Deserialize;\n')).toContain('import:serde');
    expect(whys('/home/dev/app/config.json', '  "github.com/stretchr/testify/assert"\n').filter((w) => w.startsWith('import:'))).toEqual(
      [],
    );
    expect(whys('/home/dev/app/notes.txt', 'use serde::Deserialize;\n').filter((w) => w.startsWith('import:'))).toEqual([]);
  });
});
