import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  MODEL_RUNTIME_PACKAGE,
  MODEL_RUNTIME_VERSION,
  installedRuntimeEntry,
  runtimeDir,
  runtimeInstallArgs,
} from '../../../sources/models/model-runtime.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
let dir: string | null = null;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('model runtime', () => {
  it('installs the version package.json pins, as an optional dependency (no user of the no-model path gets it)', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect(pkg['optionalDependencies']![MODEL_RUNTIME_PACKAGE]).toBe(MODEL_RUNTIME_VERSION);
    expect(pkg['dependencies']).not.toHaveProperty(MODEL_RUNTIME_PACKAGE);
    expect(pkg['dependencies']).not.toHaveProperty('better-sqlite3');
    expect(runtimeInstallArgs('/m')).toEqual(
      expect.arrayContaining(['--prefix', '/m/.runtime', `${MODEL_RUNTIME_PACKAGE}@${MODEL_RUNTIME_VERSION}`]),
    );
  });

  it('finds the ES module entry of a runtime installed under the models dir, and nothing when it is absent or broken', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-runtime-'));
    expect(installedRuntimeEntry(dir)).toBeNull();
    const pkgDir = path.join(runtimeDir(dir), 'node_modules', '@huggingface', 'transformers');
    fs.mkdirSync(path.join(pkgDir, 'dist'), { recursive: true });
    fs.writeFileSync(path.join(pkgDir, 'package.json'), '{"exports":{"node":{"import":{"default":"./dist/t.mjs"}}}}');
    expect(installedRuntimeEntry(dir)).toBeNull();
    fs.writeFileSync(path.join(pkgDir, 'dist', 't.mjs'), 'export const env = {};');
    expect(installedRuntimeEntry(dir)).toBe(path.join(pkgDir, 'dist', 't.mjs'));
    fs.writeFileSync(path.join(pkgDir, 'package.json'), 'not json');
    expect(installedRuntimeEntry(dir)).toBeNull();
  });
});
