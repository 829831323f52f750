/**
 * The setup both model-pull specs share: the tiny fixture model served by a fake hub (started once
 * per file), a fresh models folder per test, and helpers that read what a pull left there.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pullModel, type PullOptions } from '../../../sources/models/pull.js';
import { startFakeHub, type FakeHub } from './fake-hub.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const FIXTURE = path.join(here, '..', '..', 'fixtures', 'models', 'fixture', 'tiny-embed');
export const REPO = 'fixture/tiny-embed';
export const ID = 'acme/tiny-embed';
export const fixture = (file: string): Buffer => fs.readFileSync(path.join(FIXTURE, ...file.split('/')));
export const resolvePath = (file: string, repo = REPO): string => `/${repo}/resolve/main/${file}`;

export interface PullSuite {
  hub: FakeHub;
  /** This test's models folder. */
  modelsDir: string;
  /** Pull the fixture model from the fake hub into modelsDir. */
  pull: (extra?: Partial<PullOptions>) => ReturnType<typeof pullModel>;
  /** Entries of modelsDir (the temp folders are the ones named `.pull-*`). */
  entries: () => string[];
  /** Where a model's files land under modelsDir. */
  modelDir: (id?: string) => string;
}

/** Registers the hooks of the shared setup in the calling spec file. */
export function pullSuite(): PullSuite {
  const s: PullSuite = {
    hub: null as unknown as FakeHub,
    modelsDir: '',
    pull: (extra = {}) => pullModel({ id: ID, repo: REPO, modelsDir: s.modelsDir, endpoint: s.hub.endpoint, timeoutMs: 2000, ...extra }),
    entries: () => fs.readdirSync(s.modelsDir).sort(),
    modelDir: (id = ID) => path.join(s.modelsDir, ...id.split('/')),
  };
  beforeAll(async () => {
    s.hub = await startFakeHub({ [REPO]: FIXTURE, 'Xenova/tiny-embed': FIXTURE });
  });
  afterAll(async () => {
    await s.hub.close();
  });
  beforeEach(() => {
    s.modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-pull-'));
  });
  afterEach(() => {
    s.hub.reset();
    fs.rmSync(s.modelsDir, { recursive: true, force: true });
  });
  return s;
}
