/**
 * Commands over single notes: `show`, `list`, and the writes `add`, `supersede`, `forget`.
 *
 * `recall add` takes a note from flags (`--title`, `--insight`, …), from stdin (`recall add -`: a
 * whole note with frontmatter, or markdown text that becomes the body) or from $EDITOR (`--edit`,
 * or no content given on a terminal).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { Argv, CommandModule } from 'yargs';
import { JSON_OPTION, SCOPE_OPTIONS, jsonText, oneKb, type CliIo } from '../shared.js';
import { UsageError } from '../../core/errors.js';
import { lastValue, requireNumber } from '../options.js';
import { splitFrontmatter } from '../../core/frontmatter.js';
import { howToApply, parseTags, str } from '../../core/note/index.js';
import type { NewNote } from '../../sinks/note-writer.js';
import type { WriteGuard } from '../../pipeline/notes/index.js';
import { isConfidenceTier } from '../../core/confidence.js';

const notesIo = (io: CliIo) => ({ env: io.env, cwd: io.cwd, warn: (l: string) => io.stderr(`${l}\n`) });

export function showCommand(io: CliIo): CommandModule {
  return {
    command: 'show <id>',
    describe: 'One note, rendered for a person (live, superseded, archived or forgotten)',
    builder: (y: Argv) =>
      y.positional('id', { type: 'string', describe: 'note id (or file name without .md)' }).options({ ...SCOPE_OPTIONS, ...JSON_OPTION }),
    handler: async (a) => {
      const { showNote, formatShown } = await import('../../pipeline/notes/notes.js');
      const n = showNote(String(a['id']), oneKb(a, 'show'), notesIo(io));
      io.stdout(a['json'] ? jsonText(n) : formatShown(n));
    },
  };
}

export function listCommand(io: CliIo): CommandModule {
  return {
    command: 'list',
    describe: 'The notes of the KB, newest first: date, confidence, id, title',
    builder: (y: Argv) =>
      y.options({
        ...SCOPE_OPTIONS,
        since: { type: 'string', describe: 'only notes dated on or after this date (YYYY-MM-DD, or "last week", …)' },
        tag: { type: 'string', array: true, describe: 'only notes with this tag (repeat for several: all must match)' },
        limit: { requiresArg: true, describe: 'at most N notes' },
        all: { type: 'boolean', default: false, describe: 'also superseded, archived and forgotten notes (marked)' },
        ...JSON_OPTION,
      }),
    handler: async (a) => {
      const { listNotes, formatList } = await import('../../pipeline/notes/notes.js');
      const limit = requireNumber('limit', a['limit'], { min: 1, integer: true });
      const tags = ((a['tag'] as string[] | undefined) ?? [])
        .flatMap((t) => String(t).split(','))
        .map((t) => t.trim())
        .filter(Boolean);
      const rows = listNotes(
        {
          ...oneKb(a, 'list'),
          ...(a['since'] ? { since: String(lastValue(a['since'])) } : {}),
          tags,
          ...(limit !== undefined ? { limit } : {}),
          all: a['all'] === true,
        },
        notesIo(io),
      );
      io.stdout(a['json'] ? jsonText(rows) : formatList(rows));
    },
  };
}

const EDITOR_TEMPLATE = `---
title: ""
key_insight: ""
how_to_apply: ""
tags: []
confidence: medium
learning_type: pattern
---
Write the body here (problem, what fixed it, context). Save and quit to add the note;
leave title and key_insight empty to add nothing.
`;

/** Fields of a note given as text with frontmatter (stdin or the editor). */
function fromNoteText(text: string): Partial<NewNote> {
  const { frontmatter: fm, body, hasFrontmatter } = splitFrontmatter(text);
  if (!hasFrontmatter) {
    const heading = /^#{1,2}[ \t]+(.+)$/m.exec(body)?.[1]?.trim();
    const firstPara = body
      .split(/\n\s*\n/)
      .map((p) => p.trim())
      .find((p) => p && !p.startsWith('#'));
    return {
      ...(heading ? { title: heading } : {}),
      ...(firstPara ? { keyInsight: firstPara.split(/(?<=[.!?])\s/)[0]!.trim() } : {}),
      body: body.replace(/^#{1,2}[ \t]+.+\n?/, '').trim(),
      ...(howToApply(body) ? { howToApply: howToApply(body) } : {}),
    };
  }
  const tier = str(fm['confidence']).toLowerCase();
  return {
    ...(str(fm['title']) ? { title: str(fm['title']) } : {}),
    ...(str(fm['key_insight']) || str(fm['description']) ? { keyInsight: str(fm['key_insight']) || str(fm['description']) } : {}),
    ...(str(fm['how_to_apply']) || howToApply(body) ? { howToApply: str(fm['how_to_apply']) || howToApply(body) } : {}),
    ...(parseTags(fm['tags']).length ? { tags: parseTags(fm['tags']) } : {}),
    ...(isConfidenceTier(tier) ? { confidence: tier } : {}),
    ...(str(fm['learning_type']) ? { learningType: str(fm['learning_type']) } : {}),
    ...(str(fm['id']) ? { id: str(fm['id']) } : {}),
    ...(Array.isArray(fm['applies_when']) ? { appliesWhen: (fm['applies_when'] as unknown[]).map((w) => str(w)).filter(Boolean) } : {}),
    body: body.replace(/^\*\*How to apply:\*\*.*$/m, '').trim(),
  };
}

function editNote(io: CliIo): Partial<NewNote> {
  const editor = io.env['VISUAL'] || io.env['EDITOR'];
  if (!editor) throw new UsageError('--edit needs $VISUAL or $EDITOR set');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-add-'));
  const file = path.join(dir, 'note.md');
  try {
    fs.writeFileSync(file, EDITOR_TEMPLATE, { mode: 0o600 });
    // The editor setting may carry arguments ("code -w"): let the shell split it, pass the file safely.
    const r = spawnSync('sh', ['-c', `${editor} "$1"`, 'sh', file], { stdio: 'inherit', env: io.env });
    if (r.status !== 0) throw new UsageError(`the editor (${editor}) exited with ${r.status ?? r.signal}; nothing written`);
    const fields = fromNoteText(fs.readFileSync(file, 'utf8'));
    if (fields.body?.startsWith('Write the body here')) delete fields.body;
    return fields;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The parts of a note given as `recall add` flags (each flag's last value). */
function noteFromFlags(a: Record<string, unknown>): Partial<NewNote> {
  const fromFlags: Partial<NewNote> = {
    ...(a['title'] !== undefined ? { title: String(lastValue(a['title'])) } : {}),
    ...(a['insight'] !== undefined ? { keyInsight: String(lastValue(a['insight'])) } : {}),
    ...(a['apply'] !== undefined ? { howToApply: String(lastValue(a['apply'])) } : {}),
    ...(a['tags'] !== undefined ? { tags: String(lastValue(a['tags'])).split(',') } : {}),
    ...(a['type'] !== undefined ? { learningType: String(lastValue(a['type'])).toLowerCase() } : {}),
    ...(a['body'] !== undefined ? { body: String(lastValue(a['body'])) } : {}),
    ...(a['id'] !== undefined ? { id: String(lastValue(a['id'])) } : {}),
    ...(a['when'] !== undefined ? { appliesWhen: [a['when']].flat().map(String) } : {}),
  };
  if (a['confidence'] !== undefined) {
    const c = String(lastValue(a['confidence'])).toLowerCase();
    if (!isConfidenceTier(c))
      throw new UsageError(`--confidence must be one of high, medium, low (got ${JSON.stringify(String(a['confidence']))})`);
    fromFlags.confidence = c;
  }
  return fromFlags;
}

export function addCommand(io: CliIo): CommandModule {
  return {
    command: 'add [source]',
    describe: 'Write a new learning into the KB (from flags, from stdin with `-`, or in $EDITOR with --edit)',
    builder: (y: Argv) =>
      y.positional('source', { type: 'string', describe: '`-` reads the note (or its body) from stdin' }).options({
        ...SCOPE_OPTIONS,
        title: { type: 'string', describe: 'what the learning is about, in a line' },
        insight: { type: 'string', describe: 'the key insight: the one sentence recall shows' },
        apply: { type: 'string', describe: 'how to apply it (recall shows it under the insight)' },
        tags: { type: 'string', describe: 'comma-separated tags' },
        confidence: { type: 'string', describe: 'high, medium (default) or low' },
        type: { type: 'string', describe: 'learning type: pattern (default), bug-fix, decision, correction, anti-pattern, …' },
        body: { type: 'string', describe: 'body text (markdown)' },
        id: { type: 'string', describe: 'id to use (default lrn-<slug>-<hash>)' },
        when: {
          type: 'string',
          array: true,
          describe:
            'when it applies (repeat): a command (`pnpm|npm install`) or a path glob (`apps/api/**`); shown before such a tool call',
        },
        supersedes: { type: 'string', describe: 'id of a note this one replaces (it stops being recalled)' },
        edit: { type: 'boolean', default: false, describe: 'write the note in $VISUAL / $EDITOR' },
        'session-id': {
          type: 'string',
          describe: "the harness session writing it, for the note's provenance (default: from the harness's environment)",
        },
        ...JSON_OPTION,
      }),
    handler: async (a) => {
      const fromFlags = noteFromFlags(a);
      let base: Partial<NewNote> = {};
      if (a['source'] !== undefined) {
        if (a['source'] !== '-' && a['source'] !== '')
          throw new UsageError(`add takes \`-\` (read stdin) or no argument (got ${JSON.stringify(a['source'])})`);
        if (!io.readStdin) throw new UsageError('no stdin to read');
        base = fromNoteText(await io.readStdin());
      } else if (
        a['edit'] === true ||
        (fromFlags.title === undefined && fromFlags.keyInsight === undefined && io.stdinIsTty && (io.env['VISUAL'] || io.env['EDITOR']))
      ) {
        base = editNote(io);
        if (!base.title && !base.keyInsight) throw new UsageError('title and key_insight left empty: nothing written');
      } else if (fromFlags.title === undefined && fromFlags.keyInsight === undefined) {
        throw new UsageError('give the note with --title and --insight, on stdin with `recall add -`, or in $EDITOR with --edit');
      }
      const note: NewNote = { title: '', keyInsight: '', ...base, ...fromFlags };
      if (a['supersedes'] !== undefined) note.supersedes = [String(lastValue(a['supersedes']))];
      // An agent running `recall add` from its shell: its harness and session go in the provenance.
      const { provenanceOf, checkAppliesWhen } = await import('../../pipeline/learnings/index.js');
      if (note.appliesWhen) note.appliesWhen = checkAppliesWhen(note.appliesWhen);
      const sessionId = a['session-id'] !== undefined ? String(lastValue(a['session-id'])) : null;
      const source = provenanceOf(io.env, 'recall add', { sessionId });
      if (source.harness || source.sessionId) note.source = source;
      const { addNote } = await import('../../pipeline/notes/notes.js');
      const r = addNote(note, oneKb(a, 'add'), notesIo(io));
      io.stdout(a['json'] ? jsonText(r) : `added ${r.id}: ${r.path}${r.created ? ` (new KB at ${r.kb})` : ''}\n`);
    },
  };
}

/**
 * A retiring write run from an agent's shell (pipeline/notes/review.ts `agentShell`) changes only
 * notes agents wrote, as the MCP tools do: a person's note is refused, for the person to change.
 */
async function inAgentShell<T>(io: CliIo, what: string, write: (guard: WriteGuard) => T): Promise<T> {
  const { agentShell } = await import('../../pipeline/notes/review.js');
  const agent = agentShell(io.env);
  try {
    return write(agent ? 'unreviewed' : 'any');
  } catch (err) {
    if (agent && (err as { code?: unknown }).code === 'E_PERSONS_NOTE')
      throw new UsageError(
        `${what}: refused in an agent's shell (${agent}): ${(err as Error).message.split(';')[0]}; a person runs this in their own terminal`,
      );
    throw err;
  }
}

export function supersedeCommand(io: CliIo): CommandModule {
  return {
    command: 'supersede <old> <new>',
    describe: 'Retire OLD in favour of NEW: OLD gets superseded_by NEW, NEW lists OLD under supersedes',
    builder: (y: Argv) =>
      y
        .positional('old', { type: 'string', describe: 'id of the note that is out of date' })
        .positional('new', { type: 'string', describe: 'id of the note that replaces it' })
        .options({ ...SCOPE_OPTIONS, ...JSON_OPTION }),
    handler: async (a) => {
      const { supersede } = await import('../../pipeline/notes/notes.js');
      const r = await inAgentShell(io, 'supersede', (guard) =>
        supersede(String(a['old']), String(a['new']), oneKb(a, 'supersede'), notesIo(io), guard),
      );
      io.stdout(
        a['json']
          ? jsonText(r)
          : `${r.old.id} is superseded by ${r.new.id} (edited ${r.old.path} and ${r.new.path}); recall no longer returns ${r.old.id}\n`,
      );
    },
  };
}

export function forgetCommand(io: CliIo): CommandModule {
  return {
    command: 'forget <id>',
    describe: 'Move a note to the forgotten folder (documents/.forgotten/): never recalled again, still on disk',
    builder: (y: Argv) =>
      y.positional('id', { type: 'string', describe: 'note id (or file name without .md)' }).options({ ...SCOPE_OPTIONS, ...JSON_OPTION }),
    handler: async (a) => {
      const { forget } = await import('../../pipeline/notes/notes.js');
      const r = await inAgentShell(io, 'forget', (guard) => forget(String(a['id']), oneKb(a, 'forget'), notesIo(io), guard));
      io.stdout(a['json'] ? jsonText(r) : `forgot ${r.id}: moved ${r.from} → ${r.to} (move it back to restore it)\n`);
    },
  };
}
