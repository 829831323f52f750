/**
 * Which KBs a recall reads, and why: the scope rules (pipeline/scope.ts) when a KB is configured,
 * else the zero-config sources, searched together as `--kb A --kb B` is (pipeline/session/multi-kb.ts):
 *
 *   configured:  --kb DIR · `kb` ($GLOBAL_LEARNINGS_PATH) · --global / `global` → that one KB;
 *                `kbs` (RECALL_KBS) → those KBs together.
 *   zero-config: the reflect KB the scope rules choose (a project shard, else the pooled KB), when it
 *                exists (`learnings_kb`); the project's Claude Code memory folder (`claude_memory`);
 *                Codex's memories store (`codex_memory`, off by default: it is not per project).
 *
 * A source that is off, missing or empty is listed under `skipped` with the reason, for `recall
 * status`, `recall trace` and `--verbose`. When nothing is left to read, the scope rules' KB is read
 * anyway (empty or not yet created), so a recall answers as it always did: nothing found.
 *
 * Harness memory folders are read-only input: notes are written to `writableScope`, the reflect KB.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RecallConfig } from '../config/index.js';
import { resolveScope, type Scope, type ScopeOptions } from '../scope.js';
import { hasMarkdown } from '../../sources/kb/index.js';
import { loadConfig } from '../config/index.js';
import { checkKbDir } from '../kb/index.js';
import { claudeConfigDir, claudeMemoryDir, claudeMemoryOverride, codexMemoryDir } from '../../sources/harness-memory/index.js';

type Env = Readonly<Record<string, string | undefined>>;

export type SourceName = 'learnings' | 'kbs' | 'claude-memory' | 'codex-memory';

export interface SkippedSource {
  source: SourceName;
  root: string;
  why: string;
}

export interface KbSources {
  /** What a recall reads, in order (never empty). */
  read: Scope[];
  /** Sources looked at and not read, each with why. */
  skipped: SkippedSource[];
  /** True when no KB was configured and the zero-config sources were chosen. */
  zeroConfig: boolean;
}

export interface SourceOptions extends ScopeOptions {
  env: Env;
}

/** Whether a KB is configured: then only it is read (the scope rules), never harness memory. */
function configured(config: RecallConfig, opts: ScopeOptions): boolean {
  return Boolean(opts.kb || config.scope.globalLearningsPath || opts.global || config.scope.global);
}

function configuredList(config: RecallConfig): KbSources {
  const read: Scope[] = [];
  const skipped: SkippedSource[] = [];
  const n = config.scope.kbs.length;
  config.scope.kbs.forEach((root, i) => {
    if (!fs.existsSync(root)) skipped.push({ source: 'kbs', root, why: 'no such folder' });
    else read.push({ root, kind: 'configured', project: '', branch: '', reason: `kbs (RECALL_KBS), ${i + 1} of ${n}` });
  });
  // Every listed KB missing: the first is "read" (empty), so the answer names it.
  if (read.length === 0)
    read.push({ root: config.scope.kbs[0]!, kind: 'configured', project: '', branch: '', reason: 'kbs (RECALL_KBS), 1 of ' + n });
  return { read, skipped, zeroConfig: false };
}

/** A harness memory folder as a source, or why it is skipped. */
function memorySource(
  source: 'claude-memory' | 'codex-memory',
  on: boolean,
  setting: string,
  found: { dir: string; how: string },
): Scope | SkippedSource {
  if (!on) return { source, root: found.dir, why: `turned off (${setting})` };
  let isDir = false;
  try {
    isDir = fs.statSync(found.dir).isDirectory();
  } catch {
    /* missing */
  }
  if (!isDir) return { source, root: found.dir, why: `no such folder (${found.how})` };
  if (!hasMarkdown(found.dir)) return { source, root: found.dir, why: `no markdown files (${found.how})` };
  return { root: found.dir, kind: source, project: '', branch: '', reason: `${found.how}; read-only` };
}

export function resolveSources(config: RecallConfig, opts: SourceOptions): KbSources {
  if (configured(config, opts)) return { read: [resolveScope(config, opts)], skipped: [], zeroConfig: false };
  if (config.scope.kbs.length > 0) return configuredList(config);
  const cwd = opts.cwd ?? process.cwd();
  const base = resolveScope(config, opts);
  const read: Scope[] = [];
  const skipped: SkippedSource[] = [];
  if (!config.sources.learnings) skipped.push({ source: 'learnings', root: base.root, why: 'turned off (learnings_kb = false)' });
  else if (fs.existsSync(base.root)) read.push(base);
  else skipped.push({ source: 'learnings', root: base.root, why: `does not exist yet (${base.reason}); \`recall add\` creates it` });
  // Claude Code keys memory by the project folder ($CLAUDE_PROJECT_DIR, else the session's folder).
  const claudeDir = config.scope.projectDir ?? cwd;
  const sources = [
    memorySource('claude-memory', config.sources.claudeMemory, 'claude_memory = false', claudeMemoryDir(claudeDir, opts.env, config.home)),
    memorySource('codex-memory', config.sources.codexMemory, 'codex_memory = false', codexMemoryDir(opts.env, config.home)),
  ];
  for (const s of sources) {
    if ('kind' in s) read.push(s);
    // A Codex store that does not exist is the common case (the feature is off by default): not worth a line.
    else if (!(s.source === 'codex-memory' && !config.sources.codexMemory && !fs.existsSync(s.root))) skipped.push(s);
  }
  if (read.length === 0) read.push(base);
  return { read, skipped, zeroConfig: true };
}

