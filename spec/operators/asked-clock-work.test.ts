/**
 * A test that fails now and then around a time of day or a date boundary is clock work
 * (operators/action/clock-requests.ts): rules about the clock (inject one, freeze time in tests)
 * apply, though they share no word with such a prompt. A memory named for a machine's clock
 * drifting is not named for it.
 */
import { describe, it, expect } from '@jest/globals';
import { askedWork, nameWords, workOf } from '../../operators/action/asked-work.js';
import { liftAskedSteps, ASKED_STEP_SURE } from '../../operators/lift-asked-steps.js';
import type { RelevanceEstimate } from '../../core/state.js';
import { note } from '../helpers/notes.js';

const clock = (prompt: string): boolean => askedWork(prompt).has('clock');

describe('time-dependent test failures in a prompt', () => {
  it('reads a test failing now and then around a time of day or a date boundary', () => {
    for (const p of [
      'TestInvoiceCutoff fails maybe once a week, always right around the top of the hour. fix it',
      'the renewal spec is flaky just after midnight UTC',
      'billing tests break on the last day of the month, they sometimes fail',
      'around DST the scheduler test is flaky',
    ])
      expect([p, clock(p)]).toEqual([p, true]);
  });

  it('reads none in a flaky test with no time, a schedule, or a machine clock', () => {
    for (const p of [
      'the e2e suite is flaky on CI',
      'schedule the cleanup job at midnight',
      'why is the clock wrong on my VM after sleep',
      'the test fails every time on main',
      // No test: a flaky network, a dashboard, a cron job.
      'our wifi is flaky around noon so go mod download sometimes fails in the Dockerfile; add a retry',
      'the Grafana panel breaks every time I switch the time zone dropdown, fix the dashboard json',
      'the nightly backup cron is flaky around midnight when the disk is full, add a disk check',
    ])
      expect([p, clock(p)]).toEqual([p, false]);
  });

  it('names a memory for the code clock, not a machine clock drifting', () => {
    expect([...workOf(nameWords('inject-clock'))]).toEqual(['clock']);
    expect([...workOf(nameWords('freezegun-in-tests'), true)]).toContain('clock');
    expect([...workOf(nameWords('no-wall-clock-in-tests'))]).toContain('clock');
    for (const name of [
      'minio-clock-skew-after-sleep',
      'ntp-clock-drift',
      'vm-clock-after-sleep',
      'clock-in-rounding',
      'punch-clock-shifts',
    ])
      expect([name, [...workOf(nameWords(name), true)]]).toEqual([name, []]);
  });

  it('lifts the rule named for the clock for such a prompt', () => {
    const rule = note(
      {
        id: undefined,
        name: 'inject-clock',
        description: 'Services take a Clock instead of calling the system time',
        metadata: { type: 'feedback' },
      },
      'Tests use a fake clock.\n\n**How to apply:** Any code that reads the time.',
      'documents/inject-clock.md',
    );
    const relevance = new Map<string, RelevanceEstimate>([[rule.key, { p: 0.1, source: 'lexical', features: null }]]);
    liftAskedSteps(
      relevance,
      [{ note: rule, rrf: 1 / 61, evidence: 1, ranks: { bm25: 1 } }],
      'the renewal spec is flaky just after midnight UTC',
    );
    expect(relevance.get(rule.key)).toMatchObject({ p: ASKED_STEP_SURE, source: 'asked-step' });
  });
});
