import { describe, it, expect } from '@jest/globals';
import { judgeUse, prepareText, useClues, type UseSource } from '../../core/helpfulness/index.js';

const CRON: UseSource = {
  id: 'lrn-cron-dst-skip-e4d7a2',
  title: 'Cron job at 02:30 local time skipped on DST spring-forward',
  keyInsight:
    'Schedules between 01:00 and 03:00 local time are skipped or doubled on DST transitions; schedule in UTC (or outside the transition window) and make jobs idempotent per business date.',
  fix: 'Set timeZone: Etc/UTC, schedule 30 7 * * *, derive the business date explicitly, and guard with a per-date completion marker.',
  howToApply: 'When scheduling a job, use UTC or a time outside 01:00-03:00 local and make the job idempotent per business date.',
};
const PROMPT = 'our nightly cron job did not run last Sunday';

describe('useClues', () => {
  it('keeps code-like tokens and topic 4-grams, and drops phrases made of the prompt’s words', () => {
    const c = useClues(CRON, PROMPT);
    expect(c.tokens).toContain('Etc/UTC');
    expect(c.phrases).toContain('make jobs idempotent per');
    // Every phrase has at least two topic words.
    expect(c.phrases.some((p) => /^(and|or|the) (and|or|the)/.test(p))).toBe(false);
    const echo = useClues({ ...CRON, keyInsight: 'nightly cron job did not run', fix: '', howToApply: '' }, PROMPT);
    expect(echo.phrases).toEqual([]);
  });

  it('is bounded whatever the note’s size', () => {
    const huge = Array.from({ length: 5000 }, (_, i) => `topicword${i} another${i} my_token_${i}`).join(' ');
    const c = useClues({ ...CRON, keyInsight: huge }, '');
    expect(c.phrases.length).toBeLessThanOrEqual(60);
    expect(c.tokens.length).toBeLessThanOrEqual(20);
  });
});

describe('judgeUse', () => {
  const clues = useClues(CRON, PROMPT);

  it('finds the note used when the assistant quotes its fix', () => {
    const v = judgeUse(clues, 'I will set the zone of the CronJob to Etc/UTC so 02:30 always exists.');
    expect(v).toEqual({ used: true, evidence: 'Etc/UTC', by: 'token' });
  });

  it('finds the note used when the assistant repeats four words of its insight', () => {
    const v = judgeUse(clues, 'Then we should make jobs idempotent per business day, with a marker.');
    expect(v.used).toBe(true);
    expect(v.by).toBe('phrase');
    expect(v.evidence).toBe('make jobs idempotent per');
  });

  it('finds the note used when the assistant names its id (any case, at word boundaries)', () => {
    expect(judgeUse(clues, 'As LRN-CRON-DST-SKIP-E4D7A2 says, use UTC.')).toMatchObject({ used: true, by: 'id' });
    expect(judgeUse(clues, 'xlrn-cron-dst-skip-e4d7a2x').used).toBe(false);
  });

  it('finds it not used when the assistant ignores it', () => {
    const v = judgeUse(clues, 'The job did not run because the image pull failed; retry the pod and check the registry credentials.');
    expect(v).toEqual({ used: false, evidence: null, by: null });
  });

  it('does not count the assistant echoing the prompt, nor common wording', () => {
    expect(judgeUse(clues, 'So your nightly cron job did not run last Sunday. Let me look at it and the local time.').used).toBe(false);
    expect(judgeUse(clues, '').used).toBe(false);
  });

  it('gives the same verdict on prepared text as on a string', () => {
    const text = 'make jobs idempotent per business date';
    expect(judgeUse(clues, prepareText(text))).toEqual(judgeUse(clues, text));
  });
});
