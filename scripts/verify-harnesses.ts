/**
 * `npm run verify:harnesses [-- --prefix DIR] [--keep]`: recall inside the real harness CLIs, the way a
 * user installs it, offline (only the npm registry) and in a throwaway HOME. Not part of `npm test`:
 * it installs the three harness CLIs (~400 MB) into a temp prefix (or reuses `--prefix DIR`).
 *
 * 1. Claude Code: `claude plugin validate --profile directory` on a clean clone; a marketplace added
 *    from that clone; `claude plugin install`; every hook command run exactly as the installed
 *    hooks.json declares it (CLAUDE_PLUGIN_ROOT = the installed copy) on real hook JSON; every command
 *    of the installed skill run with the plugin's bin/ on PATH; the plugin's MCP server started as
 *    plugin.json declares it and queried; `claude plugin details` for the skill's token cost.
 * 2. Codex and Copilot: `recall hooks install --harness codex|copilot --mcp` from a clone installed
 *    with `npm ci --ignore-scripts` (no native build, as a plugin manager does), then each hook command
 *    of the written files run as declared on that harness's hook JSON; the skill and MCP server as the
 *    CLIs list them (`codex debug prompt-input`, `codex mcp list`, `copilot skill list`, `copilot mcp get`);
 *    the Codex plugin added from the clone's marketplace.
 * 3. The README's install lines are the commands this script ran.
 *
 * Every check prints one line (ok / FAIL); the script exits 1 if any failed. A script, not a test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { verifyClaude } from './verify/claude.js';
import { verifyCodex } from './verify/codex.js';
import { verifyCopilot } from './verify/copilot.js';
import {
  CLIS,
  base,
  bin,
  check,
  env,
  failureCount,
  home,
  keep,
  prefix,
  repo,
  run,
  section,
  seedKb,
  seedProject,
  seedTranscript,
} from './verify/common.js';

/** The three harness CLIs, installed into the prefix unless it already holds them. */
function installHarnesses(): void {
  section('harness CLIs');
  if (!fs.existsSync(bin('claude')) || !fs.existsSync(bin('codex')) || !fs.existsSync(bin('copilot'))) {
    const r = run('npm', ['i', '--no-audit', '--no-fund', '--prefix', prefix, ...CLIS], { env: { ...process.env }, timeout: 900_000 });
    if (!check(`npm i ${CLIS.join(' ')}`, r.status === 0, `${Math.round(r.ms / 1000)} s into ${prefix}`)) {
      process.stdout.write(r.stderr.slice(-2000));
      process.exit(1);
    }
  }
  for (const name of ['claude', 'codex', 'copilot']) {
    const r = run(bin(name), ['--version'], { env: env() });
    check(`${name} --version`, r.status === 0, (r.stdout.split('\n').find((l) => /\d+\.\d+/.test(l)) ?? '').trim());
  }
}

/** A recall install for Codex and Copilot: a clone whose dependencies were installed without scripts. */
function installRecallCli(): string {
  section('a recall install for Codex and Copilot (clone + npm ci --ignore-scripts)');
  const cli = path.join(base, 'recall-cli');
  run('git', ['clone', '-q', repo, cli]);
  const ci = run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: cli,
    env: { ...process.env, HOME: home },
    timeout: 900_000,
  });
  check('npm ci --ignore-scripts', ci.status === 0, `${Math.round(ci.ms / 1000)} s`);
  return path.join(cli, 'bin', 'recall');
}

/** The README's install lines are the commands this script ran. */
function readmeChecks(): void {
  section('README');
  const readme = fs.readFileSync(path.join(repo, 'README.md'), 'utf8');
  for (const line of [
    'claude plugin marketplace add <path or owner/repo of this repository>',
    'claude plugin install recall@recall',
    'recall hooks install --harness codex',
    'recall hooks install --harness copilot',
    'codex plugin marketplace add <path or owner/repo of this repository>',
    'codex plugin add recall@recall',
    'npm ci --ignore-scripts --omit=dev',
  ]) {
    check(`README has \`${line}\``, readme.includes(line));
  }
}

async function main(): Promise<void> {
  process.stdout.write(`recall verify:harnesses — node ${process.version}, temp ${base}\n`);
  const dirty = run('git', ['status', '--porcelain'], { cwd: repo }).stdout.trim();
  if (dirty) process.stdout.write('note: the work tree has uncommitted changes; this checks the last commit (a clean clone)\n');
  installHarnesses();
  const clone = path.join(base, 'recall');
  run('git', ['clone', '-q', repo, clone]);
  seedKb();
  const project = seedProject();
  const transcript = seedTranscript();
  await verifyClaude(clone, project, transcript);
  const recall = installRecallCli();
  await verifyCodex(recall, clone, project);
  await verifyCopilot(recall, project, transcript);
  readmeChecks();
  const failures = failureCount();
  process.stdout.write(`\n${failures === 0 ? 'all checks passed' : `${failures} check(s) FAILED`}\n`);
  if (!keep) fs.rmSync(base, { recursive: true, force: true });
  else process.stdout.write(`kept ${base}\n`);
  process.exit(failures === 0 ? 0 : 1);
}

await main();
