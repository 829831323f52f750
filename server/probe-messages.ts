/**
 * What the recall server and its probe threads say to each other (project-probe.ts, which sends
 * the requests, and project-probe-worker.ts, which answers them).
 */

/** The settings and folder a call resolves its KBs and memory folders with (pipeline/kb-sources). */
export type ProbeSources = { env: Readonly<Record<string, string | undefined>>; cwd: string };
/**
 * What a probe thread is asked: the folders and files of one call, and where its KBs are; `avoid`:
 * the paths where set-aside threads are stuck, not to be read again (nor anything under them).
 */
export type ProbeRequest = { id: number; dirs: string[]; files: string[]; sources?: ProbeSources; avoid: string[] };
/** A probe thread's messages: loaded, starting a path, done, or stopped before a path under a stuck one (`avoided`). */
export type ProbeReply = { ready: true } | { id: number; at: string } | { id: number; done: true } | { id: number; avoided: string };
/** What each probe thread starts with. */
export type ProbeWorkerData = { testStallReads: string | null };

/**
 * Paths read as a project (`dirs`), a transcript (`files`), and the KBs its settings name (`sources`);
 * one probe at a time per key; `label` names them in messages (never the key, which may hold settings).
 */
export type ProbeTask = { key: string; label: string; dirs: string[]; files: string[]; sources?: ProbeSources };

/** Whether the call may read its project on the server's thread; if not, why (a line for the hook's log). */
export type ProbeVerdict = { ok: true } | { ok: false; why: string };

export interface ProbeStats {
  threads: number;
  ready: number;
  /** Threads set aside, still blocked in a read that has not returned. */
  stuck: number;
  probed: number;
  /** Calls answered without their project's files (a probe late or stuck). */
  unanswered: number;
  /** Why probes are off (threads could not start): calls then read on the server's thread as before. */
  disabled: string | null;
}
