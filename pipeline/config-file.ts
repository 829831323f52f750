/**
 * The optional config file, `recall.toml`: every setting recall reads from the environment can be
 * written there once instead. It is read at the process edge (the CLI and each hook) and turned
 * into environment values *under* the real environment, so precedence stays flags > environment >
 * config file > defaults, and every module keeps reading one place (pipeline/config.ts).
 *
 * Where: `$RECALL_CONFIG`, else `<state dir>/recall.toml` (`$REFLECT_STATE_DIR`, default
 * `~/.reflect`), else `$XDG_CONFIG_HOME/recall/recall.toml` (default `~/.config/recall/recall.toml`);
 * the first that exists is read. Keys are the `key` column of KNOBS (README, "Settings"). A bad
 * file, an unknown key or a value of the wrong type is a warning, never a failure.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type * as SmolToml from 'smol-toml';

// The TOML parser is loaded only when a config file exists: most processes (every hook) have none
// and should not pay for evaluating it.
const loadCjs = createRequire(import.meta.url);
const parse = (text: string): Record<string, unknown> => (loadCjs('smol-toml') as typeof SmolToml).parse(text) as Record<string, unknown>;

type Env = Readonly<Record<string, string | undefined>>;

export interface Knob {
  /** Key in recall.toml. */
  key: string;
  env: string;
  type: 'number' | 'boolean' | 'string';
  /** Default, as the README shows it. */
  def: string;
  /** Range or values, and what it does. */
  meaning: string;
}

