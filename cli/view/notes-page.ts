/**
 * The Notes page of `recall view` (every note of every source recall reads, with what the recall
 * log says of its use, filterable) and a note's own page (its text, where it was injected, whether
 * it was used, and the actions recall may take on it). Pure functions of their data.
 */
import path from 'node:path';
import type { NoteSource, SourceNote } from '../../pipeline/notes/index.js';
import { HOW_TO_APPLY_MAX_CHARS } from '../../pipeline/notes/index.js';
import { csrfField, h, href, page, plural, timeTag, type Html, type PageCtx } from './html.js';
import { noteUses, usedShare, type NoteUse, type ViewData } from './data.js';
import { USED_EXPLAINED, verdictCell } from './pages.js';
import { REVIEW } from './review.js';

/** A source as a person names it: the harness whose memory it is, else its folder. */
export function sourceLabel(s: Pick<NoteSource, 'kind' | 'root'>): string {
  if (s.kind === 'claude-memory') return 'Claude Code memory';
  if (s.kind === 'codex-memory') return 'Codex memory';
  return `KB ${path.basename(s.root)}`;
}

/** The filters of the Notes page, from its query string; anything unknown is the default. */
export interface NotesFilter {
  q: string;
  state: 'live' | 'all' | 'superseded' | 'forgotten' | 'archived';
  use: 'any' | 'used' | 'unused' | 'never';
  source: string;
}

export function notesFilter(params: URLSearchParams): NotesFilter {
  const pick = <T extends string>(v: string | null, allowed: readonly T[], dflt: T): T => (allowed.includes(v as T) ? (v as T) : dflt);
  return {
    q: (params.get('q') ?? '').trim().slice(0, 200),
    state: pick(params.get('state'), ['live', 'all', 'superseded', 'forgotten', 'archived'], 'live'),
    use: pick(params.get('use'), ['any', 'used', 'unused', 'never'], 'any'),
    source: params.get('source') ?? '',
  };
}

const NO_USE: NoteUse = { injected: 0, used: 0, notUsed: 0, deduped: 0, last: null };

function matches(n: SourceNote, u: NoteUse, f: NotesFilter): boolean {
  if (f.state !== 'all' && n.state !== f.state) return false;
  if (f.use === 'used' && u.used === 0) return false;
  if (f.use === 'unused' && !(u.injected > 0 && u.used === 0)) return false;
  if (f.use === 'never' && u.injected > 0) return false;
  if (!f.q) return true;
  const hay = `${n.id}\n${n.title}\n${n.keyInsight}\n${n.tags.join(' ')}`.toLowerCase();
  return f.q
    .toLowerCase()
    .split(/\s+/)
    .every((w) => hay.includes(w));
}

function option(value: string, label: string, current: string): Html {
  return value === current ? h`<option value="${value}" selected>${label}</option>` : h`<option value="${value}">${label}</option>`;
}

/** The most rows the Notes page draws (a KB of 200,000 notes is filtered, not scrolled). */
const MAX_ROWS = 500;

export function notesPage(ctx: PageCtx, sources: readonly NoteSource[], data: ViewData, f: NotesFilter): string {
  const uses = noteUses(data.events);
  const rows: Html[] = [];
  const total = sources.reduce((n, s) => n + s.notes.length, 0);
  let matched = 0;
  for (const s of sources) {
    if (f.source && s.root !== f.source) continue;
    for (const n of s.notes) {
      const u = uses.get(n.id) ?? NO_USE;
      if (!matches(n, u, f)) continue;
      matched += 1;
      if (rows.length >= MAX_ROWS) continue;
      const review = REVIEW?.unreviewed(n.frontmatter) ?? null;
      rows.push(
        h`<tr data-id="${n.id}"><td><a href="${href('/note', { id: n.id, kb: s.root })}"><code>${n.id}</code></a></td><td>${n.title}${review ? h`<br><span class="small unused">${review}</span>` : ''}</td><td class="small">${sourceLabel(s)}</td><td class="small">${n.state === 'live' ? 'live' : h`<span class="unused">${n.state}</span>`}</td><td class="small nowrap">${n.date ?? '—'}</td><td class="num">${u.injected}</td><td class="num${u.used ? ' used' : ' muted'}">${u.used}</td><td class="num${u.notUsed ? ' unused' : ' muted'}">${u.notUsed}</td><td class="small nowrap">${u.last ? timeTag(u.last, ctx.now) : h`<span class="muted">never</span>`}</td></tr>`,
      );
    }
  }
  const sourcesLine = sources.map(
    (s) =>
      h`<li><b>${sourceLabel(s)}</b> <span class="small muted">${s.root} · ${s.reason} · ${plural(s.notes.length, 'note')}${s.readOnly ? ' · recall never changes it' : ''}</span></li>`,
  );
  const form = h`<form class="filters" action="/notes" method="get"><input name="q" value="${f.q}" placeholder="words in id, title, insight, tags" aria-label="filter">
<select name="state" aria-label="state">${option('live', 'live', f.state)}${option('all', 'every state', f.state)}${option('superseded', 'superseded', f.state)}${option('forgotten', 'forgotten', f.state)}${option('archived', 'archived', f.state)}</select>
<select name="use" aria-label="use">${option('any', 'any use', f.use)}${option('used', 'used at least once', f.use)}${option('unused', 'injected, never used', f.use)}${option('never', 'never injected', f.use)}</select>
<select name="source" aria-label="source">${option('', 'every source', f.source)}${sources.map((s) => option(s.root, sourceLabel(s), f.source))}</select> <button>Filter</button></form>`;
  const table = rows.length
    ? h`<table id="notes"><tr><th>note</th><th>title</th><th>source</th><th>state</th><th>dated</th><th>injected</th><th>used</th><th>not used</th><th>last injected</th></tr>${rows}</table>`
    : h`<p class="muted" id="no-notes">${total ? 'No note matches these filters.' : 'No notes in the sources read.'}</p>`;
  const shown =
    matched > rows.length
      ? `${plural(matched, 'note')} match, the first ${rows.length} shown: narrow the filter`
      : `${plural(matched, 'note')} shown`;
  const body = h`<h1>Notes</h1><p>Every note of every source recall reads here (${plural(total, 'note')}); ${shown}.</p>
<ul class="sources">${sourcesLine}</ul>${form}${table}
<p class="small muted">Injected: prompts it was put in the context of. Used / not used: the verdicts on those injections (how "used" is decided is said on the Sessions page); an injection whose session had no next prompt yet is not judged.</p>`;
  return page(ctx, 'Notes', body);
}

