import { describe, it, expect } from '@jest/globals';
import fc from 'fast-check';
import {
  boostFactors,
  boostNorms,
  boostProduct,
  boundedBoost,
  clamp01,
  recencyNorm,
  sigmoid,
  RECENCY_FLOOR,
  type BoostContext,
} from '../../../operators/math/boosts.js';
import type { BoostName } from '../../../core/types.js';
import type { Note } from '../../../core/note/note.js';
import { DAY_MS } from '../../../core/dates.js';

const NOW = Date.UTC(2026, 5, 10, 12, 0, 0);

function makeNote(over: Partial<Note> = {}): Note {
  return {
    key: 'lrn-x',
    displayId: 'lrn-x',
    path: 'documents/lrn-x.md',
    location: 'documents',
    title: 'x',
    keyInsight: '',
    howToApply: '',
    confidence: 'MEDIUM',
    confidenceNum: 0.6,
    tags: [],
    proofCount: null,
    projectId: '',
    domain: '',
    authority: '',
    quarantine: false,
    learningType: '',
    discoveryTokens: null,
    archivedAt: null,
    dateMs: null,
    recencyMs: null,
    supersededBy: null,
    status: '',
    contentHash: 'h',
    declaredHash: null,
    frontmatter: {},
    body: '',
    chunkText: '',
    ...over,
  };
}

function ctx(over: Partial<BoostContext> = {}): BoostContext {
  return { nowMs: NOW, queryTags: [], currentProject: '', domainHint: '', ...over };
}

const BOOST_NAMES: BoostName[] = ['confidence', 'recency', 'tags', 'proof', 'project', 'domain', 'authority', 'speculative'];
const NEUTRAL_NORMS = Object.fromEntries(BOOST_NAMES.map((n) => [n, 0.5])) as Record<BoostName, number>;

describe('boundedBoost', () => {
  it.each([
    [0.5, 0.2, 1],
    [1, 0.2, 1.1],
    [0, 0.2, 0.9],
    [0.75, 0.1, 1.025],
  ])('boundedBoost(%p, %p) = %p', (norm, alpha, expected) => {
    expect(boundedBoost(norm, alpha)).toBeCloseTo(expected, 12);
  });

  it('clamps norms above 1 and below 0', () => {
    expect(boundedBoost(7, 0.2)).toBe(boundedBoost(1, 0.2));
    expect(boundedBoost(Infinity, 0.2)).toBe(boundedBoost(1, 0.2));
    expect(boundedBoost(-3, 0.2)).toBe(boundedBoost(0, 0.2));
    expect(boundedBoost(-Infinity, 0.2)).toBe(boundedBoost(0, 0.2));
  });

  it('treats a NaN norm as neutral (factor exactly 1)', () => {
    expect(boundedBoost(NaN, 0.2)).toBe(1);
    expect(clamp01(NaN)).toBe(0.5);
  });

  it('is exactly 1 at α = 0 whatever the norm', () => {
    for (const n of [0, 0.3, 1, -5, 9, NaN]) expect(boundedBoost(n, 0)).toBe(1);
  });
});

describe('sigmoid', () => {
  it('is 0.5 at 0 and saturates far out', () => {
    expect(sigmoid(0)).toBe(0.5);
    expect(sigmoid(-12)).toBeLessThan(0.001);
    expect(sigmoid(12)).toBeGreaterThan(0.999);
  });

  it('returns exactly 0 and 1 at ±1e5 without NaN', () => {
    expect(sigmoid(1e5)).toBe(1);
    expect(sigmoid(-1e5)).toBe(0);
    expect(sigmoid(Infinity)).toBe(1);
    expect(sigmoid(-Infinity)).toBe(0);
  });

  it('is monotone non-decreasing and within [0, 1]', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), fc.double({ noNaN: true }), (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(sigmoid(lo)).toBeLessThanOrEqual(sigmoid(hi));
        expect(sigmoid(lo)).toBeGreaterThanOrEqual(0);
        expect(sigmoid(hi)).toBeLessThanOrEqual(1);
      }),
    );
  });
});

