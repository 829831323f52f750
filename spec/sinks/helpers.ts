/**
 * Fixtures and the golden-file helper shared by the sink specs.
 */
import { expect } from '@jest/globals';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Note } from '../../core/note/note.js';
import type { BoostName, RecallOutcome, ScoredCandidate } from '../../core/types.js';

export const GOLDEN_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'golden');

/** A complete Note; every field can be overridden. chunkText defaults to 400 chars (R = 100). */
export function makeNote(over: Partial<Note> = {}): Note {
  const id = over.displayId ?? over.key ?? 'lrn-sample';
  return {
    key: id,
    displayId: id,
    path: `documents/${id}.md`,
    location: 'documents',
    title: 'Sample title',
    keyInsight: 'Sample insight',
    howToApply: '',
    confidence: 'HIGH',
    confidenceNum: 0.9,
    tags: ['sample'],
    proofCount: null,
    projectId: '',
    domain: '',
    authority: '',
    quarantine: false,
    learningType: '',
    discoveryTokens: 1000,
    archivedAt: null,
    dateMs: null,
    recencyMs: null,
    supersededBy: null,
    status: '',
    contentHash: 'hash',
    declaredHash: null,
    frontmatter: {},
    body: '',
    chunkText: 'x'.repeat(400),
    ...over,
  };
}

const NO_BOOSTS: Record<BoostName, number> = {
  confidence: 0,
  recency: 0,
  tags: 0,
  proof: 0,
  project: 0,
  domain: 0,
  authority: 0,
  speculative: 0,
};

export function makeCandidate(note: Partial<Note> = {}, over: Partial<ScoredCandidate> = {}): ScoredCandidate {
  return {
    note: makeNote(note),
    rrf: 0.0325,
    evidence: 1,
    ranks: { bm25: 1 },
    ce: null,
    base: 1,
    relevance: 1,
    relevanceSource: 'lexical',
    relevanceFactor: 1,
    titleFactor: 1,
    boosts: { ...NO_BOOSTS },
    score: 0.5,
    ...over,
  };
}

export function makeOutcome(over: Partial<RecallOutcome> = {}): RecallOutcome {
  return {
    query: 'sample query',
    mode: 'hybrid',
    results: [],
    ranked: [],
    oodGated: false,
    coverage: null,
    temporal: null,
    cacheTier: null,
    arms: [],
    degraded: [],
    drops: [],
    persona: null,
    floor: 0.5,
    abstained: null,
    weak: [],
    notice: null,
    ms: 12,
    ...over,
  };
}

/** A volatile part of a render and its stable placeholder. */
export type GoldenMask = readonly [RegExp, string];

/**
 * Compare `actual` byte for byte with spec/golden/<name>, after replacing each masked (volatile)
 * part with its placeholder. With UPDATE_GOLDEN=1 the file is (re)written instead; a missing
 * golden file fails the test otherwise.
 */
export function expectGolden(name: string, rendered: string, masks: readonly GoldenMask[] = []): void {
  const actual = masks.reduce((text, [re, placeholder]) => text.replace(re, placeholder), rendered);
  const file = path.join(GOLDEN_DIR, name);
  if (process.env['UPDATE_GOLDEN'] === '1') {
    mkdirSync(GOLDEN_DIR, { recursive: true });
    writeFileSync(file, actual, 'utf8');
    return;
  }
  if (!existsSync(file)) throw new Error(`golden file ${file} is missing; run with UPDATE_GOLDEN=1 to create it`);
  expect(actual).toBe(readFileSync(file, 'utf8'));
}