/** A note as the note page shows it (from its source), or why it could not be read. */
export type NoteText =
  | {
      title: string;
      path: string;
      keyInsight: string;
      howToApply: string;
      body: string;
      /** '' for a live note, else "superseded by X", "forgotten", "archived". */
      state: string;
      frontmatter: Record<string, unknown>;
    }
  | { error: string };

function actionForm(ctx: PageCtx, id: string, kb: string, action: string, inner: Html, cls = ''): Html {
  return h`<form class="action ${cls}" action="/action" method="post">${csrfField(ctx)}<input type="hidden" name="action" value="${action}"><input type="hidden" name="id" value="${id}"><input type="hidden" name="kb" value="${kb}">${inner}</form>`;
}

/** What may be done with the note: nothing to a harness's memory, nothing to a note already retired. */
function actions(ctx: PageCtx, id: string, note: NoteText, source: NoteSource | null): Html {
  if ('error' in note || !source) return h``;
  if (source.readOnly)
    return h`<div class="actions" id="actions"><p class="muted">This note is in ${sourceLabel(source)} (${source.root}), which recall reads but never changes: edit or remove it in the harness.</p></div>`;
  if (note.state)
    return h`<div class="actions" id="actions"><p class="muted">This note is ${note.state}: recall does not return it.</p></div>`;
  const review = REVIEW?.unreviewed(note.frontmatter) ?? null;
  const reviewForms = review
    ? h`<p class="unused">${review}.</p>${actionForm(ctx, id, source.root, 'accept', h`<button>Accept</button> <span class="small muted">make it yours: recalled like a note you wrote</span>`)}${actionForm(ctx, id, source.root, 'reject', h`<button>Reject</button> <span class="small muted">move it to the forgotten folder</span>`)}`
    : '';
  return h`<div class="actions" id="actions"><h2>Change this note</h2>${reviewForms}
${actionForm(ctx, id, source.root, 'apply', h`<label>How to apply: <input name="apply" size="80" maxlength="${HOW_TO_APPLY_MAX_CHARS}" value="${note.howToApply}"></label> <button>Save</button>`)}
${actionForm(ctx, id, source.root, 'supersede', h`<label>Replaced by note <input name="new" size="40" placeholder="id of the newer note"></label> <button>Supersede</button>`)}
${actionForm(ctx, id, source.root, 'forget', h`<button>Forget</button> <span class="small muted">move it to the forgotten folder: never recalled again, still on disk</span>`)}
<p class="small muted">The same writes as <code>recall supersede</code> and <code>recall forget</code>, under the same lock: another writer's change made meanwhile is never lost.</p></div>`;
}

export function notePage(
  ctx: PageCtx,
  id: string,
  note: NoteText,
  source: NoteSource | null,
  data: ViewData,
  flash: { done?: string; error?: string } = {},
): string {
  const seen = data.events.filter((ev) => ev.injected.some((n) => n.id === id));
  const share = usedShare(seen, id);
  const text =
    'error' in note
      ? h`<p class="muted">${note.error}</p>`
      : h`<h2>${note.title}</h2><p class="small muted">${source ? `${sourceLabel(source)} · ` : ''}${note.path}${note.state ? ` · ${note.state}` : ''}</p>
${note.keyInsight ? h`<p><b>Key insight:</b> ${note.keyInsight}</p>` : ''}${note.howToApply ? h`<p id="how-to-apply"><b>How to apply:</b> ${note.howToApply}</p>` : ''}<div class="note">${note.body.trim()}</div>`;
  const rows = seen.map(
    (ev) =>
      h`<tr><td class="small">${timeTag(ev.ts, ctx.now)}</td><td class="small"><code>${ev.session}</code></td><td>${ev.query}</td><td>${verdictCell(ev, id)}</td></tr>`,
  );
  const deduped = data.events.filter((ev) => ev.deduped.includes(id)).length;
  const usage = h`<h2>Where it was injected</h2><p>Injected <b id="inject-count">${seen.length}</b> ${seen.length === 1 ? 'time' : 'times'}; deduped ${plural(deduped, 'time')}.</p>
${seen.length ? h`<table><tr><th>when</th><th>session</th><th>prompt</th><th>helped?</th></tr>${rows}</table>` : ''}
<h2>Whether it was used</h2><p id="used-share">${share.share === null ? 'not judged yet' : `used ${share.used} of ${share.judged} judged times (${Math.round(share.share * 100)}%)`}</p>${USED_EXPLAINED}`;
  const banner = flash.error
    ? h`<p class="flash error" id="flash">${flash.error}</p>`
    : flash.done
      ? h`<p class="flash" id="flash">${flash.done}</p>`
      : '';
  return page(ctx, id, h`<h1>Note <code>${id}</code></h1>${banner}${text}${actions(ctx, id, note, source)}${usage}`);
}