describe('recencyNorm', () => {
  it('is 1 − 1/365 for a note one day old', () => {
    const n = recencyNorm(NOW - DAY_MS, NOW);
    expect(n).toBeCloseTo(1 - 1 / 365, 12);
    expect(n).toBeGreaterThan(0.99);
  });

  it('is below 0.5 at 300 days', () => {
    expect(recencyNorm(NOW - 300 * DAY_MS, NOW)).toBeLessThan(0.5);
  });

  it('floors at 0.1 for very old notes', () => {
    expect(RECENCY_FLOOR).toBe(0.1);
    expect(recencyNorm(NOW - 3650 * DAY_MS, NOW)).toBe(0.1);
  });

  it('is 1 for future dates and for now', () => {
    expect(recencyNorm(NOW + 5 * DAY_MS, NOW)).toBe(1);
    expect(recencyNorm(NOW, NOW)).toBe(1);
  });

  it('is neutral 0.5 for undated or non-finite dates', () => {
    expect(recencyNorm(null, NOW)).toBe(0.5);
    expect(recencyNorm(NaN, NOW)).toBe(0.5);
    expect(recencyNorm(Infinity, NOW)).toBe(0.5);
  });
});

describe('boostNorms', () => {
  it.each([
    ['HIGH', 0.9, 1, 1.1],
    ['MEDIUM', 0.6, 0.5, 1.0],
    ['LOW', 0.3, 0, 0.9],
  ])('maps confidence %s (%p) to norm %p and factor %p at α 0.2', (tier, num, norm, factor) => {
    const n = boostNorms(makeNote({ confidence: tier, confidenceNum: num }), ctx());
    expect(n.confidence).toBeCloseTo(norm, 12);
    expect(boundedBoost(n.confidence, 0.2)).toBeCloseTo(factor, 12);
  });

  it('scores tags as the covered fraction of distinct query tags', () => {
    const note = makeNote({ tags: ['tmux', 'shell'] });
    expect(boostNorms(note, ctx()).tags).toBe(0.5);
    expect(boostNorms(note, ctx({ queryTags: ['tmux', 'shell'] })).tags).toBe(1);
    expect(boostNorms(note, ctx({ queryTags: ['docker'] })).tags).toBe(0);
    expect(boostNorms(note, ctx({ queryTags: ['tmux', 'docker'] })).tags).toBe(0.5);
  });

  it('cannot overflow the tag norm with duplicate query tags', () => {
    const note = makeNote({ tags: ['tmux'] });
    expect(boostNorms(note, ctx({ queryTags: ['tmux', 'tmux', 'tmux'] })).tags).toBe(1);
    expect(boostNorms(note, ctx({ queryTags: ['tmux', 'tmux', 'docker'] })).tags).toBe(0.5);
  });

  it('maps proof counts: none and 1 neutral, huge counts saturate at 1', () => {
    expect(boostNorms(makeNote({ proofCount: null }), ctx()).proof).toBe(0.5);
    expect(boostNorms(makeNote({ proofCount: 0 }), ctx()).proof).toBe(0.5);
    expect(boostNorms(makeNote({ proofCount: 1 }), ctx()).proof).toBe(0.5);
    expect(boostNorms(makeNote({ proofCount: 10 }), ctx()).proof).toBeCloseTo(0.5 + Math.log(10) / 10, 12);
    const huge = boostNorms(makeNote({ proofCount: 1e9 }), ctx()).proof;
    expect(huge).toBe(1);
    expect(boundedBoost(huge, 0.1)).toBeCloseTo(1.05, 12);
  });

  it('matches the project only when both sides are non-empty and equal', () => {
    expect(boostNorms(makeNote({ projectId: 'my-app' }), ctx({ currentProject: 'my-app' })).project).toBe(1);
    expect(boostNorms(makeNote({ projectId: 'other' }), ctx({ currentProject: 'my-app' })).project).toBe(0.5);
    expect(boostNorms(makeNote({ projectId: '' }), ctx({ currentProject: 'my-app' })).project).toBe(0.5);
    expect(boostNorms(makeNote({ projectId: 'my-app' }), ctx({ currentProject: '' })).project).toBe(0.5);
    expect(boostNorms(makeNote({ projectId: '' }), ctx({ currentProject: '' })).project).toBe(0.5);
  });

  it('boosts a note whose domain equals the hint', () => {
    expect(boostNorms(makeNote({ domain: 'infra' }), ctx({ domainHint: 'infra' })).domain).toBe(1);
    expect(boostNorms(makeNote({ domain: 'web' }), ctx({ domainHint: 'infra' })).domain).toBe(0.5);
    expect(boostNorms(makeNote({ domain: '' }), ctx({ domainHint: '' })).domain).toBe(0.5);
  });

  it.each([
    ['law', 1],
    ['promoted', 1],
    ['advisory', 0.5],
    ['archived', 0],
    ['whatever', 0.5],
    ['', 0.5],
  ])('maps authority %p to %p', (authority, norm) => {
    expect(boostNorms(makeNote({ authority }), ctx()).authority).toBe(norm);
  });

  it('penalises speculative notes', () => {
    expect(boostNorms(makeNote({ tags: ['x', 'speculative'] }), ctx()).speculative).toBe(0);
    expect(boostNorms(makeNote({ tags: ['x'] }), ctx()).speculative).toBe(0.5);
  });

  it('takes recency from recencyMs', () => {
    expect(boostNorms(makeNote({ recencyMs: NOW - DAY_MS, dateMs: null }), ctx()).recency).toBeCloseTo(1 - 1 / 365, 12);
    expect(boostNorms(makeNote({ recencyMs: null }), ctx()).recency).toBe(0.5);
  });

  it('gives a neutral note all-neutral norms and a product of exactly 1', () => {
    const norms = boostNorms(makeNote(), ctx());
    expect(norms).toEqual(NEUTRAL_NORMS);
    const alphas = Object.fromEntries(BOOST_NAMES.map((n) => [n, 0.2])) as Record<BoostName, number>;
    expect(boostProduct(boostFactors(norms, alphas))).toBe(1);
  });
});

