/**
 * `recall status` (alias `doctor`): what this directory's recall would read and why, and the health
 * of everything around it — one data object (`--json`) and its text form.
 *
 * It resolves the KB with the same scope rules as a recall, brings the index up to date the way a
 * recall would (so the skipped-notes list is current) and reads, never changes, everything else:
 * model files, the daemon's socket, each harness's hook files, the state dir's logs.
 *
 * Extension point: STATUS_SECTIONS. A feature with state of its own (the team store) adds one
 * section there — a name, a function that collects its data, and one that renders it — and it
 * appears in both the text and the JSON output (under `sections.<name>`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, modelSettings, type RecallConfig } from '../pipeline/config/index.js';
import type { Scope } from '../pipeline/scope.js';
import { resolveSources, writableScope } from '../pipeline/kb-sources/index.js';
import { checkKbDir } from '../pipeline/run.js';
import { claudePluginInstalled, codexPluginInstalled, hookWiring, type HookWiring } from '../hooks/install/index.js';
import { hookLines } from './status-hooks.js';
import { openKbIndex } from '../pipeline/kb/index.js';
import { kbLayout } from '../sources/kb/index.js';
import { kbProblem } from '../pipeline/health/index.js';
import { closeIndex, countNotes, indexFileFor, indexGeneration, refreshIndex } from '../sources/index/index.js';
import { sqliteDriver } from '../sources/sqlite/index.js';
import { modelPresence, type ModelRole } from '../sources/models/index.js';
import { daemonSocketPath } from '../sources/daemon-protocol.js';
import type { TeamStatus } from './team/index.js';
import { noteLines, type StatusNotes } from './status-notes.js';

export { hookWiring, recallEvents, type HookWiring } from '../hooks/install/index.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface StatusContext {
  env: Env;
  cwd: string;
  config: RecallConfig;
  /** The KB the status is about. */
  scope: Scope;
}

/** One extra part of the status report (see STATUS_SECTIONS). */
export interface StatusSection<T = unknown> {
  name: string;
  /** Its data; null leaves the section out (nothing configured). Must not throw for a runtime problem: say it in the data. */
  collect(ctx: StatusContext): Promise<T | null>;
  /** Its lines in the text report (the first is the heading). */
  render(data: T): string[];
}

/**
 * The team store (PostgreSQL): where it is, the pulled shard, last push and pull, who is trusted. Left
 * out when no store is configured and nothing was pulled. The store is not contacted (status must
 * answer offline and fast; `recall team status` probes it).
 */
const teamSection: StatusSection<TeamStatus & { report: string[] }> = {
  name: 'team',
  async collect(ctx) {
    // Loaded only here: the team code (and its PostgreSQL client) stays off every other path.
    const { teamStatus, formatStatus } = await import('./team/team.js');
    const s = await teamStatus(ctx.env, { probe: false });
    if (!s.configured && s.shard.notes === 0) return null;
    return { ...s, report: formatStatus(s).split('\n').filter(Boolean) };
  },
  render(s) {
    return s.report.map((line, i) => (i === 0 ? `team      ${line.replace(/^team store: /, '')}` : `          ${line}`));
  },
};

/** The extra sections, in the order they are shown. A feature with state of its own adds one here. */
export const STATUS_SECTIONS: StatusSection[] = [teamSection];

export interface StatusReport {
  kb: {
    root: string;
    scope: string;
    reason: string;
    project: string;
    branch: string;
    layout: 'reflect' | 'flat';
    exists: boolean;
  };
  notes: StatusNotes;
  /**
   * Everything a recall here reads (the first is `kb` above) with its live notes, the sources
   * skipped and why, and where a saved note goes (pipeline/kb-sources).
   */
  sources: {
    zeroConfig: boolean;
    read: { root: string; scope: string; reason: string; live: number }[];
    skipped: { source: string; root: string; why: string }[];
    writeTo: { root: string; reason: string };
  };
  index: {
    file: string;
    driver: string;
    bytes: number;
    generation: number;
    /** What bringing the index up to date took: files added, re-read, removed (all 0: it was current). */
    refreshed: { added: number; updated: number; removed: number; ms: number };
    inMemory: string | null;
  };
  models: { dir: string; roles: { role: ModelRole; id: string; present: boolean; detail: string; serves: string }[] };
  daemon: { socket: string; running: boolean };
  hooks: HookWiring[];
  claudePlugin: boolean;
  /** The recall plugin in Codex's plugin list, named, or null. */
  codexPlugin: string | null;
  state: { dir: string; files: { name: string; bytes: number }[] };
  sections: Record<string, unknown>;
  /** Why recall cannot give the agent anything, with the fix (the line SessionStart shows the person), or null. */
  problem: string | null;
}

