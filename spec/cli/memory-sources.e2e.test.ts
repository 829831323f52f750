/**
 * From zero to a useful memory, as a user meets it: a fresh HOME holding only Claude Code's memory
 * folder for the current project. The real prompt hook (`bin/recall hook user-prompt-submit`, real
 * hook JSON on stdin) injects the matching memory; an agent saves learnings through `recall mcp`
 * driven by the MCP SDK's own client over stdio, and the next prompt's hook injects them; secrets
 * and invisible characters never reach the disk; bad fields are refused; `recall status` lists the
 * sources; each source can be turned off.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { repo, zeroConfigWorld, type ZeroConfigWorld } from '../helpers/zero-config.js';

let w: ZeroConfigWorld;
let root = '';
let home = '';
let project = '';
let memory = '';
let client: Client;

type ToolText = { content: { type: string; text: string }[]; isError?: boolean };
const call = async (name: string, args: Record<string, unknown>): Promise<ToolText> =>
  (await client.callTool({ name, arguments: args })) as ToolText;
const text = (r: ToolText): string => r.content.map((c) => c.text).join('');
const recall: ZeroConfigWorld['recall'] = (args, opts) => w.recall(args, opts);
const promptHook: ZeroConfigWorld['promptHook'] = (prompt, sessionId, env) => w.promptHook(prompt, sessionId, env);
const savedFiles = (): string[] => w.savedFiles();
const readSaved = (): string => w.readSaved();

beforeAll(async () => {
  w = zeroConfigWorld();
  ({ root, home, project, memory } = w);
  const baseEnv = w.baseEnv;
  client = new Client({ name: 'recall-spec', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(repo, 'scripts', 'launch.mjs'), 'recall', 'mcp'],
    // As Claude Code starts an MCP server: in the project, with its project dir and session id.
    env: baseEnv({ CLAUDECODE: '1', CLAUDE_PROJECT_DIR: project, CLAUDE_CODE_SESSION_ID: 'sess-42' }) as Record<string, string>,
    cwd: project,
    stderr: 'pipe',
  });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
  w?.cleanup();
});

describe('zero-config sources', () => {
  it("the prompt hook injects the project's Claude Code memory, with nothing configured", () => {
    const ctx = promptHook('can I merge my pull request to main on Friday before the release?', 'zero-1');
    expect(ctx).toMatch(/^<recall-notes>\n/);
    expect(ctx).toContain('**[merge-freeze]**');
    expect(ctx).toContain('How to apply: land pull requests by Thursday evening');
    // An unrelated prompt gets nothing: the memory is read, not injected wholesale.
    expect(promptHook('how do I rotate the nginx access logs on the edge boxes', 'zero-2')).toBe('');
  }, 60_000);

  it('each source can be turned off (environment and recall.toml)', () => {
    const prompt = 'can I merge my pull request to main on Friday before the release?';
    expect(promptHook(prompt, 'off-1', { RECALL_CLAUDE_MEMORY: '0' })).toBe('');
    const cfg = path.join(root, 'recall.toml');
    fs.writeFileSync(cfg, 'claude_memory = false\n');
    expect(promptHook(prompt, 'off-2', { RECALL_CONFIG: cfg })).toBe('');
    // A `kbs` list is configuration: only those KBs are read.
    const other = path.join(root, 'other-kb');
    fs.mkdirSync(path.join(other, 'documents'), { recursive: true });
    fs.writeFileSync(cfg, `kbs = [${JSON.stringify(other)}]\n`);
    expect(promptHook(prompt, 'off-3', { RECALL_CONFIG: cfg })).toBe('');
    fs.writeFileSync(cfg, `kbs = [${JSON.stringify(other)}, ${JSON.stringify(memory)}]\n`);
    expect(promptHook(prompt, 'off-4', { RECALL_CONFIG: cfg })).toContain('**[merge-freeze]**');
  }, 120_000);
});

describe('the agent saves what it learns (recall mcp)', () => {
  it('lists save, supersede and forget next to the read tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['explain', 'forget', 'hydrate', 'index', 'save', 'search', 'supersede', 'timeline']);
    const save = tools.find((t) => t.name === 'save')!;
    expect(save.inputSchema.required).toEqual(['title', 'insight']);
    expect(save.description).toMatch(/non-obvious fix/);
  });

  it("saves a learning in the reflect template into the project's KB (created), and the next prompt's hook injects it", async () => {
    const r = await call('save', {
      title: 'Celery beat runs twice behind two replicas',
      insight: 'Two api replicas each start celery beat, so every periodic task runs twice; beat must run in exactly one process.',
      how_to_apply: 'Run beat as its own single-replica deployment and start workers without -B.',
      tags: ['celery', 'deploy'],
      confidence: 'high',
      type: 'bug-fix',
    });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toMatch(
      /^Saved lrn-celery-beat-runs-twice-behind-two-replicas-[0-9a-f]{6} to .*\.learnings\/documents\/celery-beat-runs-twice-behind-two-replicas\.md \(new KB /,
    );
    const note = readSaved();
    expect(note).toMatch(
      /^---\ntype: learning\nid: "lrn-celery-beat-runs-twice-behind-two-replicas-[0-9a-f]{6}"\ntitle: "Celery beat runs twice behind two replicas"\n/,
    );
    expect(note).toMatch(
      /confidence: medium\nconfidence_num: 0\.6\nlearning_type: "bug-fix"\nproject_id: "shop\.api_v2"\ntags: \["celery", "deploy"\]\n[^]*\nstatus: proposed\n/,
    );
    expect(note).toMatch(
      /provenance:\n {2}source_tool: "recall mcp"\n {2}harness: "claude"\n {2}session_id: "sess-42"\n {2}detected_at: "/,
    );
    expect(note).toContain('**How to apply:** Run beat as its own single-replica deployment and start workers without -B.');
    // The memory folder is input only: nothing was written there.
    expect(fs.readdirSync(memory).sort()).toEqual(['MEMORY.md', 'merge_freeze.md']);

    const ctx = promptHook('periodic celery task runs twice after scaling the api to two replicas', 'save-1');
    expect(ctx).toMatch(
      /\*\*\[lrn-celery-beat-runs-twice-behind-two-replicas-[0-9a-f]{6}\]\*\* _\(written by the agent in session sess-42 \(claude\), not reviewed;/,
    );
    // Both sources are read together: the memory still answers its own prompt.
    expect(promptHook('can I merge my pull request to main on Friday before the release?', 'save-2')).toContain('**[merge-freeze]**');
  }, 60_000);

  it('stores no secret and no invisible character, in any field', async () => {
    const r = await call('save', {
      title: 'Stripe\u202e webhook\u2066 secret\u0007 rotation',
      insight: 'After rotating, the old signing key sk-live-ABCDEFGHIJKLMNOPQRSTUV stays valid for 24 hours.',
      how_to_apply: 'Set token=whsec_0123456789abcdefghij in the shell before replaying events.',
      body: 'Failing call:\n\ncurl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig" https://api.example.test\npassword: hunter2hunter2\nAKIAIOSFODNN7EXAMPLE\n',
      tags: ['stripe'],
    });
    expect(r.isError).toBeFalsy();
    const note = readSaved();
    for (const secret of [
      'sk-live-ABCDEFGHIJKLMNOPQRSTUV',
      'whsec_0123456789abcdefghij',
      'eyJhbGciOiJIUzI1NiJ9',
      'hunter2hunter2',
      'AKIAIOSFODNN7EXAMPLE',
    ])
      expect(note).not.toContain(secret);
    expect(note).toContain('***REDACTED***');
    expect(note).not.toMatch(/[\u202e\u2066\u0007]/);
    expect(note).toContain('title: "Stripe webhook secret rotation"');
  });

  it('refuses a bad field with a clear error and writes nothing', async () => {
    const before = savedFiles().length;
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ title: '', insight: 'x' }, /^recall: title: must not be empty$/],
      [{ title: 'two\nlines', insight: 'x' }, /^recall: title: must be one line$/],
      [{ title: 'x'.repeat(201), insight: 'y' }, /^recall: title: 201 characters, at most 200$/],
      [{ title: 'ok', insight: 'y'.repeat(1001) }, /^recall: insight: 1001 characters, at most 1000$/],
      [{ title: 'ok', insight: 'y', tags: ['../etc'] }, /^recall: tags: "..\/etc" is not a tag/],
      [{ title: 'ok', insight: 'y', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, /^recall: tags: 21 tags, at most 20$/],
      [{ title: 'ok', insight: 'y', type: 'Bug Fix!' }, /^recall: type: "bug fix!" is not a learning type/],
    ];
    for (const [args, message] of cases) {
      const r = await call('save', args);
      expect({ args, error: r.isError, text: text(r) }).toEqual({ args, error: true, text: expect.stringMatching(message) });
    }
    const bad = await call('save', { title: 'ok', insight: 'y', confidence: 'certain' });
    expect(bad.isError).toBe(true);
    expect(savedFiles()).toHaveLength(before);
    for (const id of ['../../etc/passwd', '/etc/passwd', 'a/../../b', 'x y']) {
      const f = await call('forget', { id });
      expect({ id, error: f.isError, text: text(f) }).toEqual({
        id,
        error: true,
        text: expect.stringMatching(/^recall: id: .* is not a note id/),
      });
    }
  });

  it('supersedes one learning with another and forgets one; the hook follows', async () => {
    const old = text(
      await call('save', {
        title: 'Restart the worker pool when redis drops',
        insight: 'A redis blip leaves the worker pool hung; restarting the pool clears it.',
      }),
    );
    const oldId = /Saved (\S+)/.exec(old)![1]!;
    const neu = text(
      await call('save', {
        title: 'Worker pool hangs after a redis blip: set socket keepalive',
        insight:
          'The worker pool hangs after a redis blip because dead sockets are never noticed; socket_keepalive and a health check interval fix it without restarts.',
        type: 'correction',
      }),
    );
    const newId = /Saved (\S+)/.exec(neu)![1]!;
    const sup = await call('supersede', { old_id: oldId, new_id: newId });
    expect(sup.isError).toBeFalsy();
    expect(text(sup)).toBe(`${oldId} is superseded by ${newId}; recall no longer returns ${oldId}.`);
    const ctx = promptHook('the worker pool hangs after a redis blip', 'sup-1');
    expect(ctx).toContain(`**[${newId}]**`);
    expect(ctx).not.toContain(`**[${oldId}]**`);
    const gone = await call('forget', { id: newId });
    expect(text(gone)).toMatch(new RegExp(`^Forgot ${newId}: moved to .*documents/\\.forgotten/`));
    expect(promptHook('the worker pool hangs after a redis blip', 'sup-2')).not.toContain(`**[${newId}]**`);
    // A memory note is Claude Code's: recall cannot forget it.
    const mem = await call('forget', { id: 'merge-freeze' });
    expect(mem.isError).toBe(true);
    expect(fs.existsSync(path.join(memory, 'merge_freeze.md'))).toBe(true);
  }, 60_000);

  it('also through a symlink to the memory folder, and for an autoMemoryDirectory elsewhere', () => {
    const link = path.join(root, 'memory-link');
    fs.symlinkSync(memory, link);
    const viaLink = recall(['forget', 'merge-freeze', '--kb', link]);
    expect(viaLink.code).toBe(2);
    expect(viaLink.stderr).toContain("a harness's own memory folder");
    expect(fs.existsSync(path.join(memory, 'merge_freeze.md'))).toBe(true);
    // A memory folder moved by the user's Claude Code settings is just as much the harness's.
    const elsewhere = path.join(root, 'amd');
    fs.mkdirSync(elsewhere);
    fs.writeFileSync(path.join(elsewhere, 'tf.md'), '---\nname: tf\ndescription: terraform state lock is stuck\n---\nUse force-unlock.\n');
    const settings = path.join(home, '.claude', 'settings.json');
    const before = fs.existsSync(settings) ? fs.readFileSync(settings, 'utf8') : null;
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    fs.writeFileSync(settings, JSON.stringify({ autoMemoryDirectory: elsewhere }));
    try {
      const out = recall(['forget', 'tf', '--kb', elsewhere]);
      expect(out.code).toBe(2);
      expect(fs.existsSync(path.join(elsewhere, 'tf.md'))).toBe(true);
    } finally {
      if (before === null) fs.rmSync(settings);
      else fs.writeFileSync(settings, before);
    }
  }, 60_000);
});

describe('the same through the CLI, for harnesses without MCP', () => {
  it("recall add from an agent's shell: provenance names the harness and session, secrets are scrubbed, the hook finds it", () => {
    const out = recall(
      [
        'add',
        '--title',
        'Flaky e2e login: wait for the session cookie',
        '--insight',
        'The login e2e test fails at random because it navigates before the session cookie is set; api_key=sk_live_abcdefghijklmnop0123 was not the cause.',
        '--apply',
        'Wait for the cookie, not for a fixed delay.',
        '--tags',
        'e2e,auth',
      ],
      { env: { CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: 'sess-cli-7' } },
    );
    expect(out.code).toBe(0);
    const file = /^added \S+: (.+)$/m.exec(out.stdout)![1]!;
    const note = fs.readFileSync(file, 'utf8');
    expect(note).toMatch(/provenance:\n {2}source_tool: "recall add"\n {2}harness: "claude"\n {2}session_id: "sess-cli-7"\n/);
    expect(note).not.toContain('sk_live_abcdefghijklmnop0123');
    expect(promptHook('the login e2e test is flaky, it fails at random', 'cli-1')).toContain(
      '**[lrn-flaky-e2e-login-wait-for-the-session-cookie-',
    );
  }, 60_000);

  it('supersede and forget refuse to change a harness memory folder', () => {
    const out = recall(['forget', 'merge-freeze', '--kb', memory]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("a harness's own memory folder, which recall reads but never changes");
    expect(fs.existsSync(path.join(memory, 'merge_freeze.md'))).toBe(true);
  }, 60_000);
});

describe('recall status and trace name the sources', () => {
  it('status lists every source read, the skipped ones with why, and where saves go', () => {
    const out = recall(['status', '--json']);
    expect(out.code).toBe(0);
    const s = (
      JSON.parse(out.stdout) as {
        sources: {
          zeroConfig: boolean;
          read: { root: string; scope: string; live: number }[];
          skipped: { source: string; why: string }[];
          writeTo: { root: string };
        };
      }
    ).sources;
    expect(s.zeroConfig).toBe(true);
    expect(s.read.map((r) => [r.root, r.scope])).toEqual([
      [path.join(home, '.learnings'), 'pooled'],
      [memory, 'claude-memory'],
    ]);
    expect(s.read[1]!.live).toBe(1);
    expect(s.writeTo.root).toBe(path.join(home, '.learnings'));
    const off = recall(['status'], { env: { RECALL_CLAUDE_MEMORY: '0' } });
    expect(off.stdout).toContain(`not read ${memory}: turned off (claude_memory = false)`);
    const textOut = recall(['status']).stdout;
    expect(textOut).toContain(`read ${memory} (Claude Code memory of ${project}; read-only): 1 live`);
  }, 60_000);

  it('trace starts with the sources', () => {
    const out = recall(['trace', 'merge freeze friday', '--format', 'jsonl']);
    expect(out.code).toBe(0);
    const first = JSON.parse(out.stdout.split('\n')[0]!) as { stage: string; read: { root: string }[] };
    expect(first.stage).toBe('sources');
    expect(first.read.map((r) => r.root)).toContain(memory);
  }, 60_000);
});
