/**
 * Hostile review of replacements a memory states in plain words (core/note/memory.ts): the new side
 * of "X replaced Y" is no subject that is gone, and a change to one part of a subject does not retire
 * a memory about the rest of it.
 */
import { describe, it, expect } from '@jest/globals';
import { statedReplacements } from '../../core/note/index.js';

const named = (key: string, name: string, body: string) => ({
  key,
  path: `memory/${key}.md`,
  body,
  memoryType: 'project',
  frontmatter: { name },
});

describe('a replacement stated in plain words', () => {
  it('does not retire a memory about the new side', () => {
    const cache = named('gha-cache', 'github-actions-cache', 'Cache the pnpm store with `actions/cache`.');
    const ci = named('ci', 'ci-runner', 'GitHub Actions replaced Jenkins for CI builds in March.');
    expect(statedReplacements([cache, ci])).toEqual([]);
    const matrix = named('matrix', 'github-actions-matrix', 'The matrix runs node 18 and 20.');
    expect(statedReplacements([matrix, named('ci2', 'ci-provider', 'We switched from Jenkins to GitHub Actions.')])).toEqual([]);
  });

  it('does not retire a memory whose subject is only the place of what no longer holds', () => {
    const staging = named('stg', 'staging-deploys', 'Deploy to staging with `make deploy-staging`.');
    const approval = named('appr', 'approval-policy', 'Deploys no longer need a manual approval in staging.');
    expect(statedReplacements([staging, approval])).toEqual([]);
  });

  it('still retires the memory on the gone side, active or passive', () => {
    const workers = named('workers', 'Queue workers on the web servers', 'Workers run under Supervisor.');
    for (const body of [
      'The per-server queue workers were replaced by Horizon in August.',
      'We no longer run queue workers on the web servers.',
      'Per-server queue workers are no longer used.',
      'Horizon runs instead of the per-server queue workers.',
    ])
      expect([body, statedReplacements([workers, named('h', 'horizon-setup', body)])]).toEqual([body, [['workers', 'h']]]);
  });
});
