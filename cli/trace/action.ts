/**
 * `recall trace --tool-call FILE|-`: what the PreToolUse hook would do with a tool call, and why.
 * The call is a hook payload as a harness sends it (or just `{"tool_name", "tool_input"}`); the
 * trace shows the call as it is logged (scrubbed), every learning its triggers reach with the
 * evidence (`command:`, `token:`, `word:`, `path:`, `prompt:`, `when:`) and whether it clears the
 * bar. The same matcher and triggers as the hook; nothing is recorded, the session's set untouched.
 */
import { openSession, type RunIo } from '../../pipeline/run.js';
import { UsageError } from '../../core/errors.js';
import { ACTION_MATCH_THRESHOLD, clearsBar, readToolCall } from '../../operators/action/index.js';
import { actionMatches, callText, scrubbedCall, wordInfo } from '../../hooks/action-recall.js';
import { lastUserPrompt } from '../../sources/transcript/index.js';
import { stripControls, wellFormedJson } from '../../sinks/safe-text.js';
import { scrub, scrubEvidence } from '../../sinks/scrub/index.js';

/** Near misses shown: the matches at half the bar and up. */
const SHOWN_FROM = ACTION_MATCH_THRESHOLD / 2;

/** The KBs a trace reads: `--kb` (one), `--global`, `--all-branches`; none given = what the hook reads. */
export interface TraceSources {
  kb: string | null;
  global: boolean;
  allBranches: boolean;
}

const HOOK_SOURCES: TraceSources = { kb: null, global: false, allBranches: false };

export async function runActionTrace(
  stdinText: string,
  io: RunIo,
  format: 'text' | 'jsonl',
  write: (s: string) => void,
  sources: TraceSources = HOOK_SOURCES,
): Promise<void> {
  let input: Record<string, unknown>;
  try {
    input = JSON.parse(stdinText) as Record<string, unknown>;
  } catch (err) {
    throw new UsageError(`--tool-call: not JSON (${(err as Error).message.split('\n')[0]})`);
  }
  const action = input && typeof input === 'object' ? readToolCall(input) : null;
  if (!action) throw new UsageError('--tool-call: no tool_name (or toolName) in the JSON');
  const cwd = typeof input['cwd'] === 'string' ? input['cwd'] : io.cwd;
  const transcript = typeof input['transcript_path'] === 'string' ? input['transcript_path'] : '';
  const prompt = transcript ? lastUserPrompt(transcript) : '';
  const session = await openSession({ ...sources, verbose: false }, io);
  try {
    const info = wordInfo((l) => io.warn(`recall: ${l}`));
    const found = await actionMatches(session, action, cwd, {
      info,
      prompt,
      threshold: SHOWN_FROM,
      max: 10,
      warn: (l) => io.warn(`recall: ${l}`),
    });
    const call = scrubbedCall(action);
    const rows = found.map(({ note, match }) => ({
      id: note.displayId !== '?' ? note.displayId : note.key,
      score: match.score,
      given: clearsBar(match),
      // The evidence quotes the call's own words: scrubbed like the call.
      why: match.why.map((w) => scrubEvidence(stripControls(w), callText(action))),
    }));
    if (format === 'jsonl') {
      write(
        `${wellFormedJson({ stage: 'tool-call', call, prompt: prompt ? scrub(prompt).slice(0, 300) : null, threshold: ACTION_MATCH_THRESHOLD })}\n`,
      );
      for (const r of rows) write(`${wellFormedJson({ stage: 'match', ...r })}\n`);
      return;
    }
    write(`tool call   ${stripControls(call)}\n`);
    if (prompt) write(`prompt      ${stripControls(scrub(prompt)).slice(0, 120)}\n`);
    if (rows.length === 0) write(`            no learning's triggers reach this call, or it already does what they say\n`);
    for (const r of rows) write(`${r.given ? 'given   ' : 'below   '}    ${r.id}  ${r.score.toFixed(2)}  ${r.why.join(' ')}\n`);
    write(
      `            (given: evidence >= ${ACTION_MATCH_THRESHOLD} and more than one shared word; at most 2 per call, once per session)\n`,
    );
  } finally {
    session.close();
  }
}
