/**
 * findSupersededBy answers for the few keys of a recall's results: it finds a note superseded by its
 * declared `name:` and looks the keys up on the key index, never reading every live note (which cost
 * 12 ms per recall on a KB of 10k notes, in the hook's answer time).
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import { closeIndex, openIndex, refreshIndex, type IndexHandle } from '../../sources/index/index.js';
import { findSupersededBy, supersededByNameSql } from '../../sources/index/lookups.js';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';

let kb: TempKb | undefined;
let h: IndexHandle | undefined;
afterEach(() => {
  if (h) closeIndex(h);
  kb?.cleanup();
  h = undefined;
  kb = undefined;
});

function indexed(): IndexHandle {
  kb = tempKb();
  kb.write(
    'documents/jenkins.md',
    noteText('ci-jenkins', 'CI runs on Jenkins', 'the pipeline is a Jenkinsfile', { name: 'CI runs on Jenkins' }),
  );
  kb.write(
    'documents/actions.md',
    noteText('ci-actions', 'CI runs on GitHub Actions', 'moved to workflows', { supersedes: 'CI runs on Jenkins' }),
  );
  for (let i = 0; i < 40; i += 1) kb.write(`documents/filler-${i}.md`, noteText(`filler-${i}`, `filler ${i}`, `nothing ${i}`));
  h = openIndex(kb.root, kb.state);
  refreshIndex(h);
  return h;
}

describe('findSupersededBy', () => {
  it('names the note that supersedes a memory by its declared name', () => {
    const idx = indexed();
    expect([...findSupersededBy(idx, ['ci-jenkins', 'filler-1'])]).toEqual([['ci-jenkins', 'ci-actions']]);
  });

  it('looks the asked keys up on the key index, not by scanning the live notes (the query plan)', () => {
    const idx = indexed();
    const plan = (idx.db.prepare(`EXPLAIN QUERY PLAN ${supersededByNameSql(3)}`).all('a', 'b', 'c') as { detail: string }[]).map(
      (r) => r.detail,
    );
    expect(plan.find((d) => /\bn\b/.test(d))).toMatch(/USING INDEX notes_key \(key=\?\)/);
  });
});