/** Every setting, once: README's settings table is checked against this list by a spec. */
export const KNOBS: readonly Knob[] = [
  { key: 'state_dir', env: 'REFLECT_STATE_DIR', type: 'string', def: '~/.reflect', meaning: 'index, cache, logs, models' },
  {
    key: 'kb',
    env: 'GLOBAL_LEARNINGS_PATH',
    type: 'string',
    def: '–',
    meaning: 'KB read everywhere (instead of the scope rules); --kb still wins',
  },
  { key: 'learnings_root', env: 'RECALL_LEARNINGS_ROOT', type: 'string', def: '~/.learnings', meaning: 'pooled KB and its shards/' },
  { key: 'global', env: 'RECALL_GLOBAL', type: 'boolean', def: 'false', meaning: 'always read the pooled KB' },
  { key: 'all_branches', env: 'RECALL_ALL_BRANCHES', type: 'boolean', def: 'false', meaning: 'skip branch shards' },
  { key: 'branch', env: 'RECALL_BRANCH', type: 'string', def: "git's", meaning: 'branch used for shard resolution' },
  { key: 'limit', env: 'REFLECT_RECALL_LIMIT', type: 'number', def: '10', meaning: '1..1000 results' },
  {
    key: 'max_chars',
    env: 'REFLECT_RECALL_MAX_CHARS',
    type: 'number',
    def: '2000',
    meaning: '0.. characters of the markdown block (0 = no budget)',
  },
  {
    key: 'min_overlap',
    env: 'REFLECT_RECALL_MIN_OVERLAP',
    type: 'number',
    def: '0 (session start 0.2)',
    meaning: '0..1 OOD gate of the session-start hook',
  },
  {
    key: 'max_tokens',
    env: 'REFLECT_RECALL_MAX_TOKENS',
    type: 'number',
    def: '0',
    meaning: '0.. token budget of the session-start hook (0 = off)',
  },
  { key: 'floor', env: 'RECALL_FLOOR', type: 'number', def: '0.5', meaning: '0..1 relevance floor of the CLI (0 = off)' },
  { key: 'floor_user_prompt', env: 'RECALL_FLOOR_USER_PROMPT', type: 'number', def: '0.5', meaning: '0..1 floor of the prompt hook' },
  { key: 'floor_subagent', env: 'RECALL_FLOOR_SUBAGENT', type: 'number', def: '0.5', meaning: '0..1 floor of the subagent hook' },
  {
    key: 'floor_session_start',
    env: 'RECALL_FLOOR_SESSION_START',
    type: 'number',
    def: '0.4',
    meaning: '0..1 floor of the session-start hook',
  },
  { key: 'confidence_alpha', env: 'RECALL_CONFIDENCE_ALPHA', type: 'number', def: '0.2', meaning: '0..2 (clamped) boost weight' },
  { key: 'recency_alpha', env: 'RECALL_RECENCY_ALPHA', type: 'number', def: '0.2', meaning: '0..2 (clamped) boost weight' },
  { key: 'tag_alpha', env: 'RECALL_TAG_ALPHA', type: 'number', def: '0.2', meaning: '0..2 (clamped) boost weight' },
  { key: 'proof_alpha', env: 'RECALL_PROOF_ALPHA', type: 'number', def: '0.1', meaning: '0..2 (clamped) boost weight' },
  { key: 'project_alpha', env: 'RECALL_PROJECT_ALPHA', type: 'number', def: '0.2', meaning: '0..2 (clamped) boost weight' },
  { key: 'domain_alpha', env: 'RECALL_DOMAIN_ALPHA', type: 'number', def: '0.2', meaning: '0..2 (clamped) boost weight' },
  { key: 'authority_alpha', env: 'RECALL_AUTHORITY_ALPHA', type: 'number', def: '0.1', meaning: '0..2 (clamped) boost weight' },
  { key: 'speculative_alpha', env: 'RECALL_SPECULATIVE_ALPHA', type: 'number', def: '0.2', meaning: '0..2 (clamped) boost weight' },
  {
    key: 'vector_min_score',
    env: 'RECALL_ARM_VECTOR_MIN_SCORE',
    type: 'number',
    def: '0',
    meaning: '0..1 query-term coverage floor of the arm (0 = off)',
  },
  {
    key: 'bm25_min_score',
    env: 'RECALL_ARM_BM25_MIN_SCORE',
    type: 'number',
    def: '0',
    meaning: '0..1 query-term coverage floor of the arm (0 = off)',
  },
  {
    key: 'graph_min_score',
    env: 'RECALL_ARM_GRAPH_MIN_SCORE',
    type: 'number',
    def: '0',
    meaning: '0..1 query-term coverage floor of the arm (0 = off)',
  },
  {
    key: 'temporal_min_score',
    env: 'RECALL_ARM_TEMPORAL_MIN_SCORE',
    type: 'number',
    def: '0',
    meaning: '0..1 query-term coverage floor of the arm (0 = off)',
  },
  {
    key: 'team_min_score',
    env: 'RECALL_ARM_TEAM_MIN_SCORE',
    type: 'number',
    def: '0',
    meaning: '0..1 query-term coverage floor of the arm (0 = off)',
  },
  { key: 'vector_timeout', env: 'RECALL_VECTOR_TIMEOUT', type: 'number', def: '60', meaning: '0.01..3600 seconds' },
  { key: 'bm25_timeout', env: 'RECALL_BM25_TIMEOUT', type: 'number', def: '10', meaning: '0.01..3600 seconds' },
  { key: 'graph_timeout', env: 'RECALL_GRAPH_TIMEOUT', type: 'number', def: '60', meaning: '0.01..3600 seconds' },
  { key: 'temporal_timeout', env: 'RECALL_TEMPORAL_TIMEOUT', type: 'number', def: '10', meaning: '0.01..3600 seconds' },
  { key: 'temporal', env: 'RECALL_TEMPORAL', type: 'boolean', def: 'true', meaning: 'date phrases in queries' },
  { key: 'temporal_arm', env: 'RECALL_TEMPORAL_ARM', type: 'boolean', def: 'true', meaning: 'the temporal arm' },
  { key: 'graph_arm', env: 'RECALL_GRAPH_ARM', type: 'boolean', def: 'true', meaning: 'the graph arm' },
  { key: 'cross_encoder', env: 'RECALL_CROSS_ENCODER', type: 'boolean', def: 'true', meaning: 'cross-encoder rerank (when installed)' },
  { key: 'mmr', env: 'RECALL_MMR', type: 'boolean', def: 'true', meaning: 'MMR diversity (needs embeddings)' },
  { key: 'mmr_lambda', env: 'RECALL_MMR_LAMBDA', type: 'number', def: '0.7', meaning: '0..1 relevance vs diversity' },
  { key: 'engine', env: 'RECALL_ENGINE', type: 'string', def: 'auto', meaning: 'auto, embedded, reflect (vector and graph arms)' },
  { key: 'bm25_engine', env: 'RECALL_BM25_ENGINE', type: 'string', def: 'auto', meaning: 'auto, embedded, qmd' },
  { key: 'qmd_collection', env: 'RECALL_QMD_COLLECTION', type: 'string', def: 'learnings', meaning: 'qmd collection searched' },
  { key: 'fuzzy_cache', env: 'RECALL_FUZZY_CACHE', type: 'boolean', def: 'true', meaning: 'fuzzy cache tier' },
  { key: 'fuzzy_threshold', env: 'RECALL_FUZZY_THRESHOLD', type: 'number', def: '0.85', meaning: '0..1 similarity for a fuzzy hit' },
  { key: 'cache_ttl', env: 'RECALL_CACHE_TTL', type: 'number', def: '3600', meaning: '0..31536000 seconds' },
  { key: 'gap_log', env: 'RECALL_GAP_LOG', type: 'boolean', def: 'true', meaning: 'log empty results as knowledge gaps' },
  { key: 'followup', env: 'RECALL_FOLLOWUP', type: 'boolean', def: 'true', meaning: 'follow-up diagnostic' },
  { key: 'followup_window_seconds', env: 'RECALL_FOLLOWUP_WINDOW_SECONDS', type: 'number', def: '30', meaning: '1..86400 seconds' },
  { key: 'economics', env: 'RECALL_ECONOMICS', type: 'boolean', def: 'true', meaning: 'token economics in the output' },
  { key: 'include_superseded', env: 'REFLECT_RECALL_INCLUDE_SUPERSEDED', type: 'boolean', def: 'false', meaning: 'keep retired notes' },
  { key: 'mode', env: 'REFLECT_MODE', type: 'string', def: 'engineering', meaning: 'glyphs of learning types' },
  { key: 'modes_dir', env: 'REFLECT_MODES_DIR', type: 'string', def: 'bundled', meaning: 'folder of mode files' },
  { key: 'models_dir', env: 'REFLECT_MODELS_DIR', type: 'string', def: '$REFLECT_STATE_DIR/models', meaning: 'model files' },
  { key: 'ce_model', env: 'REFLECT_CE_MODEL', type: 'string', def: 'cross-encoder/ms-marco-MiniLM-L-6-v2', meaning: 'cross-encoder id' },
  {
    key: 'embed_model',
    env: 'REFLECT_EMBED_MODEL',
    type: 'string',
    def: 'sentence-transformers/all-mpnet-base-v2',
    meaning: 'embedder id',
  },
  { key: 'no_daemon', env: 'REFLECT_NO_DAEMON', type: 'boolean', def: 'false', meaning: 'load models in the recall process' },
  {
    key: 'idle_timeout',
    env: 'REFLECT_IDLE_TIMEOUT',
    type: 'number',
    def: '1800',
    meaning: '0..604800 seconds before an idle daemon exits (0 = never)',
  },
  { key: 'ce_timeout', env: 'RECALL_CE_TIMEOUT', type: 'number', def: '60', meaning: '0.01..3600 seconds' },
  { key: 'embed_timeout', env: 'RECALL_EMBED_TIMEOUT', type: 'number', def: '60', meaning: '0.01..3600 seconds' },
  { key: 'ce_max_tokens', env: 'RECALL_CE_MAX_TOKENS', type: 'number', def: '96', meaning: '16..512 tokens per query+note pair' },
  { key: 'embed_max_tokens', env: 'RECALL_EMBED_MAX_TOKENS', type: 'number', def: '256', meaning: '16..512 tokens per text' },
  {
    key: 'db_path',
    env: 'REFLECT_DB_PATH',
    type: 'string',
    def: '$REFLECT_STATE_DIR/reflect.db',
    meaning: 'ledger and persona tables (read-only)',
  },
  { key: 'sqlite_driver', env: 'RECALL_SQLITE_DRIVER', type: 'string', def: 'auto', meaning: 'better-sqlite3, node, wasm' },
  {
    key: 'hook_timeout',
    env: 'REFLECT_RECALL_TIMEOUT',
    type: 'number',
    def: '20',
    meaning: '0.05..3600 seconds from process start (session start, prompts); kept inside the harness timeout',
  },
  {
    key: 'subagent_timeout',
    env: 'REFLECT_SUBAGENT_RECALL_TIMEOUT',
    type: 'number',
    def: '5',
    meaning: '0.05..3600 seconds from process start',
  },
  { key: 'subagent_limit', env: 'REFLECT_SUBAGENT_RECALL_LIMIT', type: 'number', def: '3', meaning: '1..100 learnings' },
  { key: 'subagent_max_chars', env: 'REFLECT_SUBAGENT_RECALL_MAX_CHARS', type: 'number', def: '1500', meaning: '0.. characters' },
  {
    key: 'subagent_context',
    env: 'REFLECT_SUBAGENT_CONTEXT',
    type: 'string',
    def: '–',
    meaning: 'fixed text the subagent hook injects instead of a recall',
  },
  { key: 'slots', env: 'REFLECT_SLOTS', type: 'boolean', def: 'false', meaning: 'session start: memory slots from reflect.db' },
  {
    key: 'tiered_inject',
    env: 'REFLECT_TIERED_INJECT',
    type: 'boolean',
    def: 'false',
    meaning: 'session start: conventions pointer and curated skills',
  },
  {
    key: 'skills_dir',
    env: 'REFLECT_SKILLS_DIR',
    type: 'string',
    def: '~/.claude/skills',
    meaning: 'skills the session-start skills tier matches',
  },
  {
    key: 'skill_tier_min_score',
    env: 'REFLECT_SKILL_TIER_MIN_SCORE',
    type: 'number',
    def: '2',
    meaning: '0..1000 match score for the skills tier',
  },
  {
    key: 'harness',
    env: 'REFLECT_HARNESS',
    type: 'string',
    def: 'detected',
    meaning: 'claude, codex, copilot: the hook envelope and inline limit',
  },
  {
    key: 'metrics_path',
    env: 'REFLECT_METRICS_PATH',
    type: 'string',
    def: '$REFLECT_STATE_DIR/metrics.jsonl',
    meaning: 'follow-up diagnostic metrics',
  },
  {
    key: 'follow_outside_links',
    env: 'RECALL_FOLLOW_OUTSIDE_LINKS',
    type: 'boolean',
    def: 'false',
    meaning: 'follow KB symlinks whose target is outside the KB',
  },
  {
    key: 'log_max_mb',
    env: 'RECALL_LOG_MAX_MB',
    type: 'number',
    def: '20',
    meaning:
      '0.01..100000 MiB: a log (recall log, gap log, metrics) is rotated to `<name>.1` at this size (hook logs at 1 MiB); one old generation kept',
  },
  {
    key: 'fleet_ledger',
    env: 'RECALL_FLEET_LEDGER',
    type: 'string',
    def: '$REFLECT_STATE_DIR/fleet-ledger.json',
    meaning: 'fleet-import ledger (provenance of imported notes)',
  },
  {
    key: 'team_url',
    env: 'RECALL_TEAM_URL',
    type: 'string',
    def: 'saved by `recall team init`',
    meaning: 'team store PostgreSQL URL (PG* variables fill the rest)',
  },
  { key: 'team_schema', env: 'RECALL_TEAM_SCHEMA', type: 'string', def: 'recall', meaning: 'schema of the team store' },
  { key: 'team_machine', env: 'RECALL_TEAM_MACHINE', type: 'string', def: 'host name', meaning: "this machine's name in the team store" },
  {
    key: 'team_share',
    env: 'RECALL_TEAM_SHARE',
    type: 'string',
    def: 'marked',
    meaning: '`all`: push every note of a KB, not only `share: team` ones',
  },
  { key: 'team_arm', env: 'RECALL_TEAM_ARM', type: 'boolean', def: 'false', meaning: 'query the team store live as one more arm' },
  { key: 'team_timeout', env: 'RECALL_TEAM_TIMEOUT', type: 'number', def: '2', meaning: 'seconds of the live team arm' },
  { key: 'team_notes', env: 'RECALL_TEAM_NOTES', type: 'boolean', def: 'true', meaning: 'search the pulled team shard' },
  {
    key: 'team_connect_timeout',
    env: 'RECALL_TEAM_CONNECT_TIMEOUT',
    type: 'number',
    def: '10',
    meaning: 'seconds to connect, for the team commands',
  },
  { key: 'debug', env: 'REFLECT_RECALL_DEBUG', type: 'boolean', def: 'false', meaning: 'same as --verbose on every call' },
];