describe('boostFactors and boostProduct', () => {
  it('applies each alpha to its own norm and multiplies the factors', () => {
    const norms = { ...NEUTRAL_NORMS, confidence: 1, tags: 0 };
    const alphas = { ...Object.fromEntries(BOOST_NAMES.map((n) => [n, 0])), confidence: 0.2, tags: 0.4 } as Record<BoostName, number>;
    const f = boostFactors(norms, alphas);
    expect(f.confidence).toBeCloseTo(1.1, 12);
    expect(f.tags).toBeCloseTo(0.8, 12);
    expect(f.recency).toBe(1);
    expect(boostProduct(f)).toBeCloseTo(1.1 * 0.8, 12);
  });
});

describe('boost properties', () => {
  const anyNumber = fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -Infinity, 0, 1));
  const noteArb = fc
    .record({
      confidenceNum: anyNumber,
      recencyMs: fc.option(anyNumber, { nil: null }),
      tags: fc.array(fc.constantFrom('a', 'b', 'c', 'speculative', 'tmux'), { maxLength: 6 }),
      proofCount: fc.option(fc.oneof(fc.nat(), fc.constantFrom(1e9, Number.MAX_SAFE_INTEGER, -1)), { nil: null }),
      projectId: fc.constantFrom('', 'my-app', 'other'),
      domain: fc.constantFrom('', 'infra', 'web'),
      authority: fc.constantFrom('', 'law', 'promoted', 'advisory', 'archived', 'odd'),
    })
    .map((over) => makeNote(over));
  const ctxArb = fc.record({
    nowMs: fc.integer({ min: 0, max: 4_000_000_000_000 }),
    queryTags: fc.array(fc.constantFrom('a', 'b', 'c', 'speculative', 'docker'), { maxLength: 5 }),
    currentProject: fc.constantFrom('', 'my-app', 'other'),
    domainHint: fc.constantFrom('', 'infra', 'web'),
  });
  const alphaArb = fc.double({ min: 0, max: 2, noNaN: true });
  const alphasArb = fc
    .tuple(...BOOST_NAMES.map(() => alphaArb))
    .map((vals) => Object.fromEntries(BOOST_NAMES.map((n, i) => [n, vals[i]!])) as Record<BoostName, number>);

  it('keeps every norm within 0..1', () => {
    fc.assert(
      fc.property(noteArb, ctxArb, (note, c) => {
        for (const v of Object.values(boostNorms(note, c))) {
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThanOrEqual(1);
        }
      }),
    );
  });

  it('keeps each factor within [1 − α/2, 1 + α/2] and the product within the product of the bounds', () => {
    fc.assert(
      fc.property(noteArb, ctxArb, alphasArb, (note, c, alphas) => {
        const factors = boostFactors(boostNorms(note, c), alphas);
        let lo = 1;
        let hi = 1;
        for (const name of Object.keys(factors) as BoostName[]) {
          const a = alphas[name];
          expect(factors[name]).toBeGreaterThanOrEqual(1 - a / 2);
          expect(factors[name]).toBeLessThanOrEqual(1 + a / 2);
          lo *= 1 - a / 2;
          hi *= 1 + a / 2;
        }
        expect(Object.keys(factors).sort()).toEqual([...BOOST_NAMES].sort());
        const p = boostProduct(factors);
        expect(p).toBeGreaterThanOrEqual(lo);
        expect(p).toBeLessThanOrEqual(hi);
      }),
    );
  });
});
