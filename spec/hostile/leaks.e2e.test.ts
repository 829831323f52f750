/**
 * Leak nothing, carry nothing hidden, through the real hook and CLI processes:
 * - prompts carrying each secret shape leave no secret anywhere in the state dir (recall log, cache
 *   entries, cache index and file names, knowledge gaps, follow-up records, metrics, breadcrumbs,
 *   hook logs);
 * - a note whose title, insight and body hide an instruction in tag characters (and every other
 *   invisible character) reaches no agent and no terminal with any of it: hook context, markdown
 *   and JSON output, `show`, `stages hydrate`, `trace`, and MCP answers.
 */
import { describe, it, expect, afterAll, beforeAll } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliEntry, expectEnvelope, hostileCase, note, prompt, runCli, runHook, type Case } from './helpers.js';
import { SECRET_SHAPES } from '../../scripts/hostile/secret-shapes.js';
import { HIDDEN_INSTRUCTION, INVISIBLES, asTags, countInvisible } from '../../scripts/hostile/invisible-text.js';

/** Every file under `dir` with its bytes as text (binary files too: a secret in an index page counts). */
function filesUnder(dir: string): { file: string; text: string }[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .map((file) => ({ file, text: fs.readFileSync(file).toString('latin1') + fs.readFileSync(file, 'utf8') }));
}

describe('secrets in prompts', () => {
  let c: Case;
  afterAll(() => c?.cleanup());

  it('no secret shape is stored in clear anywhere in the state dir', async () => {
    c = hostileCase();
    for (const [i, s] of SECRET_SHAPES.entries()) {
      const r = await runHook('user-prompt-submit', { env: c.env, stdin: prompt(s.prompt, `sec${i}`), killAfterMs: 30_000 });
      expectEnvelope(r, 30_000);
    }
    // The same prompts through the CLI (its own log lines and cache entries) …
    for (const s of SECRET_SHAPES.slice(0, 4)) {
      const r = await runCli(['--kb', c.kb, s.prompt], { env: c.env, killAfterMs: 30_000 });
      expect(r.code).toBe(0);
    }
    // … a token sent as the session id, twice (it named the session's files and was logged) …
    for (const q of ['postgres connection pool exhausted in tests', 'kafka consumer lag after a rebalance']) {
      const r = await runHook('user-prompt-submit', { env: c.env, stdin: prompt(q, SECRET_SHAPES[3]!.secret), killAfterMs: 30_000 });
      expectEnvelope(r, 30_000);
    }
    // … and a hook whose stdin is broken JSON with a secret in it: the breadcrumb quotes the input.
    const broken = `{"session_id":"bad","prompt":"${SECRET_SHAPES[3]!.secret} ${SECRET_SHAPES[6]!.secret}`;
    expectEnvelope(await runHook('user-prompt-submit', { env: c.env, stdin: broken, killAfterMs: 30_000 }), 30_000);

    const files = filesUnder(c.state);
    const names = files.map((f) => path.relative(c.state, f.file));
    // Written at all (a store that writes nothing would leak nothing and prove nothing).
    expect(names).toEqual(expect.arrayContaining(['recall_log.jsonl', 'knowledge-gaps.jsonl', 'recall_cache/index.json']));
    expect(names.filter((n) => /^recall_cache\/[0-9a-f]{16}\.json$/.test(n)).length).toBeGreaterThan(0);
    for (const n of ['recall_log.jsonl', 'knowledge-gaps.jsonl', 'recall_cache/index.json'])
      expect(files.find((f) => names[files.indexOf(f)] === n)!.text).toContain('***REDACTED***');
    expect(names.filter((n) => n.includes(SECRET_SHAPES[3]!.secret))).toEqual([]);
    const leaks = SECRET_SHAPES.filter((s) => files.some((f) => f.text.includes(s.secret))).map(
      (s) =>
        `${s.name} in ${files
          .filter((f) => f.text.includes(s.secret))
          .map((f) => path.relative(c.state, f.file))
          .join(',')}`,
    );
    expect(leaks).toEqual([]);
  }, 240_000);
});

describe('invisible text in notes', () => {
  let c: Case;
  let client: Client | null = null;
  const hidden = asTags(HIDDEN_INSTRUCTION);
  const zw = INVISIBLES.join('');
  beforeAll(() => {
    c = hostileCase();
    fs.writeFileSync(
      path.join(c.kb, 'documents', 'smuggle.md'),
      note(
        'lrn-smuggle',
        `postgres pool${hidden} tuning`,
        `raise the pool size${zw} per worker${hidden} and watch idle connections`,
        // YAML allows neither U+FEFF nor C1 controls in front matter: those go in the body only.
      ).replace(/key_insight: .*\n/, `key_insight: "postgres pool\u200b\u2060\u200e${hidden} sizing"\n`),
    );
  });
  afterAll(async () => {
    await client?.close();
    c?.cleanup();
  });

  const expectClean = (label: string, out: string): void => {
    expect({ label, invisible: countInvisible(out) }).toEqual({ label, invisible: 0 });
    expect(out).not.toContain(hidden.slice(0, 8));
  };

  it('the hook context carries none of it', async () => {
    const r = await runHook('user-prompt-submit', { env: c.env, stdin: prompt('postgres pool tuning per worker'), killAfterMs: 30_000 });
    const ctx = expectEnvelope(r, 30_000);
    expect(ctx).toContain('lrn-smuggle');
    expectClean('hook context', ctx);
    expectClean('hook envelope', r.stdout);
  }, 60_000);

  it('no CLI output carries any of it: markdown, json, show, stages hydrate, trace', async () => {
    const runs: [string, string[]][] = [
      ['markdown', ['--kb', c.kb, 'postgres pool tuning per worker']],
      ['json', ['--kb', c.kb, '--format', 'json', 'postgres pool tuning per worker']],
      ['show', ['show', '--kb', c.kb, 'lrn-smuggle']],
      ['stages hydrate (json)', ['stages', 'hydrate', '--kb', c.kb, 'lrn-smuggle']],
      ['trace', ['trace', '--kb', c.kb, 'postgres pool tuning per worker']],
    ];
    for (const [label, args] of runs) {
      const r = await runCli(args, { env: c.env, killAfterMs: 30_000 });
      expect({ label, code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ label, code: 0, stderr: '' });
      expect(r.stdout).toMatch(/lrn-smuggle|raise the pool size/);
      expectClean(label, r.stdout);
      expectClean(`${label} (stderr)`, r.stderr);
    }
  }, 120_000);

  it('no MCP answer carries any of it', async () => {
    client = new Client({ name: 'leaks-spec', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cliEntry, 'mcp', '--kb', c.kb],
        env: c.env as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    const text = async (name: string, args: Record<string, unknown>): Promise<string> =>
      ((await client!.callTool({ name, arguments: args })) as { content: { text: string }[] }).content.map((x) => x.text).join('');
    const answers = {
      search: await text('search', { query: 'postgres pool tuning per worker' }),
      index: await text('index', { query: 'postgres pool tuning per worker' }),
      hydrate: await text('hydrate', { ids: ['lrn-smuggle'] }),
    };
    for (const [label, out] of Object.entries(answers)) {
      expect(out).toMatch(/lrn-smuggle|raise the pool size/);
      expectClean(`mcp ${label}`, out);
    }
  }, 60_000);
});
