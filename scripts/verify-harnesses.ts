/**
 * `npm run verify:harnesses [-- --prefix DIR] [--keep]`: recall inside the real harness CLIs, the way a
 * user installs it, offline (only the npm registry) and in a throwaway HOME. Not part of `npm test`:
 * it installs the three harness CLIs (~400 MB) into a temp prefix (or reuses `--prefix DIR`).
 *
 * 0. The release as a user gets it: a clean clone, `npm ci --ignore-scripts`, `npm run plugin:release`
 *    pushed to a bare repository that git reaches as `https://github.com/recall-verify/recall` (an
 *    `insteadOf` rule in the throwaway HOME's git config), so the README's `<owner>/<repo>#plugin`
 *    line runs as written, offline.
 * 1. Claude Code: `claude plugin validate` (plugin, directory profile, and marketplace) on a checkout of
 *    the release branch; the marketplace added from the branch; `claude plugin install` (within 20 s,
 *    at most 60 MB, nothing installed into it); every hook command run exactly as the installed
 *    hooks.json declares it (CLAUDE_PLUGIN_ROOT = the installed copy) on real hook JSON; every command
 *    of the installed skill run with the plugin's bin/ on PATH; the plugin's MCP server started as
 *    plugin.json declares it and queried; `claude plugin details` for the skill's token cost.
 * 2. Codex and Copilot: `recall hooks install --harness codex|copilot --mcp` from the payload Claude
 *    Code installed, then each hook command of the written files run as declared on that harness's hook
 *    JSON; the skill and MCP server as the CLIs list them (`codex debug prompt-input`, `codex mcp list`,
 *    `copilot skill list`, `copilot mcp get`); the Codex plugin added from the release branch.
 * 3. The install lines of the README and docs/install.md are the commands this script ran.
 *
 * Every check prints one line (ok / FAIL); the script exits 1 if any failed. A script, not a test.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  verifyClaude,
  verifyCodex,
  verifyCopilot,
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
} from './verify/index.js';

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

/** The owner/repo the release is reached by, through the throwaway HOME's git config. */
const MARKET = 'recall-verify/recall';

/** Release the clone's payload to a local bare repository reached as github.com/MARKET; a checkout of it. */
function release(clone: string): string {
  section('the release branch (clone, npm ci --ignore-scripts, npm run plugin:release)');
  const ci = run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: clone,
    env: { ...process.env, HOME: home },
    timeout: 900_000,
  });
  check('npm ci --ignore-scripts', ci.status === 0, `${Math.round(ci.ms / 1000)} s`);
  const remote = path.join(base, 'hosted', `${MARKET}.git`);
  fs.mkdirSync(path.dirname(remote), { recursive: true });
  run('git', ['init', '-q', '--bare', remote]);
  const who = { GIT_AUTHOR_NAME: 'v', GIT_AUTHOR_EMAIL: 'v@x', GIT_COMMITTER_NAME: 'v', GIT_COMMITTER_EMAIL: 'v@x' };
  const rel = run('node', ['scripts/plugin-release.mjs', '--push', remote], {
    cwd: clone,
    env: { ...process.env, ...who },
    timeout: 600_000,
  });
  check(
    'npm run plugin:release -- --push <bare repository>',
    rel.status === 0,
    (rel.stdout.trim() || rel.stderr.slice(-300)).split('\n')[0],
  );
  for (const url of ['https://github.com/', 'git@github.com:'])
    run('git', ['config', '--global', '--add', `url.file://${path.join(base, 'hosted')}/.insteadOf`, url], { env: env() });
  const payload = path.join(base, 'payload');
  run('git', ['clone', '-q', '-b', 'plugin', remote, payload]);
  return payload;
}

/** The install lines of the README and docs/install.md are the commands this script ran. */
function readmeChecks(): void {
  section('README');
  const readme = ['README.md', 'docs/install.md'].map((f) => fs.readFileSync(path.join(repo, f), 'utf8')).join('\n');
  for (const line of [
    'npm run plugin:release',
    'claude plugin marketplace add <owner>/<repo>#plugin',
    'claude plugin install recall@recall',
    'recall hooks install --harness codex',
    'recall hooks install --harness copilot',
    'codex plugin marketplace add <owner>/<repo> --ref plugin',
    'codex plugin add recall@recall',
  ]) {
    check(`README or docs/install.md has \`${line}\``, readme.includes(line));
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
  const payload = release(clone);
  const root = await verifyClaude(payload, MARKET, project, transcript);
  const recall = path.join(root, 'bin', 'recall');
  await verifyCodex(recall, MARKET, project);
  await verifyCopilot(recall, project, transcript);
  readmeChecks();
  const failures = failureCount();
  process.stdout.write(`\n${failures === 0 ? 'all checks passed' : `${failures} check(s) FAILED`}\n`);
  if (!keep) fs.rmSync(base, { recursive: true, force: true });
  else process.stdout.write(`kept ${base}\n`);
  process.exit(failures === 0 ? 0 : 1);
}

await main();
