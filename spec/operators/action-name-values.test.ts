/**
 * A name a note writes as code (`skerry-compactor`, a consumer group), replaced by an edit: the note
 * that tells how that name came to be, or that it must not change, is about the edit. A file name
 * is no such value, nor a name the edit keeps.
 */
import { describe, it, expect } from '@jest/globals';
import { matchAction } from '../../operators/action/index.js';
import { call, info, kb, memory } from '../helpers/action.js';

const RENAME = memory(
  'consumer-group-rename',
  'Renaming the compactor consumer group id reset its offsets and replayed three days of events',
  [
    'A cleanup renamed the compactor consumer group from `compactor-v1` to `skerry-compactor`; the new group had no offsets.',
    '',
    '**How to apply:** Treat the group ids in `groups.rs` as frozen.',
  ].join('\n'),
  'project',
);
const idx = kb({ 'project_consumer_group_rename.md': RENAME });
const why = (before: string, after: string, file = '/home/dev/skerry/deploy/compactor/config.yaml'): string[] =>
  matchAction(idx, call('Edit', { file_path: file, old_string: before, new_string: after }), '/home/dev/skerry', {
    info,
    threshold: 0,
  }).find((m) => m.id === 'consumer-group-rename')?.why ?? [];

describe('a name a note writes as code', () => {
  it('is changed by an edit that replaces it', () => {
    expect(why('  group_id: skerry-compactor', '  group_id: skerry-compactor-v2')).toContain('changes:skerry-compactor');
  });

  it('is not changed by an edit that keeps it', () => {
    expect(why('  group_id: skerry-compactor\n  batch: 100', '  group_id: skerry-compactor\n  batch: 200')).not.toContain(
      'changes:skerry-compactor',
    );
  });

  it('needs a word of the subject besides its own: `orders-v2` in a router is no change of the orders topic', () => {
    const orders = kb({
      'orders.md': memory(
        'orders-topic',
        'The orders topic was renamed once and replayed a week of events',
        'Renamed from `orders-v1` to `orders-v2`; consumers re-read everything.',
        'project',
      ),
    });
    const m = matchAction(
      orders,
      call('Edit', {
        file_path: '/home/dev/shop/web/src/router.tsx',
        old_string: "const ROUTE = 'orders-v2';",
        new_string: "const ROUTE = 'orders';",
      }),
      '/home/dev/shop',
      { info, threshold: 0 },
    );
    expect(m.find((x) => x.id === 'orders-topic')?.why ?? []).not.toContain('changes:orders-v2');
  });

  it('is never a file name the note points at', () => {
    const w = why('mod groups; // see groups.rs', 'mod groups;', '/home/dev/skerry/compactor/src/lib.rs');
    expect(w.filter((x) => x.startsWith('changes:'))).toEqual([]);
  });
});