const size = (file: string): number => {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
};

/** State files worth knowing the size of (logs grow; the index is reported on its own). */
function stateFiles(stateDir: string): { name: string; bytes: number }[] {
  const names = ['recall_log.jsonl', 'knowledge-gaps.jsonl', 'recent-searches.json', 'last-event.json'];
  let logs: string[] = [];
  try {
    logs = fs.readdirSync(path.join(stateDir, 'logs')).map((n) => `logs/${n}`);
  } catch {
    /* no hook logs yet */
  }
  let cache = 0;
  try {
    for (const n of fs.readdirSync(path.join(stateDir, 'recall_cache'))) cache += size(path.join(stateDir, 'recall_cache', n));
  } catch {
    /* no cache yet */
  }
  const files = [...names, ...logs].map((name) => ({ name, bytes: size(path.join(stateDir, name)) })).filter((f) => f.bytes > 0);
  if (cache > 0) files.push({ name: 'recall_cache/', bytes: cache });
  return files;
}

export interface StatusOptions {
  kb: string | null;
  global: boolean;
  allBranches: boolean;
}

/** The KB's note counts and its index, brought up to date the way a recall would (when the KB exists). */
function indexFacts(root: string, exists: boolean, config: RecallConfig): Pick<StatusReport, 'notes' | 'index'> {
  let notes: StatusReport['notes'] = { live: 0, archived: 0, forgotten: 0, skipped: [], warnings: [] };
  let index: StatusReport['index'] = {
    file: indexFileFor(root, config.stateDir),
    driver: sqliteDriver(),
    bytes: 0,
    generation: 0,
    refreshed: { added: 0, updated: 0, removed: 0, ms: 0 },
    inMemory: null,
  };
  if (exists) {
    const h = openKbIndex(config, root);
    try {
      const r = refreshIndex(h, { problems: true });
      const c = countNotes(h);
      const listed = (ps: typeof r.problems) => ps.map((p) => ({ path: p.rel, reason: p.message }));
      notes = { ...c, skipped: listed(r.problems), warnings: listed(r.warnings) };
      index = {
        ...index,
        file: h.file,
        bytes: h.file === ':memory:' ? 0 : size(h.file) + size(`${h.file}-wal`),
        generation: indexGeneration(h),
        refreshed: { added: r.added, updated: r.updated, removed: r.removed, ms: Math.round(r.ms) },
        inMemory: h.fallbackReason,
      };
    } finally {
      closeIndex(h);
    }
  }
  return { notes, index };
}

export async function collectStatus(opts: StatusOptions, io: { env: Env; cwd: string }): Promise<StatusReport> {
  const config = loadConfig(io.env);
  if (opts.kb) checkKbDir(opts.kb, io.cwd, { allowEmpty: true });
  const scopeOpts = { kb: opts.kb, global: opts.global, allBranches: opts.allBranches, cwd: io.cwd, env: io.env };
  const sources = resolveSources(config, scopeOpts);
  const scope = sources.read[0]!;
  const exists = fs.existsSync(scope.root);
  const layout = kbLayout(scope.root);
  const { notes, index } = indexFacts(scope.root, exists, config);
  const read = sources.read.map((s, i) => ({
    root: s.root,
    scope: s.kind,
    reason: s.reason,
    live: i === 0 ? notes.live : indexFacts(s.root, fs.existsSync(s.root), config).notes.live,
  }));
  const writeTo = writableScope(config, scopeOpts);
  const settings = modelSettings(config);
  const roles = (['rerank', 'embed'] as ModelRole[]).map((role) => {
    const p = modelPresence(settings, role);
    return {
      role,
      id: p.id,
      present: p.present,
      detail: p.present ? `${p.dtype}, ${(p.bytes / 1048576).toFixed(1)} MB` : `missing ${p.missing.join(', ')}`,
      serves: p.serves,
    };
  });
  const socket = daemonSocketPath(config.stateDir, settings);
  const ctx: StatusContext = { env: io.env, cwd: io.cwd, config, scope };
  const sections: Record<string, unknown> = {};
  for (const s of STATUS_SECTIONS) {
    const data = await s.collect(ctx);
    if (data !== null) sections[s.name] = data;
  }
  return {
    kb: { root: scope.root, scope: scope.kind, reason: scope.reason, project: scope.project, branch: scope.branch, layout, exists },
    notes,
    sources: { zeroConfig: sources.zeroConfig, read, skipped: sources.skipped, writeTo: { root: writeTo.root, reason: writeTo.reason } },
    index,
    models: { dir: config.modelsDir, roles },
    daemon: { socket, running: fs.existsSync(socket) },
    hooks: hookWiring(io.env, io.cwd),
    claudePlugin: claudePluginInstalled(io.env),
    codexPlugin: codexPluginInstalled(io.env),
    state: { dir: config.stateDir, files: stateFiles(config.stateDir) },
    sections,
    problem: kbProblem(
      { root: scope.root, liveNotes: notes.live, problems: notes.skipped.length },
      io.env,
      config.stateDir,
      io.env['HOME'] || os.homedir(),
    ),
  };
}

