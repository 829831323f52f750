/**
 * Why recall cannot give the agent anything, in one line a person can act on: the problem and the
 * one command that fixes it. The SessionStart hook shows it to the user (never to the model) once
 * per session, and `recall status` prints the same line, so the two never disagree.
 */
import fs from 'node:fs';
import path from 'node:path';
import { configFilePath } from '../config/index.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface KbHealthInput {
  root: string;
  /** Live notes in the KB; -1 when the index could not be read. */
  liveNotes: number;
  /** Files that could not be used (each with its reason in `recall status`). */
  problems: number;
  /** True when the index is still being built (a first refresh that ran out of time): notes are on their way. */
  pending?: boolean;
}

/** Where a `kb = "..."` line takes effect: the config file recall reads (or would create). */
function configFileFor(env: Env, stateDir: string): string {
  return configFilePath(env) ?? path.join(stateDir, 'recall.toml');
}

/**
 * The problem with the KB, with its fix, or null when there are notes to recall. `home` shortens
 * paths to `~` for reading.
 */
export function kbProblem(kb: KbHealthInput, env: Env, stateDir: string, home: string): string | null {
  const tilde = (p: string): string => (home && (p === home || p.startsWith(`${home}/`)) ? `~${p.slice(home.length)}` : p);
  const config = configFileFor(env, stateDir);
  // Appending is right only to a file that does not exist yet: appended to an existing one, the line
  // can redefine its `kb` (invalid TOML, the whole file ignored) or land inside its last [table].
  const setKb = fs.existsSync(config)
    ? `set kb = "/path/to/your/notes" at the top of ${tilde(config)} (replacing any kb line)`
    : `echo 'kb = "/path/to/your/notes"' >> ${tilde(config)}`;
  if (kb.liveNotes > 0) return null;
  if (kb.pending)
    return `recall: the first index of ${tilde(kb.root)} is not finished yet; it goes on at the next prompt, or build it now with \`recall index\``;
  if (kb.liveNotes < 0) return `recall: the index of ${tilde(kb.root)} cannot be read; rebuild it with \`recall index\``;
  if (!fs.existsSync(kb.root)) return `recall: no notes to recall, ${tilde(kb.root)} does not exist; point recall at your notes: ${setKb}`;
  if (kb.problems > 0)
    return `recall: none of the ${kb.problems} note file(s) in ${tilde(kb.root)} could be used; \`recall status\` lists why`;
  return `recall: no notes in ${tilde(kb.root)} yet; point recall at your notes: ${setKb} (or save one: recall add "…")`;
}

/**
 * The hook itself failed (a broken install, an unreadable state dir): the fix depends on how recall
 * was installed, so the line names the check that tells, `recall status`.
 */
export function hookFailure(message: string): string {
  const first = message.split('\n')[0]!.slice(0, 300);
  return `recall: the session-start hook failed (${first}); run \`recall status\` to see what is wrong`;
}
