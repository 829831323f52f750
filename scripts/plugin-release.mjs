// `npm run plugin:release [-- --branch plugin] [--push REMOTE]`: builds the plugin payload
// (scripts/plugin-build.mjs) and commits it as the whole tree of the release branch (default
// `plugin`), an orphan branch that holds nothing else. Users install from that branch:
//   claude plugin marketplace add <owner>/<repo>#plugin && claude plugin install recall@recall
// The payload is its own marketplace (its .claude-plugin/marketplace.json lists itself, "./"), so
// the branch works from any host, fork or mirror without a URL written into the sources.
//
// Why a branch and not main: the payload is build output (bundles, word data, three vendored
// packages), and main stays free of generated files. Why plumbing and not a checkout: the work
// tree and index of the clone are never touched, so a release can run from a dirty tree (the
// payload is built from the files on disk; the commit message names the HEAD it came from and
// says when the tree had changes). Each release is a child of the previous tip, so `git log plugin`
// is the release history; a build identical to the tip commits nothing.
// Plain JavaScript: it runs from a clone after `npm ci`, before anything else is built.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildPlugin } from './plugin-build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function git(args, opts = {}) {
  // Inherited output (a push) returns null.
  return (execFileSync('git', args, { cwd: opts.cwd ?? root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts }) ?? '').trim();
}

function tipOf(branch, cwd) {
  try {
    return git(['rev-parse', '-q', '--verify', `refs/heads/${branch}^{commit}`], { cwd });
  } catch {
    return null;
  }
}

/** Commit the folder `payload` as the whole tree of `branch` of the repository at `cwd`; the new commit id, or null when unchanged. */
export function commitPayload(payload, branch, cwd = root) {
  const index = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-release-')), 'index');
  const env = { ...process.env, GIT_INDEX_FILE: index };
  try {
    // -f: the payload's dist/ and node_modules/ are ignored by the clone's excludes, not by the branch.
    git(['--work-tree', payload, 'add', '-A', '-f', '.'], { env, cwd });
    const tree = git(['write-tree'], { env, cwd });
    const parent = tipOf(branch, cwd);
    if (parent && git(['rev-parse', `${parent}^{tree}`], { cwd }) === tree) return null;
    const head = git(['rev-parse', 'HEAD'], { cwd });
    const dirty = git(['status', '--porcelain'], { cwd }) !== '';
    const version = JSON.parse(fs.readFileSync(path.join(payload, 'package.json'), 'utf8')).version;
    const message = `recall plugin payload ${version}, built from ${head}${dirty ? ' with uncommitted changes' : ''}`;
    const commit = git(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message], { env, cwd });
    git(['update-ref', `refs/heads/${branch}`, commit, ...(parent ? [parent] : [])], { cwd });
    return commit;
  } finally {
    fs.rmSync(path.dirname(index), { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const opt = (name) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const branch = opt('--branch') ?? 'plugin';
  if (git(['rev-parse', '--abbrev-ref', 'HEAD']) === branch) {
    process.stderr.write(`plugin:release: the checkout is on ${branch}; run it from a source branch\n`);
    process.exit(2);
  }
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-payload-'));
  try {
    const bytes = await buildPlugin(path.join(out, 'plugin'));
    const commit = commitPayload(path.join(out, 'plugin'), branch);
    const size = `${(bytes / 1048576).toFixed(1)} MB`;
    process.stdout.write(
      commit ? `recall plugin payload (${size}) committed to ${branch}: ${commit}\n` : `${branch} already holds this payload (${size})\n`,
    );
    const remote = opt('--push');
    if (remote) {
      git(['push', remote, `refs/heads/${branch}:refs/heads/${branch}`], { stdio: ['ignore', 'inherit', 'inherit'] });
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}
