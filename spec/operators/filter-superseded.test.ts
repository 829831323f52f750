import { describe, it, expect } from '@jest/globals';
import { map } from 'rxjs';
import type { RetiredLookup } from '../../core/ports.js';
import type { RecallState } from '../../core/state.js';
import { filterSuperseded } from '../../operators/filter-superseded.js';
import { fused, keys, note, scheduler } from './states.js';

const NOTHING_RETIRED: RetiredLookup = { supersededBy: () => new Map(), retiredCopies: () => [], ledgerRetired: () => [] };
const summary = (s: RecallState) => ({
  ids: keys(s.candidates),
  drops: s.drops.map((d) => `${d.key}: ${d.reason}`),
  degraded: s.degraded.map((d) => d.message),
});

describe('filterSuperseded', () => {
  const live = note({ id: 'live' }, 'body', 'documents/live.md');
  const byFrontmatter = note({ id: 'old', superseded_by: 'live' }, 'body', 'documents/old.md');
  const declared = note({ id: 'declared' }, 'body', 'documents/declared.md');
  const archivedCopy = note({ id: 'copied' }, 'same text', 'documents/copied.md');
  const ledgerOld = note({ id: 'ledgered' }, 'body', 'documents/ledgered.md');

  it('drops notes retired by frontmatter, by a live note, by an archived copy and by the ledger, each with its reason', () => {
    const lookup: RetiredLookup = {
      supersededBy: (ks) => new Map(ks.includes('declared') ? [['declared', 'live']] : []),
      retiredCopies: (_ks, hashes) =>
        hashes.includes(archivedCopy.contentHash)
          ? [{ key: 'other-id', contentHash: archivedCopy.contentHash, declaredHash: null, location: 'archived', path: 'archived/x.md' }]
          : [],
      ledgerRetired: (names) =>
        names.includes('ledgered.md') ? [{ artifactPath: '/home/u/kb/documents/ledgered.md', contentHash: null }] : [],
    };
    scheduler().run(({ cold, expectObservable }) => {
      const state = fused([live, byFrontmatter, declared, archivedCopy, ledgerOld]);
      expectObservable(cold('-s|', { s: state }).pipe(filterSuperseded({ enabled: true, lookup }), map(summary))).toBe('-x|', {
        x: {
          ids: ['live'],
          drops: [
            'old: superseded_by live',
            'declared: superseded by live',
            'copied: archived copy at archived/x.md',
            'ledgered: ledger row is_latest = 0',
          ],
          degraded: [],
        },
      });
    });
  });

  it('lets candidates through a failing lookup and records which lookup failed; the other lookup still filters', () => {
    const lookup: RetiredLookup = {
      ...NOTHING_RETIRED,
      supersededBy: () => {
        throw new Error('database is locked');
      },
      ledgerRetired: (names) => (names.includes('ledgered.md') ? [{ artifactPath: 'ledgered.md', contentHash: null }] : []),
    };
    scheduler().run(({ cold, expectObservable }) => {
      const out$ = cold('-s|', { s: fused([live, declared, ledgerOld]) }).pipe(filterSuperseded({ enabled: true, lookup }), map(summary));
      expectObservable(out$).toBe('-x|', {
        x: {
          ids: ['live', 'declared'],
          drops: ['ledgered: ledger row is_latest = 0'],
          degraded: ['index lookup failed: database is locked'],
        },
      });
    });
  });

  it('does nothing when disabled, and asks no lookup when there are no candidates', () => {
    let asked = 0;
    const counting: RetiredLookup = {
      supersededBy: () => (asked++, new Map()),
      retiredCopies: () => (asked++, []),
      ledgerRetired: () => (asked++, []),
    };
    scheduler().run(({ cold, expectObservable }) => {
      const state = fused([byFrontmatter]);
      expectObservable(cold('-s|', { s: state }).pipe(filterSuperseded({ enabled: false, lookup: counting }))).toBe('-s|', { s: state });
      const empty = fused([]);
      expectObservable(cold('-e|', { e: empty }).pipe(filterSuperseded({ enabled: true, lookup: counting }))).toBe('-e|', { e: empty });
    });
    expect(asked).toBe(0);
  });
});
