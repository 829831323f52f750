/**
 * What recall asks git about the work tree a session runs in: where the repository is, the current
 * branch, the origin remote's name and the latest commit subjects.
 *
 * A repository is not trusted: its `.git/config` is written by whoever made the clone (or the
 * tarball, or the pull request), and git obeys it. With `log.showSignature=true` and
 * `gpg.program=<script>` a plain `git log` runs the script; other keys run programs on other paths
 * (core.fsmonitor, core.sshCommand, a promisor remote's fetch, uploadpack, …), and the list grows
 * with each git release. Overriding the keys known today (`-c log.showSignature=false …`) is a deny
 * list that the next git release can make incomplete. So recall never lets git read the
 * repository's configuration at all:
 *   - the repository, the branch and the origin URL are read from the `.git` files directly (no
 *     process is spawned, and a config file is only parsed, never obeyed);
 *   - the commit subjects come from git run on a private, empty git dir of recall's own (made per
 *     call in the temp folder, holding only a safe `config`, the repository's `shallow` list and an
 *     empty `refs/`) that borrows the repository's object store (GIT_OBJECT_DIRECTORY), and is asked
 *     for the log of the commit HEAD names, resolved here. Git then reads objects, which are data,
 *     and no configuration but recall's: system and global configuration are off too
 *     (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL), every inherited GIT_* variable is dropped, and the
 *     keys that run programs are still pinned with `-c` as a second wall.
 * Every read of a `.git` file refuses anything but a regular file (a FIFO named `.git` or `HEAD`
 * would block the reader forever), and git runs asynchronously with a timeout, so a slow or hostile
 * repository never stalls the recall server's other callers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { readSmallFile } from '../io/private-fs.js';

/** Timeout of one git call (the reference's value). */
const GIT_TIMEOUT_MS = 5000;
/** Largest `.git` file read (`.git` link, HEAD, a ref, packed-refs, config): a real one is far smaller. */
const MAX_GIT_FILE_BYTES = 4 * 1024 * 1024;
/** Largest output kept from git (a few commit subjects). */
const MAX_GIT_OUTPUT_BYTES = 1024 * 1024;

/** A `.git` file's text: null when missing or not a regular file (a FIFO, a device, a folder). */
const readGitFile = (file: string): string | null => readSmallFile(file, MAX_GIT_FILE_BYTES);

export interface GitRepo {
  /** The work tree root. */
  top: string;
  /** Its git dir: `.git`, or the folder a `.git` file's `gitdir:` names (a linked worktree). */
  gitDir: string;
}

/**
 * The work tree root holding `cwd` and its git dir, found by walking up to the nearest `.git`
 * (a folder, or a file `gitdir: …` in linked worktrees) — what `git rev-parse --show-toplevel`
 * answers, without spawning git. null outside a repository. A `.git` that is neither a folder nor
 * a regular file (a FIFO) is not a repository and is never opened.
 */