const BY_KEY = new Map(KNOBS.map((k) => [k.key, k]));

/** Largest config file read (a settings file is a few hundred bytes). */
const MAX_CONFIG_BYTES = 256 * 1024;

/** The config file this environment reads, or null when there is none. */
export function configFilePath(env: Env): string | null {
  const home = env['HOME'] || os.homedir();
  const expand = (p: string): string => (p.startsWith('~/') ? path.join(home, p.slice(2)) : p);
  const candidates = [
    env['RECALL_CONFIG'] ? expand(env['RECALL_CONFIG']) : null,
    path.join(expand(env['REFLECT_STATE_DIR'] || path.join(home, '.reflect')), 'recall.toml'),
    path.join(expand(env['XDG_CONFIG_HOME'] || path.join(home, '.config')), 'recall', 'recall.toml'),
  ];
  return candidates.find((f): f is string => f !== null && fs.existsSync(f)) ?? null;
}

/** Settings of a config file's text as environment values, and one warning per problem. */
export function parseConfigText(text: string, file: string): { values: Record<string, string>; warnings: string[] } {
  const values: Record<string, string> = {};
  const warnings: string[] = [];
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (err) {
    return { values, warnings: [`${file}: not valid TOML (${(err as Error).message.split('\n')[0]}); ignored`] };
  }
  for (const [key, v] of Object.entries(doc)) {
    const knob = BY_KEY.get(key);
    if (!knob) {
      warnings.push(`${file}: unknown setting ${JSON.stringify(key)}; ignored`);
      continue;
    }
    const ok =
      knob.type === 'number'
        ? typeof v === 'number' || typeof v === 'bigint'
        : knob.type === 'boolean'
          ? typeof v === 'boolean'
          : typeof v === 'string';
    if (!ok) {
      warnings.push(`${file}: ${key} must be a ${knob.type} (got ${JSON.stringify(String(v))}); ignored`);
      continue;
    }
    values[knob.env] = typeof v === 'boolean' ? (v ? '1' : '0') : String(v);
  }
  return { values, warnings };
}

/** The environment with the config file's settings under it (a set, non-empty variable wins). */
export function withConfigFile(env: Env): { env: Record<string, string | undefined>; file: string | null; warnings: string[] } {
  let file: string | null = null;
  try {
    file = configFilePath(env);
    if (!file) return { env: { ...env }, file: null, warnings: [] };
    // Only a regular, small file is read: a FIFO or a device there must not hang a hook.
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > MAX_CONFIG_BYTES)
      return { env: { ...env }, file, warnings: [`${file}: not a regular file of at most ${MAX_CONFIG_BYTES} bytes; ignored`] };
    const { values, warnings } = parseConfigText(fs.readFileSync(file, 'utf8'), file);
    const merged: Record<string, string | undefined> = { ...env };
    for (const [k, v] of Object.entries(values)) if (merged[k] === undefined || merged[k]!.trim() === '') merged[k] = v;
    return { env: merged, file, warnings };
  } catch (err) {
    return {
      env: { ...env },
      file,
      warnings: [`${file ?? 'config file'}: cannot read (${(err as Error).message.split('\n')[0]}); ignored`],
    };
  }
}
