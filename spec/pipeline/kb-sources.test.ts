/** Which KBs a recall reads with nothing configured, which it skips and why, and where a note is written. */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../pipeline/config/config.js';
import { parseConfigText } from '../../pipeline/config/file.js';
import { resolveSources, writableScope } from '../../pipeline/kb-sources/index.js';
import { claudeProjectSlug } from '../../sources/harness-memory/index.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A HOME with a git project, its Claude Code memory (one note) and optionally the pooled KB. */
function world(opts: { pooled?: boolean; codex?: boolean } = {}) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-src-')));
  made.push(root);
  const home = path.join(root, 'home');
  const project = path.join(root, 'proj');
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  const memory = path.join(home, '.claude', 'projects', claudeProjectSlug(project), 'memory');
  fs.mkdirSync(memory, { recursive: true });
  fs.writeFileSync(path.join(memory, 'a.md'), '---\nname: a\ndescription: alpha\n---\nalpha\n');
  if (opts.pooled) fs.mkdirSync(path.join(home, '.learnings', 'documents'), { recursive: true });
  if (opts.codex) {
    fs.mkdirSync(path.join(home, '.codex', 'memories'), { recursive: true });
    fs.writeFileSync(path.join(home, '.codex', 'memories', 'MEMORY.md'), '# Task group: deploys\n- prefer blue-green\n');
  }
  const env = { HOME: home, REFLECT_STATE_DIR: path.join(home, '.reflect') };
  const sources = (extra: Record<string, string> = {}, kb: string | null = null) =>
    resolveSources(loadConfig({ ...env, ...extra }), { kb, cwd: project, env: { ...env, ...extra } });
  const writes = (extra: Record<string, string> = {}, kb: string | null = null) =>
    writableScope(loadConfig({ ...env, ...extra }), { kb, cwd: project, env: { ...env, ...extra } });
  return { home, project, memory, sources, writes };
}

describe('resolveSources', () => {
  it('reads the pooled KB (when it exists) and the project memory together; says why it skips the rest', () => {
    const w = world();
    const alone = w.sources();
    expect(alone.zeroConfig).toBe(true);
    expect(alone.read.map((s) => [s.kind, s.root])).toEqual([['claude-memory', w.memory]]);
    expect(alone.skipped).toEqual([
      { source: 'learnings', root: path.join(w.home, '.learnings'), why: expect.stringMatching(/^does not exist yet/) },
    ]);
    fs.mkdirSync(path.join(w.home, '.learnings', 'documents'), { recursive: true });
    expect(w.sources().read.map((s) => s.kind)).toEqual(['pooled', 'claude-memory']);
  });

  it('turns each source off by its setting, and reads the scope rules KB when nothing is left', () => {
    const w = world({ pooled: true, codex: true });
    expect(w.sources().read.map((s) => s.kind)).toEqual(['pooled', 'claude-memory']);
    expect(w.sources({ RECALL_CODEX_MEMORY: '1' }).read.map((s) => s.kind)).toEqual(['pooled', 'claude-memory', 'codex-memory']);
    const noMemory = w.sources({ RECALL_CLAUDE_MEMORY: '0' });
    expect(noMemory.read.map((s) => s.kind)).toEqual(['pooled']);
    expect(noMemory.skipped).toContainEqual({ source: 'claude-memory', root: w.memory, why: 'turned off (claude_memory = false)' });
    expect(w.sources({ RECALL_LEARNINGS_KB: '0' }).read.map((s) => s.kind)).toEqual(['claude-memory']);
    const none = w.sources({ RECALL_LEARNINGS_KB: '0', RECALL_CLAUDE_MEMORY: '0' });
    expect(none.read.map((s) => s.kind)).toEqual(['pooled']);
  });

  it('a configured KB replaces the zero-config sources; a kbs list is read together', () => {
    const w = world({ pooled: true });
    const other = path.join(w.home, 'other');
    fs.mkdirSync(other);
    expect(w.sources({}, other).read.map((s) => [s.kind, s.root])).toEqual([['explicit', other]]);
    expect(w.sources({ GLOBAL_LEARNINGS_PATH: other }).read.map((s) => s.kind)).toEqual(['env']);
    const listed = w.sources({ RECALL_KBS: [other, w.memory, path.join(w.home, 'missing')].join(path.delimiter) });
    expect(listed.read.map((s) => [s.kind, s.root])).toEqual([
      ['configured', other],
      ['configured', w.memory],
    ]);
    expect(listed.skipped).toEqual([{ source: 'kbs', root: path.join(w.home, 'missing'), why: 'no such folder' }]);
  });
});

describe('writableScope', () => {
  it('never writes into a harness memory folder, however it is named', () => {
    const w = world();
    const pooled = path.join(w.home, '.learnings');
    expect(w.writes().root).toBe(pooled);
    expect(w.writes({}, w.memory).root).toBe(pooled);
    expect(w.writes({ GLOBAL_LEARNINGS_PATH: w.memory }).root).toBe(pooled);
    const other = path.join(w.home, 'other');
    expect(w.writes({ RECALL_KBS: [w.memory, other].join(path.delimiter) }).root).toBe(other);
  });
});

describe('recall.toml kbs', () => {
  it('takes a list of paths, and refuses a list that is not one', () => {
    expect(parseConfigText('kbs = ["~/a", "/b"]\n', 'f').values['RECALL_KBS']).toBe(['~/a', '/b'].join(path.delimiter));
    expect(parseConfigText('kbs = "/only"\n', 'f').values['RECALL_KBS']).toBe('/only');
    expect(parseConfigText('kb = ["/a", "/b"]\n', 'f').values).toEqual({ RECALL_KBS: ['/a', '/b'].join(path.delimiter) });
    const bad = parseConfigText('kbs = ["/a", 3]\n', 'f');
    expect(bad.values['RECALL_KBS']).toBeUndefined();
    expect(bad.warnings).toEqual([expect.stringMatching(/^f: kbs must be a list of paths/)]);
  });
});
