/**
 * `node dist/scripts/hostile.js [--repo DIR] [--cap SECONDS] [--only a,b] [--size N]`
 *
 * Wall time of the real hook processes (and a few CLI calls) on hostile inputs: the cases the
 * `spec/hostile/` suite asserts, timed end to end so a closing note can compare two builds
 * (`--repo` points at another checkout's built tree, e.g. main, to get "before" figures).
 * Each case prints: wall ms, exit code, whether stdout was exactly one JSON envelope, and a detail.
 * A process still running after `--cap` seconds (default 45) is killed and reported as such.
 * A script, not a test: it prints figures and never fails a build.
 */
import {
  IO_CASES,
  KB_CASES,
  LOAD_CASES,
  LEAK_CASES,
  WRITE_CASES,
  RACE_CASES,
  REPO_CASES,
  BURST_CASES,
  only,
  removeCaseDirs,
  repo,
} from './hostile/index.js';

const cases: Record<string, () => Promise<void>> = {
  ...KB_CASES,
  ...LOAD_CASES,
  ...IO_CASES,
  ...LEAK_CASES,
  ...WRITE_CASES,
  ...RACE_CASES,
  ...REPO_CASES,
  ...BURST_CASES,
};

process.stdout.write(`hostile cases against ${repo}\n\n| case | wall | exit | one JSON envelope | detail |\n|---|---|---|---|---|\n`);
for (const [name, fn] of Object.entries(cases)) {
  if (only.length && !only.includes(name)) continue;
  try {
    await fn();
  } catch (err) {
    process.stdout.write(`| ${name} | error: ${(err as Error).message.split('\n')[0]} | | | |\n`);
  }
}
removeCaseDirs();
