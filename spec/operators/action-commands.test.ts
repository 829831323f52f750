/**
 * The action matcher's rules for commands and places (operators/action): a shell script is read by
 * the commands it will run; a command a note names in prose counts as named; a changed file's
 * folders and name are one fact; a program is read without its version suffix.
 */
import { describe, it, expect } from '@jest/globals';
import { matchAction, shellCommands } from '../../operators/action/index.js';
import { call, ids, info, kb } from '../helpers/action.js';

describe('commands and places of a tool call', () => {
  it('reads the commands a shell script is written to run as commands, a glob argument standing for any glob', () => {
    const zsh = kb({
      'documents/zsh.md': `---
id: lrn-zsh-glob
title: "zsh aborts scripts on unmatched globs"
key_insight: "zsh raises 'no matches found' where bash passes the literal pattern; set null_glob or quote it."
---
\`rm -f *.tmp\` fails in zsh when no .tmp files exist.
`,
    });
    const write = (file_path: string, content: string) => ids(zsh, 'Write', { file_path, content });
    // A zsh script that will run `rm -f` on a glob: the command the note names, in the shell it names.
    expect(write('/home/dev/dotfiles/bin/clean-build', '#!/usr/bin/env zsh\n# clean\nrm -f build/*.o\n')).toEqual(['lrn-zsh-glob']);
    expect(write('/home/dev/dotfiles/bin/clean.sh', 'set -e\nrm -f dist/*.whl\necho zsh done\n')).toEqual(['lrn-zsh-glob']);
    // The same words in a document are not commands; nor is a comment of a script, nor a file by name.
    expect(write('/home/dev/dotfiles/docs/clean.md', 'In zsh, rm -f build/*.o cleans the build.\n')).toEqual([]);
    expect(write('/home/dev/dotfiles/bin/clean-build', '#!/usr/bin/env zsh\n# rm -f build/*.o\nmake clean\n')).toEqual([]);
    expect(write('/home/dev/dotfiles/bin/clean-build', '#!/usr/bin/env zsh\nrm -f build/app.o\n')).toEqual([]);
  });

  it('reads a command a note names in prose as a named command, unless the note names the code it is about', () => {
    const notes = kb({
      'documents/worktree.md': `---
id: lrn-worktree-prune
title: "Stale git worktree refs break new worktree creation"
key_insight: "After deleting a worktree dir manually, run git worktree prune before reusing the branch."
---
Body.
`,
      'documents/oom.md': `---
id: lrn-oom
title: "OOMKilled pods: read the cgroup peak, not the pod limit"
key_insight: "kubectl describe shows the limit, not the spike; memory.peak in the cgroup explains which burst killed the pod."
---
Body.
`,
    });
    expect(ids(notes, 'Bash', { command: 'git worktree add ../relay-hotfix hotfix/session-expiry' })).toEqual(['lrn-worktree-prune']);
    // A listing only looks.
    expect(ids(notes, 'Bash', { command: 'git worktree list' })).toEqual([]);
    // The note is about `memory.peak`: describing a pod is its command, not its point, until the call reads it.
    expect(ids(notes, 'Bash', { command: 'kubectl -n shop describe pod api-7c9d5b8f4-kq2xw' })).toEqual([]);
    expect(ids(notes, 'Bash', { command: 'kubectl -n shop describe pod api-7c9 && cat /sys/fs/cgroup/memory.peak' })).toEqual(['lrn-oom']);
  });

  it('counts the folders and name of a changed file once, by its best word, not by their sum', () => {
    const ci = kb({
      'documents/setup-node.md': `---
id: lrn-setup-node-cache
title: "GitHub workflows cache npm through setup-node"
key_insight: "In CI, let actions/setup-node cache npm; never cache node_modules."
---
Body.
`,
    });
    // Words as common as "workflow" or "npm", not the rarest: here the sum of three path words would decide.
    const edit = (text: string) =>
      matchAction(
        ci,
        call('Edit', {
          file_path: '/home/dev/shop/.github/workflows/ci.yml',
          old_string: '      - run: npm ci',
          new_string: `      - run: npm ci\n${text}`,
        }),
        '/home/dev/shop',
        { info: () => 0.9 },
      ).map((m) => m.id);
    // A new step in the CI workflow: the file is the note's place, and `npm` one word of it.
    expect(edit('      - run: npm run typecheck')).toEqual([]);
    expect(edit('      - uses: actions/cache@v4\n        with:\n          path: node_modules')).toEqual(['lrn-setup-node-cache']);
  });
});

describe("a program's version suffix", () => {
  const notes = kb({
    'documents/venv.md': `---
id: lrn-system-pip
title: "python -m pip install outside a venv writes to the system site-packages"
key_insight: "\`python -m pip install\` with no active venv breaks the distro's own tools; activate .venv first."
---
Body.
`,
    'documents/pip.md': `---
id: lrn-pip-user
title: "pip install --user breaks the pyenv shims"
applies_when: ["pip install"]
---
Body.
`,
  });

  it('is dropped on both sides: python3.12 -m pip install runs what a note calls python -m pip install, pip3 install matches "pip install"', () => {
    expect(ids(notes, 'Bash', { command: 'python3.12 -m pip install requests' })).toEqual(['lrn-system-pip']);
    expect(ids(notes, 'Bash', { command: '/usr/bin/pip3 install requests' })).toEqual(['lrn-pip-user']);
    expect(shellCommands('sqlite3 app.db .tables')[0]![0]).toBe('sqlite');
    // A version after a dash goes with its dash (`gcc-12` is gcc, not `gcc-`).
    expect(shellCommands('gcc-12 -O2 main.c')[0]![0]).toBe('gcc');
    expect(shellCommands('/usr/bin/clang-17 main.c')[0]![0]).toBe('/usr/bin/clang');
  });

  it('is dropped from a program a note names in prose too: pip3 install for "never run pip3 install"', () => {
    const prose = kb({
      'documents/brew.md': `---
id: lrn-brew-pip
title: "Never run pip3 install against Homebrew's interpreter"
key_insight: "Homebrew upgrades replace its packages; install into a venv instead."
---
Body.
`,
    });
    const m = matchAction(prose, call('Bash', { command: 'pip3 install requests' }), '/home/dev/shop', { info, threshold: 0 });
    expect(m[0]?.why).toContain('command:pip install');
  });

  it('is only a suffix after a name of three letters or more (ec2, k3s, s3cmd stay as written)', () => {
    for (const w of ['ec2', 'k3s', 's3cmd', 'md5sum']) expect(shellCommands(`${w} x`)[0]![0]).toBe(w);
  });
});

