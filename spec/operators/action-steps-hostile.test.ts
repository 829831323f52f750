/**
 * What the manifest reading, the "How to apply" step and the git-step subject must not take for a
 * step (operators/action): a manifest's settings read as dependencies, a hostile line that stalls
 * the reading, another subcommand of the same program, a git word in a name about something else.
 */
import { describe, it, expect } from '@jest/globals';
import { manifestCommands } from '../../operators/action/manifests.js';
import { ids, kb } from '../helpers/action.js';

describe('a manifest edit that adds no dependency', () => {
  it('reads no object a package.json opens (scripts, engines, a tool config) as a dependency', () => {
    expect(manifestCommands('/p/package.json', '  "scripts": {\n  "jest": {\n  "engines": {\n  "overrides": {')).toEqual([]);
  });

  it("reads no pyproject tool setting, nor a tool's list of words, as a dependency", () => {
    const ruffAndPytest =
      '[tool.pytest.ini_options]\nminversion = "7.0"\ntestpaths = [\n  "tests",\n]\n[tool.ruff.lint]\nselect = [\n  "E",\n  "UP",\n]\n[tool.mypy]\npython_version = "3.11"\n[tool.pyright]\npythonVersion = "3.11"';
    expect(manifestCommands('/p/pyproject.toml', ruffAndPytest)).toEqual([]);
    // A dependency in a PEP 621 list, and Poetry's, still are.
    expect(manifestCommands('/p/pyproject.toml', '  "httpx>=0.27",\nrich = "^13"')).toEqual([
      ['pip', 'install', 'httpx'],
      ['poetry', 'add', 'httpx'],
      ['uv', 'add', 'httpx'],
      ['pip', 'install', 'rich'],
      ['poetry', 'add', 'rich'],
      ['uv', 'add', 'rich'],
    ]);
  });

  it("reads no Cargo.toml inline table that is no dependency's (a lint level) as one", () => {
    expect(manifestCommands('/p/Cargo.toml', '[lints.clippy]\npedantic = { level = "warn", priority = -1 }')).toEqual([]);
    expect(manifestCommands('/p/Cargo.toml', 'tokio = { version = "1", features = ["full"] }\nlocal = { path = "../local" }')).toEqual([
      ['cargo', 'add', 'tokio'],
      ['cargo', 'add', 'local'],
    ]);
  });

  it('reads a hostile 8 KB line of each manifest quickly', () => {
    const t0 = Date.now();
    for (const file of ['requirements.txt', 'pyproject.toml', 'Cargo.toml', 'package.json', 'go.mod', 'Gemfile']) {
      for (const line of [`a${' '.repeat(7990)}x`, `"a${' '.repeat(7990)}x`, `"a"${' '.repeat(7990)}x`, `a==${' '.repeat(7990)}`]) {
        manifestCommands(`/p/${file}`, line);
      }
    }
    // A backtracking regex takes minutes here; a linear one, milliseconds (generous for a loaded machine).
    expect(Date.now() - t0).toBeLessThan(1500);
  });
});

describe('the step a "How to apply" names', () => {
  const RERUN = `---
name: flaky-ci-rerun
description: The e2e job is flaky on the shared runners; rerun only its failed jobs
metadata:
  type: feedback
---
The e2e suite times out on the shared runners about one run in ten.

**How to apply:** When CI fails on e2e only: \`gh run rerun <id> --failed\`, never a whole new run.
`;

  it('is not another subcommand of the same program and group', () => {
    const idx = kb({ 'documents/rerun.md': RERUN });
    const run = (command: string) => ids(idx, 'Bash', { command, description: 'x' });
    expect(run('gh run rerun 9182734 --job 4411')).toEqual(['flaky-ci-rerun']);
    expect(run('gh run watch 9182734')).toEqual([]);
    expect(run('gh run cancel 9182734')).toEqual([]);
  });
});
