/**
 * The organisation's domain in a host name (`halyard.internal` of `registry.halyard.internal`) is in
 * every host a company's calls name: it says which company the call is in, not what it does. The
 * host's first label and the whole name still count, and a file name is no host.
 */
import { describe, it, expect } from '@jest/globals';
import { matchAction } from '../../operators/action/index.js';
import { call, info, kb, memory } from '../helpers/action.js';

const BENCH = memory(
  'bench-host',
  'Benchmark machine bench-03.lab.halyard.internal (bare-metal amd64); reserve it in #perf-lab before long runs',
  'SSH: `ssh -J bastion.halyard.internal bench-03.lab.halyard.internal`. Post in #perf-lab before runs over 15 min.',
  'reference',
);
const idx = kb({ 'reference_bench_host.md': BENCH });
const whys = (tool: string, input: Record<string, unknown>): string[] =>
  matchAction(idx, call(tool, input), '/home/dev/skerry', { info, threshold: 0, max: 5 }).find((m) => m.id === 'bench-host')?.why ?? [];

describe('host names in a call', () => {
  it('give no word of their domain: a push to the company registry is not about its bench host', () => {
    const why = whys('Bash', { command: 'docker push registry.halyard.internal/dev/queryd:mk-test' });
    expect(why.filter((w) => /halyard|intern/.test(w))).toEqual([]);
  });

  it('still reach the note that names the host itself', () => {
    const why = whys('Bash', { command: 'scp results.json bench-03.lab.halyard.internal:~/runs/' });
    expect(why).toEqual(expect.arrayContaining(['token:bench-03.lab.halyard.internal']));
  });

  it('leave a domain word written elsewhere in the call as a word', () => {
    const why = whys('Bash', { command: 'rsync -a out/ ci.halyard.internal:/srv/halyard/perf-lab/' });
    expect(why).toContain('word:halyard');
  });

  it('are never script or file names: the words of `deploy.canary.sh` all count', () => {
    const canary = kb({
      'canary.md': memory(
        'canary-deploys',
        'Canary deploys need a second approver',
        'Every canary deploy needs a second approver in #releases.',
      ),
    });
    const m = matchAction(canary, call('Bash', { command: './scripts/deploy.canary.sh --approve' }), '/home/dev/skerry', {
      info,
      threshold: 0,
    });
    expect(m.find((x) => x.id === 'canary-deploys')?.why).toEqual(expect.arrayContaining(['word:canari']));
  });
});
