/**
 * Every recall command in the ```sh blocks of README.md, CONTRIBUTING.md and docs/*.md, run as
 * written (through sh, pipes included), in that order, on a copy of the example KB, a scratch KB and
 * a Claude Code memory folder, each checked for its exit code and the shape of its output. A command
 * this spec cannot run (network, harness CLIs) is listed in NOT_RUN with the reason; any other line
 * it does not recognise fails the spec, so the docs and the behaviour cannot drift apart.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DOC_FILES, readDoc, repo, shLines } from '../helpers/docs.js';

const docs = DOC_FILES.map(readDoc).join('\n');

/** Documented lines that are not recall commands or cannot run here, and why. */
const NOT_RUN: [RegExp, string][] = [
  [/^npm /, 'npm scripts: CI runs them'],
  [/^git clone /, 'a clone and its npm ci: CI does both, spec/scripts/plugin-payload.e2e.test.ts builds the payload'],
  [/^(claude|codex) plugin /, 'harness CLIs: npm run verify:harnesses runs them'],
  [/^cd ~\/\.codex\//, 'a step inside an installed Codex plugin: verify:harnesses'],
  [/^bin\/recall models pull/, 'the only network command: spec/sources/models/pull.test.ts runs it against a local hub'],
  [/^recall team /, 'needs a PostgreSQL server: spec/team/team-store.e2e.test.ts runs the team commands against a real one'],
  [/^node dist\/scripts\/hostile\.js/, 'a timing script (minutes, a 20k-note KB): spec/hostile/ asserts its cases'],
  [/^bin\/recall view/, 'a web server that runs until Ctrl-C: spec/cli/view.e2e.test.ts drives it and checks its pages in chromium'],
];

interface Ran {
  line: string;
  code: number;
  stdout: string;
  stderr: string;
}

let base = '';
let env: Record<string, string> = {};
const ran: Ran[] = [];

/** A documented line with its placeholders made concrete. */
function concrete(line: string, ids: { example: string }): string {
  return line
    .replace(/examples\/kb/g, path.join(base, 'example-kb'))
    .replace(/\/tmp\/my-kb/g, path.join(base, 'my-kb'))
    .replace(/~\/\.claude\/projects\/<project>\/memory/g, path.join(base, 'home/.claude/projects/-srv-billing-svc/memory'))
    .replace(/--id lrn-…/g, `--id ${ids.example}`)
    .replace(/--anchor ID/g, `--anchor ${ids.example}`)
    .replace(/hydrate ID \[ID \.\.\.\]/g, `hydrate ${ids.example} lrn-stripe-webhook-idempotency-b3e4f7`);
}

function sh(line: string): Ran {
  const r = spawnSync('sh', ['-c', `set -e; ${line}`], {
    encoding: 'utf8',
    env: { ...env, PATH: `${path.join(repo, 'bin')}:${process.env['PATH'] ?? ''}` },
    cwd: repo,
    input: '',
  });
  return { line, code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const MEMORY: Record<string, string> = {
  'MEMORY.md':
    '- [Merges freeze Thursday evening](project_release_train.md) — the weekly release train\n- [Integration tests hit a real database](feedback_db_tests.md) — mocks hid a broken migration\n',
  'project_release_train.md':
    '---\nname: release-train-freeze\ndescription: Merges to main freeze Thursday 18:00 UTC for the Friday release train\nmetadata:\n  type: project\n---\nThe release is cut Friday 09:00 UTC from main.\n\n**Why:** the app store review needs the Friday cut.\n**How to apply:** flag merges planned after Thursday 18:00 UTC and suggest Monday.\n',
  'feedback_db_tests.md':
    '---\nname: integration-tests-real-db\ndescription: Integration tests must hit a real postgres database, not mocked repositories\nmetadata:\n  type: feedback\n---\nRun `make db` before the integration suite.\n\n**Why:** mocks passed while the prod migration failed.\n**How to apply:** never add a repository mock to an integration test.\n',
};

beforeAll(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-readme-'));
  fs.cpSync(path.join(repo, 'examples', 'kb'), path.join(base, 'example-kb'), { recursive: true });
  const memory = path.join(base, 'home/.claude/projects/-srv-billing-svc/memory');
  fs.mkdirSync(memory, { recursive: true });
  for (const [name, text] of Object.entries(MEMORY)) fs.writeFileSync(path.join(memory, name), text);
  fs.mkdirSync(path.join(base, 'state'));
  env = {
    HOME: path.join(base, 'home'),
    REFLECT_STATE_DIR: path.join(base, 'state'),
    // Commands without --kb read this KB (the README's "Which KB is read": $GLOBAL_LEARNINGS_PATH).
    GLOBAL_LEARNINGS_PATH: path.join(base, 'example-kb'),
    CODEX_HOME: path.join(base, 'home/.codex'),
    NO_COLOR: '1',
  };
  const ids = { example: 'lrn-pytest-pg-pool-fixture-c04e7a' };
  for (const line of shLines(docs)) {
    if (NOT_RUN.some(([re]) => re.test(line))) continue;
    ran.push(sh(concrete(line, ids)));
  }
}, 240_000);

afterAll(() => {
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

const find = (re: RegExp): Ran[] => ran.filter((r) => re.test(r.line));
const json = (r: Ran): unknown => JSON.parse(r.stdout);

describe('README and docs commands', () => {
  it('runs every recall command of the README and docs (the ones it cannot run are listed with a reason)', () => {
    const lines = shLines(docs);
    const unknown = lines.filter((l) => !NOT_RUN.some(([re]) => re.test(l)) && !/(^|[|;]\s*|=\S+\s+)bin\/recall\b/.test(l));
    expect(unknown).toEqual([]);
    expect(ran.length).toBeGreaterThanOrEqual(35);
  });

  it('exits 0 with no error output, every one of them', () => {
    const bad = ran
      .filter((r) => r.code !== 0 || /error|Error:|EPIPE|at .*\.mjs/.test(r.stderr))
      .map((r) => ({ line: r.line, code: r.code, stderr: r.stderr.slice(0, 300) }));
    expect(bad).toEqual([]);
  });

  it('answers a query with a markdown block whose header counts what it shows', () => {
    for (const r of find(/bin\/recall (--kb \S+ )*"[^"]+"( --verbose)?$/)) {
      const head = r.stdout.split('\n')[0]!;
      // Nothing relevant enough: recall says so on stderr (abstention), never prints an empty header;
      // what it found under the floor may follow under the weak-matches line. Which doc query abstains
      // can depend on the day it runs ("what changed last week").
      if (!head || head.startsWith('_Weak matches')) {
        expect(r.stderr).toMatch(/^recall: nothing relevant enough to return \(/m);
        continue;
      }
      expect(head).toMatch(
        // Savings only when some learning shown declares its discovery cost (sinks/render/markdown.ts).
        /^## Prior learnings relevant to `[^`]+` — (1 learning|\d+ learnings), ~\d+ tok injected(, est ~-?\d+ tok saved)?$/,
      );
    }
    const field = find(/--field rule/)[0]!;
    expect(field.stdout.split('\n')[0]).toContain('(field: rule)');
    const verbose = find(/--verbose/)[0]!;
    expect(verbose.stderr).toMatch(/^recall: reading .*example-kb \(--kb\)$/m);
    // Missing optional models: one line, the last of what --verbose reports (an abstention, which the
    // day it runs may bring, is the answer's own line after it).
    const reported = verbose.stderr
      .trim()
      .split('\n')
      .filter((l) => !l.startsWith('recall: nothing relevant enough to return'));
    expect(reported.filter((l) => l.includes('no model for'))).toHaveLength(1);
    expect(reported.at(-1)).toMatch(/^recall: no model for vector, rerank, embed \(optional/);
  });

  it('reads the query from stdin with `-`', () => {
    const r = find(/\| bin\/recall --kb \S+ -$/)[0]!;
    expect(r.stdout).toMatch(/^## Prior learnings relevant to `postgres pool exhausted in CI`/);
  });

  it('prints JSON for --format json and --json, with the KB it read', () => {
    const one = json(find(/example-kb "[^"]+" --limit 5 --format json/)[0]!) as {
      results: unknown[];
      kb: { scope: string; reason: string };
    };
    expect(one.kb).toMatchObject({ scope: 'explicit', reason: '--kb' });
    // The example finds what it is an example of (a query about a note the example KB holds).
    expect(one.results.length).toBeGreaterThan(0);
    const several = json(find(/--kb \S+ --kb \S+ .* --json$/)[0]!) as { results: { id: string; path: string }[]; kb: unknown[] };
    expect(several.kb).toHaveLength(2);
    const ids = several.results.map((x) => x.id);
    expect(ids).toContain('lrn-pytest-pg-pool-fixture-c04e7a');
    expect(several.results.every((x) => path.isAbsolute(x.path))).toBe(true);
  });

  it('status names the KB and why, the notes, skipped files, index, models, hooks and state', () => {
    const [example, memory] = find(/^bin\/recall status --kb/);
    expect(example!.stdout).toMatch(/^KB {8}\S+example-kb\n {10}chosen by --kb\n {10}layout: reflect KB/);
    expect(example!.stdout).toMatch(/^notes {5}31 live, 1 archived, 1 forgotten; 0 skipped$/m);
    for (const section of ['index', 'models', 'daemon', 'hooks', 'state']) expect(example!.stdout).toMatch(new RegExp(`^${section} `, 'm'));
    expect(memory!.stdout).toMatch(/layout: folder of markdown/);
    expect(memory!.stdout).toMatch(/^notes {5}2 live, 0 archived, 0 forgotten; 1 skipped$/m);
    expect(memory!.stdout).toContain("skipped MEMORY.md: Claude Code's index of the other memory files");
  });

  it('reads a Claude Code memory folder as a KB', () => {
    const r = find(/memory "is there a merge freeze before the friday release"/)[0]!;
    expect(r.stdout).toContain('- **[release-train-freeze]** Merges to main freeze Thursday 18:00 UTC');
    expect(r.stdout).toContain('How to apply: flag merges planned after Thursday 18:00 UTC and suggest Monday.');
  });

  it('list and show, also piped into head', () => {
    const list = find(/^bin\/recall list --kb \S+example-kb --since/)[0]!;
    const rows = list.stdout.trim().split('\n');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThanOrEqual(5);
    for (const row of rows) expect(row).toMatch(/^2026-11-(2\d|3\d) {2}\S+ +\S+ {2}.+/);
    const show = find(/^bin\/recall show /)[0]!;
    expect(show.stdout.split('\n').slice(0, 2)).toEqual([
      'Stripe webhooks are delivered more than once: dedupe on event.id',
      expect.stringMatching(/^\[lrn-stripe-webhook-idempotency-b3e4f7\] {2}\S+stripe-webhook-idempotency\.md$/),
    ]);
  });

  it('add, supersede and forget write the KB, and recall follows', () => {
    const [added, fromStdin] = find(/bin\/recall add /);
    expect(added!.stdout).toMatch(
      /^added lrn-pool-per-worker: \S+my-kb\/documents\/size-the-postgres-pool-per-worker\.md \(new KB at \S+my-kb\)\n$/,
    );
    expect(fromStdin!.stdout).toMatch(/^added lrn-pool-raise: \S+\/pool-sizing-first-try\.md\n$/);
    const before = find(/--kb \S+my-kb "postgres pool size per worker"/)[0]!;
    expect(before.stdout).toContain('[lrn-pool-per-worker]');
    expect(find(/bin\/recall supersede /)[0]!.stdout).toMatch(/^lrn-pool-raise is superseded by lrn-pool-per-worker/);
    const forgot = json(find(/bin\/recall forget /)[0]!) as { id: string; to: string };
    expect(forgot.id).toBe('lrn-pool-raise');
    expect(forgot.to).toMatch(/my-kb\/documents\/\.forgotten\/pool-sizing-first-try\.md$/);
    const all = find(/list --kb \S+my-kb --all/)[0]!.stdout;
    expect(all).toMatch(/lrn-pool-per-worker {2}Size the postgres pool per worker\n/);
    expect(all).toMatch(/lrn-pool-raise {2}Pool sizing, first try {2}\[forgotten\]/);
  });

  it("review lists the agent's notes; accept makes one a person's, reject retires the other", () => {
    const review = find(/^bin\/recall review /)[0]!.stdout;
    expect(review).toMatch(/^2 notes written by an agent await your review:/);
    expect(review).toContain('written by the agent in session 7f3a9c21…, not reviewed, via recall add');
    expect(find(/^bin\/recall accept /)[0]!.stdout).toMatch(/^accepted lrn-ci-cache-lockfile \(confidence HIGH\): \S+\.md\n$/);
    expect(find(/^bin\/recall reject /)[0]!.stdout).toMatch(
      /^rejected lrn-run-setup-script: moved \S+ → \S+my-kb\/documents\/\.forgotten\/run-the-setup-script-before-tests\.md/,
    );
  });

  it('index, stages, trace (text, JSON lines, into head), explain (text and JSON), replay', () => {
    expect(find(/^bin\/recall index --kb/)[0]!.stdout).toMatch(
      /^indexed \S+example-kb: 62 usable of 62 files \(\d+ added, \d+ re-read, 0 removed\)/,
    );
    expect(find(/stages workflow/)[0]!.stdout).toMatch(/^# Reflect Staged Recall Workflow/);
    expect(json(find(/stages index/)[0]!)).toMatchObject({ step: 1 });
    expect(json(find(/stages timeline/)[0]!)).toMatchObject({ step: 2, anchor: 'lrn-pytest-pg-pool-fixture-c04e7a' });
    expect(json(find(/stages hydrate/)[0]!)).toMatchObject({ step: 3, count: 2 });
    const [text, jsonl, head] = find(/bin\/recall trace /);
    expect(text!.stdout).toMatch(/^ +[\d.]+ ms {2}start {8}query "postgres pool exhausted"/);
    for (const l of jsonl!.stdout.trim().split('\n')) expect(JSON.parse(l)).toHaveProperty('stage');
    expect(head!.stdout.trim().split('\n')).toHaveLength(2);
    const [explainText, explainJson] = find(/bin\/recall explain /);
    expect(explainText!.stdout).toMatch(/^lrn-pytest-pg-pool-fixture-c04e7a: included, rank \d of \d+ \(score [\d.]+\)\n {2}relevance /);
    expect(json(explainJson!)).toMatchObject({
      id: 'lrn-pytest-pg-pool-fixture-c04e7a',
      verdict: 'included',
      rank: expect.any(Number),
      arms: expect.arrayContaining([expect.objectContaining({ arm: 'bm25' })]),
    });
    for (const r of find(/bin\/recall replay/)) expect(r.stdout).toMatch(/^replayed \d+ recalls from \S+: \d+ would change/);
    // Nothing changed between the recalls and their replay: nothing would change.
    expect(find(/replay --fail-on-change/)[0]!.stdout).toMatch(/: 0 would change/);
  });

  it('hooks install, models status, daemon status, version and help', () => {
    for (const r of find(/hooks install --harness/)) expect(r.stdout.length).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(base, 'home/.codex/hooks.json'))).toBe(true);
    expect(find(/models status/)[0]!.stdout).toMatch(/^models dir: /);
    expect(find(/daemon status/)[0]!.stdout).toMatch(/^model daemon: not running/);
    expect(find(/--version$/)[0]!.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(find(/help status/)[0]!.stdout).toMatch(/^recall status\n/);
  });
});
