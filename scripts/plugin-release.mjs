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
//
// Why it refuses: the payload replaces the branch's whole tree, so a branch that holds anything
// else (main, a topic branch) must never be advanced. Before building, it refuses (exit 1) a target
// branch, local or on the --push remote, whose tip is not a release commit (see isRelease), and
// (exit 2) a flag with no value, an invalid branch name (`@` included), a name a remote-tracking
// branch or tag answers to, or a branch checked out here or in a linked worktree. With no git
// identity configured, release commits carry "recall release <release@localhost>" (identityEnv).
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

/** The trailer every release commit carries: what marks a branch as one this script may advance. */
const TRAILER = 'Recall-Plugin-Release: 1';
/** The identity a release commit carries when git has none configured (see identityEnv). */
const RELEASE_IDENTITY = { NAME: 'recall release', EMAIL: 'release@localhost' };
const USAGE = 'usage: npm run plugin:release [-- --branch NAME] [--push REMOTE]';

/** A refusal: one line on stderr and this exit status (2: usage, 1: the repository says no). */
export class ReleaseError extends Error {
  constructor(message, status = 1) {
    super(message);
    this.status = status;
  }
}

function tipOf(branch, cwd) {
  try {
    return git(['rev-parse', '-q', '--verify', `refs/heads/${branch}^{commit}`], { cwd });
  } catch {
    return null;
  }
}

/**
 * Whether `commit` is a payload release: its tree is a payload (a marketplace of its own, none of
 * the source tree's build files) and its message is one this script writes, with the trailer or in
 * the first releases' form (no trailer, the subject alone). Both are needed: a source commit could
 * quote the trailer, and a source tree never lacks package-lock.json.
 */
export function isRelease(commit, cwd = root) {
  const has = (file) => {
    try {
      git(['cat-file', '-e', `${commit}:${file}`], { cwd });
      return true;
    } catch {
      return false;
    }
  };
  if (!has('.claude-plugin/marketplace.json') || has('package-lock.json') || has('tsconfig.json')) return false;
  const message = git(['log', '-1', '--format=%B', commit], { cwd });
  return (
    message.split('\n').includes(TRAILER) ||
    /^recall plugin payload \S+, built from [0-9a-f]{40}( with uncommitted changes)?$/.test(message)
  );
}

/**
 * The environment for commit-tree: the configured identity (user.name and user.email, or the
 * GIT_AUTHOR_* / GIT_COMMITTER_* variables) when there is one, else the fixed release identity for
 * the role (author, committer) that has none, so a clone with no identity (a CI machine, a fresh
 * container) can still release. useConfigOnly: an identity guessed from the host name (root@vm) is
 * not taken, so the fallback does not depend on how the machine is named.
 */
export function identityEnv(env, cwd = root) {
  const out = { ...env };
  for (const role of ['AUTHOR', 'COMMITTER']) {
    try {
      git(['-c', 'user.useConfigOnly=true', 'var', `GIT_${role}_IDENT`], { cwd, env });
    } catch {
      for (const [k, v] of Object.entries(RELEASE_IDENTITY)) out[`GIT_${role}_${k}`] ||= v;
    }
  }
  return out;
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
    if (parent && !isRelease(parent, cwd))
      throw new ReleaseError(
        `${branch} is not a plugin release branch (its tip ${parent.slice(0, 12)} is not a payload commit); pick another --branch`,
      );
    if (parent && git(['rev-parse', `${parent}^{tree}`], { cwd }) === tree) return null;
    const head = git(['rev-parse', 'HEAD'], { cwd });
    const dirty = git(['status', '--porcelain'], { cwd }) !== '';
    const version = JSON.parse(fs.readFileSync(path.join(payload, 'package.json'), 'utf8')).version;
    const message = `recall plugin payload ${version}, built from ${head}${dirty ? ' with uncommitted changes' : ''}\n\n${TRAILER}`;
    const commit = git(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message], { env: identityEnv(env, cwd), cwd });
    git(['update-ref', `refs/heads/${branch}`, commit, ...(parent ? [parent] : [])], { cwd });
    return commit;
  } finally {
    fs.rmSync(path.dirname(index), { recursive: true, force: true });
  }
}

/** `--branch NAME`, `--push REMOTE`: a flag with no value, or with another flag as its value, is a usage error. */
export function parseArgs(argv) {
  const known = { '--branch': 'branch', '--push': 'remote' };
  const args = { branch: 'plugin', remote: undefined };
  for (let i = 0; i < argv.length; i += 2) {
    const key = known[argv[i]];
    if (!key) throw new ReleaseError(`unknown argument ${JSON.stringify(argv[i])}; ${USAGE}`, 2);
    const value = argv[i + 1];
    if (value === undefined || value === '' || value.startsWith('-')) throw new ReleaseError(`${argv[i]} needs a value; ${USAGE}`, 2);
    args[key] = value;
  }
  return args;
}

