/**
 * "Over" after a span sets it against another span ("Prefer `dbt build` over `dbt run`"), not
 * against when or where it was run: "`terraform destroy` over the weekend wiped staging" tells what
 * went wrong, and a run of it still gets the memory.
 */
import { describe, it, expect } from '@jest/globals';
import { spanStances } from '../../operators/action/index.js';
import { ids, kb, memory } from '../helpers/action.js';

describe('"over" after a span', () => {
  it('is no contrast before plain words', () => {
    for (const text of [
      '`terraform destroy` over the weekend wiped staging.',
      '`git push --force` over SSH rewrote main.',
      'Someone ran `kubectl delete ns payments` over the VPN.',
    ])
      expect(spanStances(text)[0]).toMatchObject({ recommended: false });
    expect(spanStances('`uv pip install` over `pip install`.')[0]).toMatchObject({ recommended: true });
  });

  it('so the run it tells of still gets the memory', () => {
    const idx = kb({
      'documents/destroy.md': memory(
        'tf-destroy-staging',
        'terraform destroy wiped staging',
        '`terraform destroy` over the weekend wiped staging; ask in #infra first.',
      ),
    });
    expect(ids(idx, 'Bash', { command: 'terraform destroy -auto-approve' })).toEqual(['tf-destroy-staging']);
  });
});
