/**
 * SessionStart's opt-in tiers, consulted before the recall (the session-start hook is tiered: cheap
 * ambient context first, curated skills instead of raw learnings when they match well):
 * - Tier 0 (prepended, never suppresses what follows): memory slots from reflect.db
 *   (REFLECT_SLOTS=1) and a pointer to the project's pre-synthesized conventions
 *   (REFLECT_TIERED_INJECT=1);
 * - Tier 1 (REFLECT_TIERED_INJECT=1): curated skills (`<skills dir>/*\/SKILL.md`) whose name, tags or
 *   triggers match the query strongly enough (REFLECT_SKILL_TIER_MIN_SCORE, default 2): they are
 *   injected instead of raw learnings.
 * reflect.db is opened read-only and never created; a missing table or file means "nothing".
 */
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase, type SqlDatabase } from '../sources/sqlite/index.js';
import { splitFrontmatter } from '../core/frontmatter.js';
import { str } from '../core/note/index.js';
import type { Env } from './runtime.js';
import { envFlag } from '../core/truthy.js';
import { HOOK_BUDGET_CHARS } from './hook-table.js';

export const flagOn = (env: Env, name: string): boolean => envFlag(env, name);

/** Cut a block to `max` characters at a line boundary when possible. */
function cut(block: string, max: number): string {
  if (block.length <= max) return block;
  const s = block.slice(0, max);
  const nl = s.lastIndexOf('\n');
  return (nl > max / 2 ? s.slice(0, nl) : s).trimEnd();
}

function withDb<T>(dbPath: string, fn: (db: SqlDatabase) => T, fallback: T): T {
  if (!fs.existsSync(dbPath)) return fallback;
  let db: SqlDatabase | null = null;
  try {
    db = openDatabase(dbPath, { readonly: true, fileMustExist: true });
    return fn(db);
  } catch {
    return fallback;
  } finally {
    db?.close();
  }
}

/** Memory slots block (≤ 4000 chars), or ''. */
export function slotsBlock(dbPath: string, projectId: string): string {
  const rows = withDb(
    dbPath,
    (db) =>
      db
        .prepare(
          `SELECT name, content FROM slots WHERE (scope = 'global' OR project_id = ?) AND content IS NOT NULL AND trim(content) != ''
           ORDER BY CASE scope WHEN 'global' THEN 0 ELSE 1 END, name`,
        )
        .all(projectId) as { name: string; content: string }[],
    [],
  );
  if (rows.length === 0) return '';
  return cut(
    ['## Memory slots (agent-curated — edit via /reflect:slots)', ...rows.map((r) => `### ${r.name}\n${String(r.content).trim()}`)].join(
      '\n',
    ),
    4000,
  );
}

/** Conventions pointer line, or '' (no doc, no observations, stale, or its file is missing). */
export function conventionsLine(dbPath: string, projectId: string): string {
  const row = withDb(
    dbPath,
    (db) =>
      db
        .prepare(
          `SELECT query, doc_path, observation_count, is_stale FROM conventions_docs WHERE query IN (?, 'project') ORDER BY CASE query WHEN ? THEN 0 ELSE 1 END LIMIT 1`,
        )
        .get(projectId, projectId) as { query: string; doc_path: string; observation_count: number; is_stale: number } | undefined,
    undefined,
  );
  if (!row || !row.observation_count || row.is_stale || !row.doc_path || !fs.existsSync(row.doc_path)) return '';
  return `## Project conventions (pre-synthesized)\n- ${row.query}: ${row.observation_count} convention(s) on record — read ${row.doc_path}`;
}

export interface Skill {
  name: string;
  summary: string;
  strong: Set<string>;
  weak: Set<string>;
}

const tokens = (text: string): string[] => text.toLowerCase().match(/[a-z0-9][a-z0-9_-]+/g) ?? [];

function listOf(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(str).filter(Boolean);
  return typeof v === 'string'
    ? v
        .split(/[,\n]/)
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
}

/** Skills under `dir` (`*\/SKILL.md`, `*\/*\/SKILL.md`); stale or unreadable ones are left out. */
export function loadSkills(dir: string): Skill[] {
  const files: string[] = [];
  const scan = (d: string, depth: number): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const f = path.join(d, e.name, 'SKILL.md');
      if (fs.existsSync(f)) files.push(f);
      if (depth < 1) scan(path.join(d, e.name), depth + 1);
    }
  };
  scan(dir, 0);
  const skills: Skill[] = [];
  for (const f of files) {
    try {
      const { frontmatter: fm, body } = splitFrontmatter(fs.readFileSync(f, 'utf8'));
      if (fm['stale'] === true || str(fm['stale']).toLowerCase() === 'true') continue;
      const name = str(fm['name']) || path.basename(path.dirname(f));
      const description = str(fm['description']) || body;
      const summary = (
        description
          .split('\n')
          .map((l) => l.trim())
          .find(Boolean) ?? ''
      ).slice(0, 240);
      const strong = new Set([...tokens(name), ...listOf(fm['tags']).flatMap(tokens), ...listOf(fm['triggers']).flatMap(tokens)]);
      const weak = new Set(tokens(summary).filter((t) => !strong.has(t)));
      skills.push({ name, summary, strong, weak });
    } catch {
      /* a broken skill file is skipped */
    }
  }
  return skills;
}

/** Skills scored 2 per strong token and 1 per weak token the query shares; best first (ties by name). */
export function matchSkills(query: string, skills: readonly Skill[], minScore: number, limit = 2): { skill: Skill; score: number }[] {
  const q = new Set(tokens(query));
  return skills
    .map((skill) => {
      let score = 0;
      for (const t of q) score += skill.strong.has(t) ? 2 : skill.weak.has(t) ? 1 : 0;
      return { skill, score };
    })
    .filter((s) => s.score >= minScore && s.score > 0)
    .sort((a, b) => b.score - a.score || (a.skill.name < b.skill.name ? -1 : 1))
    .slice(0, limit);
}

export function skillsBlock(hits: readonly { skill: Skill }[]): string {
  if (hits.length === 0) return '';
  return cut(
    [
      '## Skills for this context (curated — prefer over raw learnings)',
      ...hits.map((h) => `- **${h.skill.name}** — ${h.skill.summary || '(no summary)'}`),
    ].join('\n'),
    HOOK_BUDGET_CHARS,
  );
}