/**
 * A new local branch whose name a remote-tracking branch or a tag already answers to (`origin/main`)
 * would shadow it: `git log origin/main` would then name the release, not the remote's main. A name
 * under a configured remote's prefix is refused even before that remote has such a branch.
 */
function refuseShadowing(branch, cwd) {
  const exists = (ref) => {
    try {
      git(['show-ref', '--verify', '-q', ref], { cwd });
      return true;
    } catch {
      return false;
    }
  };
  for (const ref of [`refs/remotes/${branch}`, `refs/tags/${branch}`])
    if (exists(ref))
      throw new ReleaseError(
        `${JSON.stringify(branch)} would shadow the ${ref.startsWith('refs/tags/') ? 'tag' : 'remote-tracking branch'} ${ref}; ${USAGE}`,
        2,
      );
  const remote = git(['remote'], { cwd })
    .split('\n')
    .find((r) => r && branch.startsWith(`${r}/`));
  if (remote) throw new ReleaseError(`${JSON.stringify(branch)} starts with the name of the remote ${remote}; ${USAGE}`, 2);
}

/** The worktree (main or linked) that has `branch` checked out, or null. */
function checkedOutAt(branch, cwd) {
  let at = null;
  for (const line of git(['worktree', 'list', '--porcelain'], { cwd }).split('\n')) {
    if (line.startsWith('worktree ')) at = line.slice('worktree '.length);
    else if (line === `branch refs/heads/${branch}`) return at;
  }
  return null;
}

/** Every refusal that needs no build: a bad branch name, the checked-out branch, a branch (local or on the remote) that is not a release branch. */
function check({ branch, remote }, cwd) {
  let name = null;
  try {
    name = git(['check-ref-format', '--branch', branch], { cwd });
  } catch {
    // git's answer is a usage error; name stays null.
  }
  // check-ref-format --branch expands @{-N}: only a name that stands for itself is taken.
  if (name !== branch) throw new ReleaseError(`${JSON.stringify(branch)} is not a valid branch name; ${USAGE}`, 2);
  // git accepts refs/heads/@, but reads `@` as HEAD everywhere after: the branch could not be named.
  if (branch === '@') throw new ReleaseError(`"@" is not a valid branch name (git reads @ as HEAD); ${USAGE}`, 2);
  refuseShadowing(branch, cwd);
  const where = checkedOutAt(branch, cwd);
  if (where === path.resolve(cwd) || where === git(['rev-parse', '--show-toplevel'], { cwd }))
    throw new ReleaseError(`the checkout is on ${branch}; run it from a source branch`, 2);
  // Moving a branch another worktree has checked out changes that worktree's HEAD under its files.
  if (where)
    throw new ReleaseError(
      `${branch} is checked out in the worktree at ${where}; release to another --branch or check out something else there`,
      2,
    );
  const local = tipOf(branch, cwd);
  if (local && !isRelease(local, cwd))
    throw new ReleaseError(
      `${branch} is not a plugin release branch (its tip ${local.slice(0, 12)} is not a payload commit); pick another --branch`,
    );
  if (!remote) return;
  const remoteTip = git(['ls-remote', '--heads', remote, `refs/heads/${branch}`], { cwd }).split(/\s/)[0];
  if (!remoteTip || remoteTip === local) return;
  let known = true;
  try {
    git(['cat-file', '-e', `${remoteTip}^{commit}`], { cwd });
  } catch {
    known = false;
  }
  if (!known)
    throw new ReleaseError(`${branch} on ${remote} is at ${remoteTip.slice(0, 12)}, which this clone does not have; fetch it first`);
  if (!isRelease(remoteTip, cwd))
    throw new ReleaseError(
      `${branch} on ${remote} is not a plugin release branch (its tip ${remoteTip.slice(0, 12)} is not a payload commit); pick another --branch`,
    );
}

/** The whole command; its exit status. `build(dir)` writes the payload into dir and returns its size in bytes. */
export async function run(argv, { cwd = root, build = buildPlugin } = {}) {
  try {
    const args = parseArgs(argv);
    check(args, cwd);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-payload-'));
    try {
      const bytes = await build(path.join(out, 'plugin'));
      const commit = commitPayload(path.join(out, 'plugin'), args.branch, cwd);
      const size = `${(bytes / 1048576).toFixed(1)} MB`;
      process.stdout.write(
        commit
          ? `recall plugin payload (${size}) committed to ${args.branch}: ${commit}\n`
          : `${args.branch} already holds this payload (${size})\n`,
      );
      if (args.remote)
        git(['push', args.remote, `refs/heads/${args.branch}:refs/heads/${args.branch}`], { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
    return 0;
  } catch (err) {
    // A failed git command says why on its stderr (already shown for a push); its first line is the message.
    const stderr =
      err instanceof ReleaseError
        ? ''
        : String(err?.stderr ?? '')
            .trim()
            .split('\n')[0];
    process.stderr.write(`plugin:release: ${stderr || String(err?.message ?? err).split('\n')[0]}\n`);
    return err instanceof ReleaseError ? err.status : 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await run(process.argv.slice(2));
}
