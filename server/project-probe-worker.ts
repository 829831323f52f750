/**
 * Worker-thread side of server/project-probe.ts: reads what a hook call will read of its project
 * (the folder, the git files that find the repository, its branch, origin and HEAD commit), of its
 * transcript, and of the KBs and memory folders its settings name, with the very functions the
 * hook uses, and answers when they returned. A read that never returns (a hung mount) blocks this
 * thread, never the server's: the pool gives up on it.
 *
 * Before each path it says which one it starts, so that the server can name the path that hung.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { findRepo, headCommit, originName } from '../sources/git.js';
import { lastUserPrompt } from '../sources/transcript/index.js';
import { stallPoint, stallReadsUnder } from '../io/read-stall.js';
import { envFlag } from '../core/truthy.js';
import { loadConfig } from '../pipeline/config/index.js';
import { resolveSources } from '../pipeline/kb-sources/index.js';
import { isUnder } from '../io/mount-point.js';
import type { ProbeReply, ProbeRequest, ProbeSources, ProbeWorkerData } from './probe-messages.js';

stallReadsUnder((workerData as ProbeWorkerData | null)?.testStallReads ?? null);

const say = (m: ProbeReply): void => parentPort!.postMessage(m);

/** Says `at` before reading path `p`, or `avoided` (and false) when `p` is under a path where another thread is stuck. */
function starting(req: ProbeRequest, p: string): boolean {
  if (req.avoid.some((a) => isUnder(p, a))) {
    say({ id: req.id, avoided: p });
    return false;
  }
  say({ id: req.id, at: p });
  return true;
}

parentPort!.on('message', (req: ProbeRequest) => {
  for (const dir of req.dirs) {
    if (!starting(req, dir)) return;
    try {
      fs.realpathSync(dir);
    } catch {
      /* a folder that is not there answers too */
    }
    // The git reads of the hook's scope and query: the walk up to `.git`, HEAD, the ref, packed-refs, config.
    if (findRepo(dir)) {
      headCommit(dir);
      originName(dir);
    }
  }
  for (const file of req.files) {
    if (!starting(req, file)) return;
    lastUserPrompt(file);
  }
  if (req.sources && !readSources(req, req.sources)) return;
  say({ id: req.id, done: true });
});

/**
 * The KBs and memory folders the call will read, as pipeline/kb-sources finds them (it looks at the
 * project's settings and its Claude Code memory folder), each root and its `documents/` looked into
 * for one entry: a KB on a hung mount hangs here, not in the server's walk of it. One entry, not a
 * listing: `documents/` of a 10k-note KB takes milliseconds to list, on every call.
 */
function readSources(req: ProbeRequest, { env, cwd }: ProbeSources): boolean {
  say({ id: req.id, at: `the KBs and memory folders of ${cwd}` });
  let roots: string[];
  try {
    roots = resolveSources(loadConfig(env), { kb: null, global: false, allBranches: false, cwd, env }).read.map((s) => s.root);
  } catch {
    return true; // settings the call itself refuses, with its own message
  }
  for (const root of roots) {
    if (!starting(req, root)) return false;
    peek(root);
    peek(path.join(root, 'documents'));
  }
  // The skills folder the SessionStart hook reads with REFLECT_TIERED_INJECT (hooks/ambient.ts).
  if (envFlag(env, 'REFLECT_TIERED_INJECT')) {
    const skills = env['REFLECT_SKILLS_DIR'] || path.join(env['HOME'] || os.homedir(), '.claude', 'skills');
    if (!starting(req, skills)) return false;
    peek(skills);
  }
  return true;
}

/** Reads one entry of a folder (missing or unreadable: nothing). */
function peek(dir: string): void {
  stallPoint(dir);
  try {
    const d = fs.opendirSync(dir, { bufferSize: 1 });
    try {
      d.readSync();
    } finally {
      d.closeSync();
    }
  } catch {
    /* not a folder, or not there: answered */
  }
}
say({ ready: true });
