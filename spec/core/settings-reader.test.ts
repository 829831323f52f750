/**
 * The one settings reader (core/settings/reader.ts): defaults and ranges from the settings table, and
 * one rule for a value it cannot take: refused, the default used, a warning that says so. The
 * pipeline's configuration and the team store's settings read through it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { SETTINGS, SettingsReader, numberDefault, setting } from '../../core/settings/index.js';
import { loadConfig } from '../../pipeline/config/index.js';
import { loadTeamSettings } from '../../sources/team/settings.js';

const numberSettings = SETTINGS.filter((s) => s.type === 'number');

describe('SettingsReader', () => {
  it('gives every number setting the default of its entry in the table when unset or blank', () => {
    const r = new SettingsReader({});
    const blank = new SettingsReader(Object.fromEntries(numberSettings.map((s) => [s.env, '  '])));
    for (const s of numberSettings) {
      expect({ env: s.env, unset: r.number(s.env), blank: blank.number(s.env) }).toEqual({ env: s.env, unset: s.def, blank: s.def });
    }
    expect([...r.warnings, ...blank.warnings]).toEqual([]);
  });

  it('takes a value at either end of the range as it is', () => {
    for (const s of numberSettings.filter((x) => x.min !== undefined && x.max !== undefined)) {
      const r = new SettingsReader({ [s.env]: String(s.min) });
      expect(r.number(s.env)).toBe(s.min);
      const top = new SettingsReader({ [s.env]: String(s.max) });
      expect(top.number(s.env)).toBe(s.max);
      expect([...r.warnings, ...top.warnings]).toEqual([]);
    }
  });

  it('refuses a value outside the range: the default is used, never the nearest bound, and a warning says so', () => {
    const r = new SettingsReader({
      REFLECT_SUBAGENT_RECALL_LIMIT: '999',
      RECALL_CONFIDENCE_ALPHA: '99',
      RECALL_FLOOR: '50',
      REFLECT_RECALL_TIMEOUT: '20000',
      REFLECT_RECALL_MAX_CHARS: '-5',
    });
    expect(r.number('REFLECT_SUBAGENT_RECALL_LIMIT')).toBe(3);
    expect(r.number('RECALL_CONFIDENCE_ALPHA')).toBe(0.2);
    expect(r.number('RECALL_FLOOR')).toBe(0.5);
    expect(r.number('REFLECT_RECALL_TIMEOUT')).toBe(20);
    expect(r.number('REFLECT_RECALL_MAX_CHARS')).toBe(2000);
    expect(r.warnings).toEqual([
      'REFLECT_SUBAGENT_RECALL_LIMIT="999" is outside 1..100; using 3',
      'RECALL_CONFIDENCE_ALPHA="99" is outside 0..2; using 0.2',
      'RECALL_FLOOR="50" is outside 0..1; using 0.5',
      'REFLECT_RECALL_TIMEOUT="20000" is outside 0.05..3600; using 20',
      'REFLECT_RECALL_MAX_CHARS="-5" is outside 0..10000000; using 2000',
    ]);
  });

  it('refuses junk and a fraction where only integers are valid, and never throws', () => {
    const r = new SettingsReader({
      REFLECT_SUBAGENT_RECALL_LIMIT: '2.5',
      REFLECT_RECALL_MIN_OVERLAP: 'lots',
      REFLECT_RECALL_MAX_TOKENS: 'Infinity',
      RECALL_MMR_LAMBDA: '0x10',
    });
    expect(r.number('REFLECT_SUBAGENT_RECALL_LIMIT')).toBe(3);
    expect(r.number('REFLECT_RECALL_MIN_OVERLAP')).toBe(0.2);
    expect(r.number('REFLECT_RECALL_MAX_TOKENS')).toBe(0);
    expect(r.number('RECALL_MMR_LAMBDA')).toBe(0.7);
    expect(r.warnings).toEqual([
      'REFLECT_SUBAGENT_RECALL_LIMIT="2.5" is not a valid integer; using 3',
      'REFLECT_RECALL_MIN_OVERLAP="lots" is not a valid number; using 0.2',
      'REFLECT_RECALL_MAX_TOKENS="Infinity" is not a valid integer; using 0',
      'RECALL_MMR_LAMBDA="0x10" is outside 0..1; using 0.7',
    ]);
  });

  it('turns a switch that is on by default off with any "off" word, not only 0', () => {
    const on = SETTINGS.find((s) => s.type === 'boolean' && s.def === true)!;
    for (const off of ['0', 'false', 'No', ' off ']) expect(new SettingsReader({ [on.env]: off }).bool(on.env)).toBe(false);
    for (const still of [undefined, '', '1', 'true', 'yes', 'maybe'])
      expect(new SettingsReader({ [on.env]: still }).bool(on.env)).toBe(true);
  });

  it('reads a setting of no upper bound without one', () => {
    const r = new SettingsReader({ RECALL_TEAM_CONNECT_TIMEOUT: '30' });
    expect(r.number('RECALL_TEAM_CONNECT_TIMEOUT')).toBe(30);
    expect(new SettingsReader({ RECALL_TEAM_CONNECT_TIMEOUT: '0' }).number('RECALL_TEAM_CONNECT_TIMEOUT')).toBe(10);
  });
});

describe('the hooks’ numbers in the settings table', () => {
  it('hold the values the hooks use: session start’s overlap gate 0.2, the subagent hook’s 3 learnings in at most 1500 characters', () => {
    expect(numberDefault('REFLECT_RECALL_MIN_OVERLAP')).toBe(0.2);
    expect(setting('REFLECT_RECALL_MIN_OVERLAP')).toMatchObject({ min: 0, max: 1 });
    expect(setting('REFLECT_RECALL_MAX_TOKENS')).toMatchObject({ def: 0, min: 0, max: 1_000_000, integer: true });
    expect(setting('REFLECT_SUBAGENT_RECALL_LIMIT')).toMatchObject({ def: 3, min: 1, max: 100, integer: true });
    expect(setting('REFLECT_SUBAGENT_RECALL_MAX_CHARS')).toMatchObject({ def: 1500, min: 0, max: 1_000_000, integer: true });
    expect(setting('REFLECT_SKILL_TIER_MIN_SCORE')).toMatchObject({ def: 2, min: 0, max: 1000 });
  });
});

describe('readers over the settings reader', () => {
  it('loadConfig refuses an out-of-range boost or arm floor instead of clamping it', () => {
    const c = loadConfig({ HOME: '/h', RECALL_CONFIDENCE_ALPHA: '99', RECALL_RECENCY_ALPHA: '-3', RECALL_ARM_BM25_MIN_SCORE: '7' });
    expect(c.alphas).toMatchObject({ confidence: 0.2, recency: 0.2 });
    expect(c.armFloors.bm25).toBe(0);
    expect(c.warnings).toEqual([
      'RECALL_CONFIDENCE_ALPHA="99" is outside 0..2; using 0.2',
      'RECALL_RECENCY_ALPHA="-3" is outside 0..2; using 0.2',
      'RECALL_ARM_BM25_MIN_SCORE="7" is outside 0..1; using 0',
    ]);
  });

  it('the team store reads its connect timeout and live-arm switch by the same rules', () => {
    const state = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-team-settings-'));
    try {
      const far = loadTeamSettings({ RECALL_TEAM_CONNECT_TIMEOUT: '1000', RECALL_TEAM_ARM: 'true' }, state);
      expect(far.connectTimeoutMs).toBe(10_000);
      expect(far.liveArm).toBe(true);
      expect(far.warnings).toEqual(['RECALL_TEAM_CONNECT_TIMEOUT="1000" is outside 0.01..600; using 10']);
      expect(loadTeamSettings({ RECALL_TEAM_CONNECT_TIMEOUT: '2.5' }, state).connectTimeoutMs).toBe(2500);
    } finally {
      fs.rmSync(state, { recursive: true, force: true });
    }
  });
});