export function findRepo(cwd: string): GitRepo | null {
  let dir = path.resolve(cwd);
  for (;;) {
    const dotGit = path.join(dir, '.git');
    let st: fs.Stats | null = null;
    try {
      st = fs.statSync(dotGit);
    } catch {
      /* not here */
    }
    if (st?.isDirectory()) return { top: dir, gitDir: dotGit };
    if (st?.isFile()) {
      const m = /^gitdir:\s*(.+)$/m.exec(readGitFile(dotGit) ?? '');
      if (m) return { top: dir, gitDir: path.resolve(dir, m[1]!.trim()) };
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** The folder shared by all worktrees of a repository (refs, objects, config): `commondir`, else the git dir. */
function commonDir(gitDir: string): string {
  const common = readGitFile(path.join(gitDir, 'commondir'))?.trim();
  return common ? path.resolve(gitDir, common) : gitDir;
}

/** A git dir's HEAD: the branch ref it names, or the commit it holds when detached; null when unreadable. */
function readHead(gitDir: string): { ref: string } | { sha: string } | null {
  const head = readGitFile(path.join(gitDir, 'HEAD'))?.trim();
  if (head === undefined) return null;
  const ref = /^ref:\s*(refs\/\S+)$/.exec(head);
  if (ref) return { ref: ref[1]! };
  return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(head) ? { sha: head } : null;
}

/** A ref name git would accept as a file below refs/ (no `..`, no empty or dot-led part), so it names no other file. */
const safeRef = (ref: string): boolean => ref.split('/').every((p) => p !== '' && !p.startsWith('.') && !p.endsWith('.lock'));

/**
 * Current branch of the work tree holding `cwd`: '' when detached, outside a repository or
 * unreadable. A reftable repository's HEAD names `refs/heads/.invalid` (its refs live elsewhere),
 * which is not a branch: '' too, as are its commit subjects (recentCommitSubjects).
 */
export function currentBranch(cwd: string): string {
  const repo = findRepo(cwd);
  const head = repo ? readHead(repo.gitDir) : null;
  return head && 'ref' in head && head.ref.startsWith('refs/heads/') && safeRef(head.ref) ? head.ref.slice('refs/heads/'.length) : '';
}

/** The commit a ref names: its loose file in the git dir or the common dir, else packed-refs; null when none. */
function resolveRef(repo: GitRepo, ref: string): string | null {
  if (!safeRef(ref)) return null;
  const common = commonDir(repo.gitDir);
  for (const dir of [repo.gitDir, common]) {
    const loose = readGitFile(path.join(dir, ref))?.trim();
    if (loose && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(loose)) return loose;
  }
  for (const line of (readGitFile(path.join(common, 'packed-refs')) ?? '').split('\n')) {
    const m = /^([0-9a-f]{40}(?:[0-9a-f]{24})?) (\S+)$/.exec(line.trim());
    if (m && m[2] === ref) return m[1]!;
  }
  return null;
}

/** The commit HEAD stands on in the work tree holding `cwd`; null outside a repository, on an unborn branch or when unreadable. */
export function headCommit(cwd: string): { repo: GitRepo; sha: string } | null {
  const repo = findRepo(cwd);
  const head = repo ? readHead(repo.gitDir) : null;
  if (!repo || !head) return null;
  const sha = 'sha' in head ? head.sha : resolveRef(repo, head.ref);
  return sha ? { repo, sha } : null;
}

/**
 * `url` of the `[remote "origin"]` section of a git config text, or '' without one. Parsed as data:
 * includes are not followed (a remote defined only in an included file gives the folder name).
 */
export function originUrl(configText: string): string {
  let inOrigin = false;
  let url = '';
  for (const raw of configText.split('\n')) {
    const line = raw.trim();
    const section = /^\[\s*([^\]\s"]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (section) {
      const name = section[1]!.toLowerCase();
      inOrigin = (name === 'remote' && section[2] === 'origin') || name === 'remote.origin';
      continue;
    }
    if (!inOrigin) continue;
    const kv = /^url\s*=\s*(.*)$/i.exec(line);
    if (!kv) continue;
    let v = kv[1]!.replace(/\s[;#].*$/, '').trim();
    if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) v = v.slice(1, -1).replace(/\\(.)/g, '$1');
    // The first url is the one git fetches from.
    if (!url) url = v;
  }
  return url;
}

/** Name of the origin remote's repository (`…/name.git` → `name`); '' without one. Read from the config file, never from git. */
export function originName(cwd: string): string {
  const repo = findRepo(cwd);
  const remote = repo ? originUrl(readGitFile(path.join(commonDir(repo.gitDir), 'config')) ?? '') : '';
  return remote ? path.basename(remote.replace(/[/\\]+$/, '')).replace(/\.git$/, '') : '';
}

/**
 * Configuration that runs nothing, pinned on the command line (which wins over every file) in case
 * a configuration file were read after all: no signature checks, no fsmonitor, no pager, no hooks,
 * no transport of any kind (a lazy fetch of a missing object would start one), no external diff.
 */
export const SAFE_GIT_CONFIG: readonly string[] = [
  'log.showSignature=false',
  'gpg.program=false',
  'gpg.openpgp.program=false',
  'gpg.x509.program=false',
  'gpg.ssh.program=false',
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'core.pager=cat',
  'core.sshCommand=false',
  'core.askPass=false',
  'core.alternateRefsCommand=false',
  'protocol.allow=never',
  'diff.external=false',
  'credential.helper=',
];

/**
 * The environment git runs with: PATH and the locale of this process only (every GIT_* variable,
 * HOME and the rest dropped, so no inherited GIT_DIR, GIT_CONFIG_* or GIT_EXTERNAL_DIFF applies),
 * no system or global configuration, no lazy fetch, no prompt, no optional locks.
 */
export function safeGitEnv(env: NodeJS.ProcessEnv, objects: string, home: string): NodeJS.ProcessEnv {
  const keep = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'SYSTEMROOT'];
  const out: NodeJS.ProcessEnv = {};
  for (const k of keep) if (env[k] !== undefined) out[k] = env[k];
  return {
    ...out,
    HOME: home,
    XDG_CONFIG_HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: os.devNull,
    GIT_OBJECT_DIRECTORY: objects,
    GIT_NO_LAZY_FETCH: '1',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PAGER: 'cat',
  };
}

/**
 * A private git dir for one call: a bare repository of recall's own, with the object format of the
 * commit asked about and the repository's list of shallow commits (so the log of a shallow clone
 * stops where its history does instead of failing). Removed by the caller.
 */
function makeShadowGitDir(repo: GitRepo, sha: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-git-'));
  fs.mkdirSync(path.join(dir, 'refs'), { mode: 0o700 });
  fs.mkdirSync(path.join(dir, 'objects'), { mode: 0o700 });
  fs.writeFileSync(path.join(dir, 'HEAD'), 'ref: refs/heads/recall\n', { mode: 0o600 });
  const sha256 = sha.length === 64;
  const config = sha256
    ? '[core]\n\trepositoryformatversion = 1\n\tbare = true\n[extensions]\n\tobjectformat = sha256\n'
    : '[core]\n\trepositoryformatversion = 0\n\tbare = true\n';
  fs.writeFileSync(path.join(dir, 'config'), config, { mode: 0o600 });
  const shallow = readGitFile(path.join(commonDir(repo.gitDir), 'shallow'));
  if (shallow && /^[0-9a-f\n]*$/.test(shallow)) fs.writeFileSync(path.join(dir, 'shallow'), shallow, { mode: 0o600 });
  return dir;
}

/**
 * Subjects of the latest `n` commits of the work tree holding `cwd`, newest first; [] outside a
 * repository, on an unborn branch, when git is missing, fails or takes longer than GIT_TIMEOUT_MS.
 * Never reads the repository's configuration (see the head of this file); never rejects.
 */
export function recentCommitSubjects(cwd: string, n: number, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const head = headCommit(cwd);
  if (!head || !Number.isInteger(n) || n <= 0) return Promise.resolve([]);
  let shadow: string;
  try {
    shadow = makeShadowGitDir(head.repo, head.sha);
  } catch {
    return Promise.resolve([]);
  }
  const objects = path.join(commonDir(head.repo.gitDir), 'objects');
  const args = [
    ...SAFE_GIT_CONFIG.flatMap((c) => ['-c', c]),
    '--no-pager',
    `--git-dir=${shadow}`,
    'log',
    `-${n}`,
    '--no-show-signature',
    '--format=%s',
    head.sha,
    '--',
  ];
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      {
        cwd: shadow,
        env: safeGitEnv(env, objects, shadow),
        timeout: GIT_TIMEOUT_MS,
        killSignal: 'SIGKILL',
        maxBuffer: MAX_GIT_OUTPUT_BYTES,
        encoding: 'utf8',
      },
      (err, stdout) => {
        fs.rmSync(shadow, { recursive: true, force: true });
        resolve(err ? [] : stdout.split('\n').filter(Boolean));
      },
    );
  });
}