/** The scope options every note-reading command takes (`--kb`, `--global`, `--all-branches`). */
export interface ReadScopeOptions {
  kb: string | null;
  global?: boolean;
  allBranches?: boolean;
}

/**
 * What a command that reads notes reads (list, show, explain, trace, stages, view, the MCP tools):
 * exactly the sources a hook started in `cwd` reads (resolveSources, with the same settings and the
 * same project folder), after a `--kb` folder is checked (a missing one is a usage error).
 */
export function commandSources(
  opts: ReadScopeOptions,
  io: { env: Env; cwd: string },
  config: RecallConfig = loadConfig(io.env),
): { config: RecallConfig; sources: KbSources } {
  if (opts.kb) checkKbDir(opts.kb, io.cwd);
  const sources = resolveSources(config, {
    kb: opts.kb,
    global: opts.global === true,
    allBranches: opts.allBranches === true,
    cwd: io.cwd,
    env: io.env,
  });
  return { config, sources };
}

/** A source in a few words, for a label next to a note or a block of output: the harness whose memory it is, else the KB folder's name. */
export function sourceLabel(scope: Scope): string {
  if (scope.kind === 'claude-memory') return 'Claude Code memory';
  if (scope.kind === 'codex-memory') return 'Codex memories';
  return path.basename(scope.root) || scope.root;
}

/**
 * The sources read, in one line for stderr (`recall: reading 2 sources: … ; …`), or null when the
 * command reads the one KB the user configured: then there is nothing to say that they did not choose.
 */
export function sourcesLine(sources: KbSources): string | null {
  if (!sources.zeroConfig && sources.read.length < 2) return null;
  const each = sources.read.map((s) => `${s.root} (${s.reason})`);
  return `recall: reading ${each.length === 1 ? '1 source' : `${each.length} sources`}: ${each.join('; ')}`;
}

/**
 * Where a note is written for this project: the reflect KB the scope rules choose (created by the
 * write when it does not exist). A harness memory folder is never written, even when it is the KB
 * given with --kb or `kb`: the write then goes to the reflect KB of the scope rules without it.
 */
export function writableScope(config: RecallConfig, opts: SourceOptions): Scope {
  const scope = resolveScope(config, opts);
  if (isHarnessMemory(scope.root, opts.env, config.home)) {
    // `--kb` or `kb` named a harness memory folder: write where the scope rules would without them.
    const unset = { ...config, scope: { ...config.scope, globalLearningsPath: null } };
    return resolveScope(unset, { ...opts, kb: null });
  }
  if (!opts.kb && !config.scope.globalLearningsPath && !opts.global && !config.scope.global && config.scope.kbs.length > 0) {
    // `kbs`: the first listed KB that is not a harness memory folder.
    const root = config.scope.kbs.find((k) => !isHarnessMemory(k, opts.env, config.home));
    if (root) return { root, kind: 'configured', project: '', branch: '', reason: 'first writable KB of kbs (RECALL_KBS)' };
  }
  return scope;
}

/** A folder inside Claude Code's projects/ or Codex's memories store: harness memory, read-only to recall. */
export function isHarnessMemory(dir: string, env: Env, home: string): boolean {
  // Real paths on both sides: a symlink to a memory folder (or one of its parents) is that folder.
  // A path not made yet is its nearest existing parent's real path plus the rest, so a folder about
  // to be created below a link into a memory folder is inside it too.
  const real = (p: string): string => {
    const abs = path.resolve(p);
    try {
      return fs.realpathSync(abs);
    } catch {
      const parent = path.dirname(abs);
      return parent === abs ? abs : path.join(real(parent), path.basename(abs));
    }
  };
  const abs = real(dir);
  const inside = (parent: string): boolean => {
    const rel = path.relative(real(parent), abs);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  };
  const override = claudeMemoryOverride(env, home);
  return (
    inside(path.join(claudeConfigDir(env, home), 'projects')) ||
    inside(codexMemoryDir(env, home).dir) ||
    (override !== null && inside(override))
  );
}
