/**
 * A person's review of the notes agents wrote: `recall review` lists the notes awaiting it,
 * `recall accept ID` makes one the person's own, `recall reject ID` retires it (as `recall forget`
 * does). The library functions are pipeline/notes/review.ts; `recall view` calls the same.
 */
import type { Argv, CommandModule } from 'yargs';
import { JSON_OPTION, SCOPE_OPTIONS, jsonText, oneKb, type CliIo } from '../shared.js';
import { UsageError } from '../../core/errors.js';
import { isConfidenceTier } from '../../core/confidence.js';
import { lastValue } from '../options.js';
import { oneLine } from '../../sinks/safe-text.js';
import type { UnreviewedNote } from '../../pipeline/notes/index.js';

const notesIo = (io: CliIo) => ({ env: io.env, cwd: io.cwd, warn: (l: string) => io.stderr(`${l}\n`) });

/** The list for a person: one block per note, its words as written (on one line each), then what to run. */
export function formatReview(rows: readonly UnreviewedNote[]): string {
  if (rows.length === 0) return 'No note awaits review: every note of this KB was written or accepted by a person.\n';
  const out = [
    `${rows.length} ${rows.length === 1 ? 'note' : 'notes'} written by an agent ${rows.length === 1 ? 'awaits' : 'await'} your review:`,
    '',
  ];
  for (const r of rows) {
    const claimed = r.claimed_confidence && r.claimed_confidence !== r.confidence ? ` (claims ${oneLine(r.claimed_confidence)})` : '';
    out.push(`${oneLine(r.id)}  ${r.date ?? '—'}  ${r.confidence}${claimed}  ${oneLine(r.title)}`);
    out.push(`  ${r.label}, via ${oneLine(r.source_tool) || 'an unknown tool'}`);
    if (r.key_insight) out.push(`  insight: ${oneLine(r.key_insight)}`);
    if (r.how_to_apply) out.push(`  how to apply: ${oneLine(r.how_to_apply)}`);
    out.push(`  ${oneLine(r.path)}`, '');
  }
  out.push('Accept one as your own with `recall accept ID` (--confidence to set its tier), or retire it with `recall reject ID`.');
  return `${out.join('\n')}\n`;
}

export function reviewCommand(io: CliIo): CommandModule {
  return {
    command: 'review',
    describe: 'The notes agents wrote that no person has accepted yet (accept or reject each)',
    builder: (y: Argv) => y.options({ ...SCOPE_OPTIONS, ...JSON_OPTION }),
    handler: async (a) => {
      const { listUnreviewed } = await import('../../pipeline/notes/review.js');
      const rows = listUnreviewed(oneKb(a, 'review'), notesIo(io));
      io.stdout(a['json'] ? jsonText(rows) : formatReview(rows));
    },
  };
}

export function acceptCommand(io: CliIo): CommandModule {
  return {
    command: 'accept <id>',
    describe: "Accept a note an agent wrote as your own: recall then treats it like a person's note",
    builder: (y: Argv) =>
      y.positional('id', { type: 'string', describe: 'note id (see recall review)' }).options({
        ...SCOPE_OPTIONS,
        confidence: { type: 'string', describe: 'set its confidence: high, medium or low (default: as its file says)' },
        ...JSON_OPTION,
      }),
    handler: async (a) => {
      const { acceptNote, agentShell } = await import('../../pipeline/notes/review.js');
      // Acceptance is a person's word: refused where the environment says an agent runs the command.
      const agent = agentShell(io.env);
      if (agent) throw new UsageError(`accept: refused in an agent's shell (${agent}); a person accepts a note, in their own terminal`);
      let confidence: 'high' | 'medium' | 'low' | undefined;
      if (a['confidence'] !== undefined) {
        const c = String(lastValue(a['confidence'])).toLowerCase();
        if (!isConfidenceTier(c)) throw new UsageError(`--confidence must be one of high, medium, low (got ${JSON.stringify(c)})`);
        confidence = c;
      }
      const r = acceptNote(String(a['id']), oneKb(a, 'accept'), notesIo(io), confidence ? { confidence } : {});
      io.stdout(a['json'] ? jsonText(r) : `accepted ${r.id} (confidence ${r.confidence}): ${r.path}\n`);
    },
  };
}

export function rejectCommand(io: CliIo): CommandModule {
  return {
    command: 'reject <id>',
    describe: 'Reject a note an agent wrote: moved to the forgotten folder, as recall forget does',
    builder: (y: Argv) =>
      y.positional('id', { type: 'string', describe: 'note id (see recall review)' }).options({ ...SCOPE_OPTIONS, ...JSON_OPTION }),
    handler: async (a) => {
      const { rejectNote } = await import('../../pipeline/notes/review.js');
      const r = rejectNote(String(a['id']), oneKb(a, 'reject'), notesIo(io));
      io.stdout(a['json'] ? jsonText(r) : `rejected ${r.id}: moved ${r.from} → ${r.to} (move it back to restore it)\n`);
    },
  };
}