describe('a command that only changes folder', () => {
  const notes = kb({
    'documents/argo.md': `---
id: lrn-argo
title: "Skerry deploys go through Argo CD"
key_insight: "Replicas and config change by a pull request to skerry-deploy, never by hand."
---
Body.
`,
  });
  const whys = (command: string): string[] =>
    matchAction(notes, call('Bash', { command }), '/home/dev/skerry', { info, threshold: 0 }).flatMap((m) => m.why);

  it('says nothing about the call: cd and its folder are where the next command runs', () => {
    expect(whys('cd /home/dev/skerry && make build')).toEqual([]);
    expect(whys('pushd /home/dev/skerry/cd && make build; popd')).toEqual([]);
  });

  it('leaves the words of the command it leads to', () => {
    expect(whys('cd /home/dev/skerry && kubectl scale deploy/ingestd --replicas=12')).toEqual(
      expect.arrayContaining(['word:deploi', 'word:replica']),
    );
  });
});

describe('the command a note names, past options and runners', () => {
  const notes = kb({
    'documents/e2e.md': `---
name: e2e-playwright-rules
description: Playwright specs only for the critical flows
metadata:
  type: feedback
---
The suite (\`pnpm --filter web e2e\`) takes 38 minutes: new specs only for the critical flows.
`,
    'documents/client.md': `---
name: api-client-generated
description: The web client is generated from the OpenAPI schema
metadata:
  type: project
---
\`pnpm gen:api\` exports the schema (\`uv run python -m shop_api.openapi\`) and runs orval.
`,
    'documents/venv.md': `---
name: venv-per-service
description: Each service has its own virtualenv
metadata:
  type: feedback
---
Make the service's own env with \`python3 -m venv .venv\` inside the service folder, never a shared one.
`,
  });
  const run = (command: string): string[] => ids(notes, 'Bash', { command });

  const commandsFound = (command: string): string[] =>
    matchAction(notes, call('Bash', { command }), '/home/dev/shop', { info, threshold: 0 }).flatMap((m) =>
      m.why.filter((w) => w.startsWith('command:')),
    );

  it("takes an option's value for no subcommand: another run of the same workspace is not the note's command", () => {
    expect(run('pnpm --filter web e2e')).toEqual(['e2e-playwright-rules']);
    expect(commandsFound('pnpm --filter web typecheck')).toEqual([]);
    expect(commandsFound('pnpm --filter web exec vitest run components/WeekView.test.tsx')).toEqual([]);
  });

  it('reads what a runner and its interpreter run: another script through `uv run python` is not the command', () => {
    const commandsFound = (command: string): string[] =>
      matchAction(notes, call('Bash', { command }), '/home/dev/shop', { info, threshold: 0 }).flatMap((m) =>
        m.why.filter((w) => w.startsWith('command:')),
      );
    expect(commandsFound('uv run python -m shop_api.openapi')).toEqual(['command:uv run python -m shop_api.openapi']);
    expect(commandsFound('uv run python scripts/bench_availability.py --clinics 50')).toEqual([]);
  });

  it("reads an interpreter's module as its command: the module's arguments are no part of it", () => {
    expect(commandsFound('python -m venv venv')).toEqual(['command:python -m venv']);
    expect(commandsFound('python3 -m pip install -r requirements.txt')).toEqual([]);
  });
});

describe('a shell given a script to run', () => {
  it('reads the script: Codex runs its shell tool as `bash -lc <script>` and names the call so', () => {
    expect(shellCommands("bash -lc 'npm install zod@^3.24.1'")).toEqual([['npm', 'install', 'zod@^3.24.1']]);
    expect(shellCommands("/bin/bash -c 'cd api && npm i zod'")).toEqual([
      ['cd', 'api'],
      ['npm', 'install', 'zod'],
    ]);
    expect(shellCommands('sh -c "make test"')).toEqual([['make', 'test']]);
    expect(shellCommands(`bash -lc 'echo '"'"'hi'"'"''`)).toEqual([['echo', 'hi']]);
  });

  it('reads the script of a command sent as an argv (`["bash", "-lc", "<script>"]`)', () => {
    const argv = (command: string[]) => call('Bash', { command }).commands;
    expect(argv(['bash', '-lc', 'git commit -m "lane weekly model"'])).toEqual([['git', 'commit', '-m', 'lane weekly model']]);
    expect(argv(['bash', '-lc', "echo 'it''s' && npm i zod"])).toContainEqual(['npm', 'install', 'zod']);
    expect(argv(['git', 'status'])).toEqual([['git', 'status']]);
  });

  it('leaves a shell that runs a script file alone', () => {
    expect(shellCommands('bash -x deploy.sh')).toEqual([['bash', '-x', 'deploy.sh']]);
  });
});
