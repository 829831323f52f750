/**
 * Replay of the tool-call hook's lines (`kind: "hook"`, `hook: "pre-tool-use"`): a logged shell
 * command is matched again against today's KB and settings, and the learnings it matched then and
 * now are compared. The line keeps the command as it was logged (scrubbed), so a command whose
 * secret was scrubbed is replayed without it. An edit's text is never logged (only its path), so
 * edits are listed as not replayable rather than compared on half their evidence.
 */
import { openSession, type RecallSession, type RunIo } from '../../pipeline/run.js';
import { readToolCall } from '../../operators/action/index.js';
import { actionMatches, wordInfo } from '../../hooks/action-recall.js';
import { diffIds, type ReplayDiff } from './diff.js';
import type { LoggedAction } from './log.js';

/** Each logged tool call matched again; an edit or a KB that cannot be opened is a line with its reason. */
export async function replayActions(actions: readonly LoggedAction[], io: RunIo): Promise<ReplayDiff[]> {
  const sessions = new Map<string, RecallSession>();
  const info = wordInfo(io.warn);
  const out: ReplayDiff[] = [];
  try {
    for (const a of actions) {
      const base = {
        line: a.line,
        query: a.call,
        caller: 'pre-tool-use',
        before: a.matched,
        tokensBefore: null,
        tokensAfter: 0,
        msBefore: a.ms,
      };
      const m = /^Bash: ([\s\S]*)$/.exec(a.call);
      if (!m) {
        out.push({
          ...base,
          after: [],
          added: [],
          removed: [],
          moved: [],
          msAfter: 0,
          changed: false,
          error: 'not replayed: an edit is logged by its path only',
        });
        continue;
      }
      try {
        const key = a.kb ?? '';
        let session = sessions.get(key);
        if (!session) {
          session = await openSession({ kb: a.kb, global: false, allBranches: false, verbose: false }, io);
          sessions.set(key, session);
        }
        const t0 = performance.now();
        const action = readToolCall({ tool_name: 'Bash', tool_input: { command: m[1] } })!;
        const after = (await actionMatches(session, action, io.cwd, { info, prompt: '' })).map(({ note }) =>
          note.displayId !== '?' ? note.displayId : note.key,
        );
        out.push({ ...base, after, ...diffIds(a.matched, after), msAfter: Math.round(performance.now() - t0) });
      } catch (err) {
        out.push({
          ...base,
          after: [],
          added: [],
          removed: [],
          moved: [],
          msAfter: 0,
          changed: true,
          error: `replay failed: ${(err as Error).message}`,
        });
      }
    }
  } finally {
    for (const s of sessions.values()) s.close();
  }
  return out;
}
