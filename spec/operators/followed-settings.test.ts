/**
 * An edit that writes the setting a note's fix recommends, to its value, follows the note and gets
 * nothing from it, also when the note writes that setting as code: the setting's own key and value
 * are then tokens of the note, and name nothing else it is about (operators/action/followed.ts).
 */
import { describe, it, expect } from '@jest/globals';
import { ids, kb } from '../helpers/action.js';

const CRON = kb({
  'documents/cron.md': `---
id: lrn-cron-dst
title: "Cron schedules between 01:00 and 03:00 local time are skipped on DST days"
tags: [cron, dst]
key_insight: "Schedule cron jobs in UTC or outside 01:00-03:00 local."
fix: "Set timeZone: Etc/UTC and schedule 30 7 * * *."
---
## Solution
\`\`\`yaml
spec:
  timeZone: "Etc/UTC"
  schedule: "30 7 * * *"
\`\`\`
`,
});

const write = (spec: string) =>
  ids(CRON, 'Write', { file_path: '/home/dev/shop/k8s/cronjobs/warm.yaml', content: `kind: CronJob\nspec:\n${spec}\n` });

describe('a setting the note writes as code', () => {
  it('written to the value its fix recommends, follows the note', () => {
    expect(write('  schedule: "*/15 * * * *"\n  timeZone: "Etc/UTC"')).toEqual([]);
  });

  it('written with the rest of what the fix writes, still follows it', () => {
    expect(write('  timeZone: "Etc/UTC"\n  schedule: "30 7 * * *"\n  startingDeadlineSeconds: 60')).toEqual([]);
  });

  it('written to another value does not, nor beside the same key written to another value', () => {
    expect(write('  schedule: "30 2 * * *"\n  timeZone: "America/New_York"')).toEqual(['lrn-cron-dst']);
    // Two jobs in one file, one in UTC and one in a local zone; a comment that keeps the UTC value.
    const twoJobs =
      '  timeZone: "Etc/UTC"\n  schedule: "30 7 * * *"\n---\nkind: CronJob\nspec:\n  timeZone: "America/New_York"\n  schedule: "30 2 * * *"';
    expect(write(twoJobs)).toEqual(['lrn-cron-dst']);
    expect(write('  # was timeZone: "Etc/UTC"\n  timeZone: "America/New_York"\n  schedule: "30 2 * * *"')).toEqual(['lrn-cron-dst']);
  });
});
