import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { KNOBS, configFilePath, parseConfigText, withConfigFile } from '../../pipeline/config/file.js';
import { ENV_ONLY_SETTINGS } from '../../sources/recall-server/protocol.js';
import { SETTINGS_TABLE_END, SETTINGS_TABLE_START, settingsTableMarkdown, withSettingsTable } from '../../core/settings/settings.js';
import { loadConfig } from '../../pipeline/config/config.js';

let dir = '';
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = '';
});

describe('recall.toml', () => {
  it('turns settings into environment values under the real environment', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-conf-'));
    fs.writeFileSync(path.join(dir, 'recall.toml'), 'limit = 4\nfloor = 0.7\ngraph_arm = false\nkb = "~/notes"\n');
    const env = { HOME: '/home/u', REFLECT_STATE_DIR: dir, RECALL_FLOOR: '0.2' };
    const r = withConfigFile(env);
    expect(r.file).toBe(path.join(dir, 'recall.toml'));
    expect(r.warnings).toEqual([]);
    const c = loadConfig(r.env);
    expect(c.defaultLimit).toBe(4);
    expect(c.floors.cli).toBe(0.2); // the environment wins
    expect(c.graphArm).toBe(false);
    expect(c.scope.globalLearningsPath).toBe('/home/u/notes');
  });

  it('reports unknown keys, wrong types and broken files, and ignores them', () => {
    expect(parseConfigText('limt = 3\nlimit = "ten"\nmmr = 1\n', 'f').warnings).toEqual([
      'f: unknown setting "limt"; ignored',
      'f: limit must be a number (got "ten"); ignored',
      'f: mmr must be a boolean (got "1"); ignored',
    ]);
    expect(parseConfigText('limit = [', 'f').warnings[0]).toMatch(/^f: not valid TOML/);
  });

  it('never reads a FIFO or a huge file (a hook must not hang on its settings)', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-conf-'));
    const fifo = path.join(dir, 'recall.toml');
    spawnSync('mkfifo', [fifo]);
    const r = withConfigFile({ HOME: dir, REFLECT_STATE_DIR: dir });
    expect(r.warnings).toEqual([`${fifo}: not a regular file of at most 262144 bytes; ignored`]);
  });

  it('looks in $RECALL_CONFIG, then the state dir, then XDG', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-conf-'));
    const xdg = path.join(dir, 'xdg', 'recall', 'recall.toml');
    fs.mkdirSync(path.dirname(xdg), { recursive: true });
    fs.writeFileSync(xdg, '');
    const env = { HOME: dir, REFLECT_STATE_DIR: path.join(dir, 'state'), XDG_CONFIG_HOME: path.join(dir, 'xdg') };
    expect(configFilePath(env)).toBe(xdg);
    fs.mkdirSync(path.join(dir, 'state'));
    fs.writeFileSync(path.join(dir, 'state', 'recall.toml'), '');
    expect(configFilePath(env)).toBe(path.join(dir, 'state', 'recall.toml'));
    fs.writeFileSync(path.join(dir, 'mine.toml'), '');
    expect(configFilePath({ ...env, RECALL_CONFIG: path.join(dir, 'mine.toml') })).toBe(path.join(dir, 'mine.toml'));
  });

  it('every REFLECT_* / RECALL_* variable the code reads is a documented setting', () => {
    const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
    const names = new Set<string>();
    const walk = (d: string): void => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(path.join(d, e.name));
        else if (e.name.endsWith('.ts'))
          for (const m of fs.readFileSync(path.join(d, e.name), 'utf8').matchAll(/'((?:REFLECT|RECALL)_[A-Z0-9_]+)'/g)) names.add(m[1]!);
      }
    };
    for (const d of ['core', 'io', 'pipeline', 'sources', 'sinks', 'hooks', 'operators', 'cli', 'server']) walk(path.join(root, d));
    const known = new Set([...KNOBS.map((k) => k.env), 'RECALL_CONFIG', ...ENV_ONLY_SETTINGS]);
    expect([...names].filter((n) => !known.has(n)).sort()).toEqual([]);
  });

  it("docs/settings.md's settings table is the one generated from the settings list (npm run docs:settings)", () => {
    const page = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'settings.md'), 'utf8');
    const start = page.indexOf(SETTINGS_TABLE_START);
    const end = page.indexOf(SETTINGS_TABLE_END);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(start);
    expect(page.slice(start + SETTINGS_TABLE_START.length, end).trim()).toBe(settingsTableMarkdown());
    expect(withSettingsTable(page)).toBe(page);
  });

  it('the generated table lists every setting once, with its key and variable', () => {
    const rows = settingsTableMarkdown().split('\n').slice(2);
    const documented = rows.map((r) => /^\| `([a-z0-9_]+)` \| `([A-Z0-9_]+)` \|/.exec(r)?.slice(1, 3).join(' '));
    expect(documented).toEqual(KNOBS.map((k) => `${k.key} ${k.env}`));
    expect(new Set(KNOBS.map((k) => k.key)).size).toBe(KNOBS.length);
    expect(new Set(KNOBS.map((k) => k.env)).size).toBe(KNOBS.length);
  });
});
