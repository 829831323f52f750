/**
 * Worker-thread side of server/project-probe.ts: reads what a hook call will read of its project
 * (the folder, the git files that find the repository, its branch, origin and HEAD commit) and of
 * its transcript, with the very functions the hook uses, and answers when they returned. A read
 * that never returns (a hung mount) blocks this thread, never the server's: the pool gives up on it.
 *
 * Before each path it says which one it starts, so that the server can name the path that hung.
 */
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { findRepo, headCommit, originName } from '../sources/git.js';
import { lastUserPrompt } from '../sources/transcript/index.js';
import { stallReadsUnder } from '../io/read-stall.js';
import type { ProbeReply, ProbeRequest, ProbeWorkerData } from './project-probe.js';

stallReadsUnder((workerData as ProbeWorkerData | null)?.testStallReads ?? null);

const say = (m: ProbeReply): void => parentPort!.postMessage(m);

parentPort!.on('message', (req: ProbeRequest) => {
  for (const dir of req.dirs) {
    say({ id: req.id, at: dir });
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
    say({ id: req.id, at: file });
    lastUserPrompt(file);
  }
  say({ id: req.id, done: true });
});
say({ ready: true });
