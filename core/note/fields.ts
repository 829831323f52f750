/**
 * Reading single frontmatter fields of a note (reflect-kb note format, a compatibility contract):
 * scalars, tags, confidence, proof count, project, flags, and the "How to apply" line of the body.
 */
import { tierConfidence, tierOfNumber } from '../confidence.js';
import { isTruthyWord } from '../truthy.js';

const HOW_TO_APPLY_RE = /\*\*How to apply:\*\*[ \t]*\n?([\s\S]*?)(?=\n\s*\n|\n\*\*|$)/;
/** A scalar frontmatter value as a trimmed string ('' for absent, lists, maps). */
export function str(value: unknown): string {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return '';
}

export function stripQuotes(s: string): string {
  return s.replace(/^["']+|["']+$/g, '').trim();
}

/** Tier string as the reference derives it: upper-cased; numbers map to HIGH ≥0.8, MEDIUM ≥0.5, else LOW; absent → MEDIUM. */
export function confidenceTier(value: unknown): string {
  if (value === undefined || value === null || value === '') return 'MEDIUM';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') return tierOfNumber(value);
  const s = str(value).toUpperCase();
  return s === '' ? 'MEDIUM' : s;
}

/** Ranking confidence in 0..1: `confidence_num`, else numeric `confidence`, else the tier midpoint (unknown 0.6). */
export function confidenceNum(fm: Record<string, unknown>, tier: string): number {
  for (const v of [fm['confidence_num'], fm['confidence']]) {
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
    if (Number.isFinite(n) && typeof v !== 'boolean') return Math.min(1, Math.max(0, n));
  }
  return tierConfidence(tier);
}

/** Tags from a list or a `[a, b]`/`a, b` string; lower-cased, trimmed, blanks dropped, order kept, deduped. */
export function parseTags(value: unknown): string[] {
  let raw: unknown[] = [];
  if (Array.isArray(value)) raw = value;
  else if (typeof value === 'string') raw = value.split(/[[\],]/);
  const out: string[] = [];
  for (const t of raw) {
    const s = str(t).toLowerCase();
    if (s && !out.includes(s)) out.push(s);
  }
  return out;
}

/** `proof_count` (or `provenance.proof_count`) as a non-negative integer; bools and junk → null. */
export function proofCount(fm: Record<string, unknown>): number | null {
  const prov = fm['provenance'];
  const candidates = [fm['proof_count'], prov && typeof prov === 'object' ? (prov as Record<string, unknown>)['proof_count'] : undefined];
  for (const v of candidates) {
    if (typeof v === 'boolean') continue;
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
    if (Number.isInteger(n) && n >= 0) return n;
  }
  return null;
}

/** Project identity: lower-cased last path component, trailing slashes stripped ('' when blank). */
export function normaliseProject(value: unknown): string {
  if (typeof value !== 'string') return '';
  const trimmed = value.trim().replace(/[/\\]+$/, '');
  const last = trimmed.split(/[/\\]/).pop() ?? '';
  return last.trim().toLowerCase();
}

/** A frontmatter flag: true, 1, or one of the truthy words. */
export function truthy(value: unknown): boolean {
  if (value === true) return true;
  if (typeof value === 'number') return value === 1;
  return typeof value === 'string' && isTruthyWord(value);
}

/** JSON-safe copy of YAML data (the core schema already yields plain JSON types; this guards depth and size). */
export function jsonSafe(value: unknown, depth = 0): unknown {
  if (depth > 8) return null;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.slice(0, 500).map((v) => jsonSafe(v, depth + 1));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = jsonSafe(v, depth + 1);
    return out;
  }
  return null;
}

/** First line of the `**How to apply:**` paragraph, capped at 280 characters. */
export function howToApply(body: string): string {
  const m = HOW_TO_APPLY_RE.exec(body);
  if (!m || m[1] === undefined) return '';
  const first = m[1].trim().split('\n')[0]?.trim() ?? '';
  return first.slice(0, 280);
}

/** The code spans of a text (`x`), the first `max` of them: a huge note is read no further than that. */
export function codeSpans(text: string, max = Infinity): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/`([^`\n]{1,200})`/g)) {
    if (out.length >= max) break;
    out.push(m[1]!);
  }
  return out;
}
