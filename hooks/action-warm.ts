/**
 * The tool-call hook's triggers, derived before the first tool call asks for them.
 *
 * The recall server derives a KB's triggers the first time a PreToolUse call reaches it (about
 * 0.2 ms a note warm, seconds for a large KB, several times that on a loaded machine): that first
 * call of a session waited for the whole build, and past its deadline answered nothing. A session
 * calls the other hooks first (SessionStart, each prompt, a subagent's start), seconds before the
 * agent's first tool call, so once one of them has answered in the server, the server starts the
 * build of the KBs the tool-call hook will read; a later call finds them ready, or joins the build
 * under way (action-triggers.ts shares one build per index version).
 *
 * Only where the process outlives the call (the recall server), only with the tool-call hook on, and
 * after the answer is on its way (also when the hook was cut at its deadline or failed): it never
 * delays the hook that started it.
 */
import fs from 'node:fs';
import { openSession } from '../pipeline/run.js';
import { errorMessage } from '../core/errors.js';
import { kbTriggers } from './action-triggers.js';
import { hookLog, type HookContext } from './runtime.js';
import { actionCwd, preToolUseOn } from './action-recall.js';
import { hookRow } from './hook-table.js';

/**
 * Starts deriving the triggers of the KBs the tool-call hook reads for this payload's project, in a
 * session of its own (the hook's is closed by then), and gives the builds started (each settles
 * when its KB's triggers are ready; none where nothing is started). Failures are written to the
 * tool-call hook's log, never thrown.
 */
export async function warmActionTriggers(input: Record<string, unknown>, ctx: HookContext): Promise<Promise<void>[]> {
  // A state dir removed since the call answered (a reset, `rm -rf ~/.reflect`) is not made again by
  // work done for later calls: no index opened, no log line written there.
  const gone = (): boolean => !fs.existsSync(ctx.stateDir);
  if (!ctx.outlivesCall || !preToolUseOn(ctx.env) || gone()) return [];
  const warn = (line: string): void => void (gone() || hookLog(ctx, 'pre-tool-use', line));
  try {
    // Bounded like the tool-call hook's own session: waits on a busy index and the embedding of new
    // notes a session does on opening must not hold the server longer than a tool call would.
    const deadlineMs = ctx.now() + hookRow('pre-tool-use').defaultTimeoutSec * 1000;
    const opts = { kb: null, global: false, allBranches: false, verbose: false, deadlineMs };
    const io = { env: ctx.env, cwd: actionCwd(ctx, input), now: ctx.now, warn, config: ctx.config, ...ctx.recallIo };
    const session = await openSession(opts, io);
    try {
      // Each KB's notes are read now, while the session is open; the builds go on in slices after it closes.
      return session.noteSets().map((set) =>
        kbTriggers(set, { warn }).then(
          () => undefined,
          (err: unknown) => warn(`${set.root}: ${errorMessage(err)}`),
        ),
      );
    } finally {
      session.close();
    }
  } catch (err) {
    warn(`triggers not derived ahead of the first tool call: ${errorMessage(err)}`);
    return [];
  }
}
