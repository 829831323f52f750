/**
 * Time-dependent test failures: a test that fails now and then, always around a time of day or a
 * date boundary ("fails maybe once a week, always right around the top of the hour", "flaky just
 * after midnight UTC", "breaks on the last day of the month"). Teams write rules for these about the
 * clock (inject a clock, never call the system time in code under test, freeze time in tests),
 * which share no word with such a prompt. Not a machine's clock drifting (`clock-skew` memories
 * are about a VM's or a server's clock, not code). Data only.
 */
import type { WorkKind } from './work-kinds.js';

export const CLOCK_KIND: WorkKind = {
  kind: 'clock',
  objects: [],
  named: ['clock', 'clocks', 'timecop', 'freezegun', 'faketime'],
  // A machine's clock, not the code's ("minio-clock-skew-after-sleep", "ntp-clock-drift",
  // "vm-clock-after-sleep"), nor a time clock people punch ("clock-in-rounding").
  notNamed: [
    'skew',
    'skewed',
    'drift',
    'drifts',
    'ntp',
    'chrony',
    'hwclock',
    'rtc',
    'vm',
    'vms',
    'host',
    'colima',
    'punch',
    'rounding',
    'timesheets?',
    'payroll',
    'shifts?',
    'attendance',
  ],
};

/** A test failing now and then. */
const NOW_AND_THEN = String.raw`flaky|flakes?|flaking|intermittent(?:ly)?|(?:sometimes|randomly|occasionally)\s+(?:fails?|breaks?|red)|(?:fails?|breaks?)\s+(?:\w+\s+)?(?:once|every|now and then|from time to time)`;
/** A time of day or a date boundary. */
const TIME_BOUNDARY = String.raw`top of the hour|on the hour|(?:just\s+)?(?:before|after|around)\s+(?:midnight|noon|\d{1,2}(?::\d{2})?\s*(?:am|pm|utc)?)\b|midnight|end of (?:the\s+)?(?:day|month|year|quarter|week)|(?:start|first day|last day) of (?:the\s+)?(?:day|month|year|quarter|week)|month[- ]end|year[- ]end|new year|daylight saving|\bdst\b|time ?zones?|leap (?:day|year|second)`;

/** `pre`: a cheap test for a word both need (most prompts have none). */
export const CLOCK_REQUESTS: { kind: string; re: RegExp; pre: RegExp }[] = [
  {
    kind: 'clock',
    // A test named somewhere in the prompt (`TestRollupHourly`, "the billing spec", "CI"): a flaky
    // network or a dashboard that breaks on a time zone switch is no test depending on the clock.
    pre: /^(?=[\s\S]*?(?:flak|intermittent|sometimes|randomly|occasionally|once|every|now and then|from time to time))(?=[\s\S]*?(?:\btest|\bspecs?\b|\bsuites?\b|\bci\b))/i,
    re: new RegExp(
      String.raw`\b(?<verb>${NOW_AND_THEN})\b[^.?!\n]{0,120}?(?:${TIME_BOUNDARY})|(?:${TIME_BOUNDARY})[^.?!\n]{0,120}?\b(?<verb2>${NOW_AND_THEN})\b`,
      'dgi',
    ),
  },
];
