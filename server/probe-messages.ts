/**
 * What the recall server and its probe threads say to each other (project-probe.ts, which sends
 * the requests, and project-probe-worker.ts, which answers them).
 */

/** The settings and folder a call resolves its KBs and memory folders with (pipeline/kb-sources). */
export type ProbeSources = { env: Readonly<Record<string, string | undefined>>; cwd: string };
/** What a probe thread is asked: the folders and files of one call, and where its KBs are. */
export type ProbeRequest = { id: number; dirs: string[]; files: string[]; sources?: ProbeSources };
/** A probe thread's messages: loaded, starting a path, done. */
export type ProbeReply = { ready: true } | { id: number; at: string } | { id: number; done: true };
/** What each probe thread starts with. */
export type ProbeWorkerData = { testStallReads: string | null };
