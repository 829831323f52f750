/** The KB the staged-recall specs read (they only read it), built once per spec file. */
import fs from 'node:fs';
import path from 'node:path';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import type { StagesIo, StagesScope } from '../../cli/stages/stages.js';

/**
 * The notes:
 *   lrn-001  created 2026-01-05, category testing
 *   lrn-002  created 2026-02-01, project alpha
 *   lrn-003  created 2026-03-10, file 003-zanzibar.md with an entities sidecar
 *   archived/lrn-006 created 2026-03-15 (soft-archived: never listed or hydrated)
 *   lrn-004  dated only by its `<!-- archived: ... -->` body header, 2026-04-02
 *   lrn-005  created 2026-05-20
 *   lrn-007  undated, file mtime 2026-06-15 (sorted by mtime)
 *   lrn-long created 2027-01-01, a 300-word title
 */
export const LONG_TITLE = Array.from({ length: 300 }, (_, i) => `zanzibar${i}`).join(' ');
const SIDECAR = `document_id: lrn-003
extracted_at: "2026-03-10T12:00:00Z"
entities:
  - name: Zanzibar
    type: service
    description: relationship-based authorisation service
  - name: QuotaManager
    type: function
    description: enforces per-tenant quotas
relationships:
  - source: QuotaManager
    target: Zanzibar
    type: uses
    description: checks tuples before charging quota
`;

/** Build the KB; `warnings` collects what the stages warn about. */
export function stagesKb(warnings: string[]): { kb: TempKb; io: StagesIo; scope: StagesScope } {
  const kb = tempKb();
  kb.write(
    'documents/001-flaky.md',
    noteText('lrn-001', 'flaky retries hide races', 'Retries mask a race in the worker pool.', {
      created: '2026-01-05',
      category: 'testing',
    }),
  );
  kb.write(
    'documents/002-cache.md',
    noteText('lrn-002', 'cache stampede on deploy', 'Warm the cache before switching traffic.', {
      created: '2026-02-01',
      project: 'alpha',
    }),
  );
  kb.write(
    'documents/003-zanzibar.md',
    noteText('lrn-003', 'quota accounting goes wrong', 'The zanzibar quota drift came from double counting tuples.', {
      created: '2026-03-10',
      project_id: 'beta',
    }),
  );
  kb.write('documents/003-zanzibar.entities.yaml', SIDECAR);
  kb.write(
    'archived/006-old.md',
    noteText('lrn-006', 'zanzibar quota archived copy', 'zanzibar quota drift, the old story.', { created: '2026-03-15' }),
  );
  kb.write(
    'documents/004-header.md',
    `---\nid: lrn-004\ntitle: pager noise\n---\n<!-- archived: 2026-04-02T09:00:00+00:00 -->\nSilence duplicate pages.\n`,
  );
  kb.write(
    'documents/005-logs.md',
    noteText('lrn-005', 'structured logs', 'Use JSON logs everywhere.', { created: '2026-05-20', agent: 'ops-bot' }),
  );
  const undated = kb.write('documents/007-undated.md', noteText('lrn-007', 'undated note', 'Nothing dates this one.'));
  const june = new Date('2026-06-15T00:00:00Z');
  fs.utimesSync(undated, june, june);
  kb.write('documents/long.md', noteText('lrn-long', LONG_TITLE, 'zanzibar mentioned once here.', { created: '2027-01-01' }));
  const io: StagesIo = {
    env: { HOME: kb.state, REFLECT_STATE_DIR: kb.state, REFLECT_METRICS_PATH: path.join(kb.state, 'metrics.jsonl') },
    cwd: kb.root,
    warn: (l) => warnings.push(l),
  };
  return { kb, io, scope: { kb: kb.root, global: false, allBranches: false } };
}