const kib = (n: number): string => (n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`);

/** The sources block: every KB read (with its live notes), every source skipped and why, where saves go. */
function sourceLines(src: StatusReport['sources']): string[] {
  const how = src.zeroConfig ? 'no KB configured: the zero-config sources' : 'the configured KB';
  // The KB saves go to stands in as "read" when nothing is (answers name it): list it once, as not read.
  const read = src.read.filter((r) => !src.skipped.some((s) => s.root === r.root));
  const lines = [`sources   ${read.length} read, ${src.skipped.length} not read (${how})`];
  for (const s of read) lines.push(`          read ${s.root} (${s.reason}): ${s.live} live`);
  for (const s of src.skipped) lines.push(`          not read ${s.root || s.source}: ${s.why}`);
  lines.push(`          saves go to ${src.writeTo.root} (${src.writeTo.reason})`);
  return lines;
}

/** The report as text for a person. */
export function formatStatus(r: StatusReport): string {
  const out: string[] = [];
  if (r.problem) out.push(`problem   ${r.problem.replace(/^recall: /, '')}`);
  const branch = r.kb.branch ? `, branch ${r.kb.branch}` : '';
  out.push(`KB        ${r.kb.root}`);
  out.push(
    `          chosen by ${r.kb.reason}${r.kb.project && !r.kb.reason.includes(r.kb.project) ? ` (project ${r.kb.project}${branch})` : ''}`,
  );
  out.push(
    `          layout: ${r.kb.layout === 'reflect' ? 'reflect KB (documents/, archived/)' : 'folder of markdown (every *.md is a note)'}${r.kb.exists ? '' : '; the folder does not exist yet (`recall add` creates it)'}`,
  );
  out.push(...noteLines(r.notes));
  out.push(...sourceLines(r.sources));
  const ref = r.index.refreshed;
  const fresh =
    ref.added + ref.updated + ref.removed === 0
      ? 'up to date'
      : `brought up to date now: ${ref.added} added, ${ref.updated} re-read, ${ref.removed} removed (${ref.ms} ms)`;
  out.push(
    `index     ${r.kb.exists ? fresh : 'none yet'}; ${r.index.inMemory ? `in memory (${r.index.inMemory})` : `${r.index.file} (${kib(r.index.bytes)})`}; sqlite ${r.index.driver}`,
  );
  out.push(`models    ${r.models.dir}`);
  for (const m of r.models.roles)
    out.push(
      `          ${m.role === 'rerank' ? 'cross-encoder' : 'embedder'} ${m.id}: ${m.present ? `installed (${m.detail})` : `not installed (optional; ${m.serves} off until \`recall models pull\`)`}`,
    );
  out.push(
    `daemon    ${r.daemon.running ? `socket present: ${r.daemon.socket} (recall daemon status asks it)` : 'not running (starts on first model use)'}`,
  );
  out.push(...hookLines(r));
  out.push(`state     ${r.state.dir}`);
  for (const f of r.state.files) out.push(`          ${f.name} ${kib(f.bytes)}`);
  for (const s of STATUS_SECTIONS) if (s.name in r.sections) out.push(...s.render(r.sections[s.name]));
  return `${out.join('\n')}\n`;
}
