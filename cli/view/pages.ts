/**
 * The pages of `recall view`, rendered on the server from the recall log (data.ts): sessions, a
 * note, totals per day. The search page is in search.ts. Pure functions of their data.
 */
import { barChart, h, href, page, type Html, type PageCtx } from './html.js';
import { dailyTotals, usedShare, type ViewData, type ViewEvent } from './data.js';

/** How "used" is decided, said on every page that shows a verdict. */
export const USED_EXPLAINED = h`<div class="explain"><b>How "used" is decided.</b> When the session's next prompt arrives, recall reads
what the assistant wrote after the notes were injected (from the harness's transcript, at most 256 KB from that point; only the
assistant's own text, thinking and tool inputs, never the prompt or the injected block). A note counts as <i>used</i> when that text
names the note's id, repeats a code-like token of the note (such as <code>idle_in_transaction_session_timeout</code>), or repeats four
consecutive words of its key insight, fix or how-to-apply that contain at least two topic words, leaving out words the prompt itself
contained. A paraphrase is not detected, so "not used" means no trace of the note was found. Nothing of the transcript is stored: only
the verdict and the phrase that matched. The last prompt of a session waits for a next prompt and shows as "not judged yet".</div>`;

function noteLink(ctx: PageCtx, id: string, label?: string): Html {
  return h`<a href="${href(ctx, '/note', { id })}"><code>${id}</code></a>${label ? h` ${label}` : ''}`;
}

function verdictCell(ev: ViewEvent, id: string): Html {
  const v = ev.verdicts.get(id);
  if (!v) return h`<span class="muted">not judged yet</span>`;
  return v.used
    ? h`<span class="used">used</span> <span class="small muted">(${v.by}: “${v.evidence ?? ''}”)</span>`
    : h`<span class="unused">not used</span>`;
}

function stagesLine(ev: ViewEvent): Html {
  const parts = ev.stages.filter((s) => !s.stage.startsWith('arm:') && s.ms > 0).map((s) => `${s.stage} ${s.ms}`);
  const arms = ev.stages.filter((s) => s.stage.startsWith('arm:')).map((s) => `${s.stage.slice(4)} ${s.ms}`);
  return h`<span class="small muted">hook ${ev.hookMs} ms · recall ${ev.recallMs} ms${parts.length ? ` · ${parts.join(', ')} ms` : ''}${arms.length ? ` · arms: ${arms.join(', ')} ms` : ''}</span>`;
}

function eventRow(ctx: PageCtx, ev: ViewEvent): Html {
  const injected = ev.injected.length
    ? h`<table class="small"><tr><th>injected</th><th>title</th><th>relevance</th><th>tokens</th><th>helped?</th></tr>${ev.injected.map(
        (n) =>
          h`<tr><td>${noteLink(ctx, n.id)}</td><td>${n.title}</td><td>${n.relevance.toFixed(2)}</td><td>${n.tokens}</td><td>${verdictCell(ev, n.id)}</td></tr>`,
      )}</table>`
    : ev.abstained !== null
      ? h`<div class="abstain">abstained: ${ev.abstained}</div>`
      : h`<div class="muted">nothing injected${ev.deduped.length ? ' (every match was already given to this session)' : ''}</div>`;
  const extra = [
    ev.deduped.length
      ? h`<div class="small">deduped (already given in this session): ${ev.deduped.map((id) => noteLink(ctx, id, ' '))}</div>`
      : '',
    ev.overBudget.length
      ? h`<div class="small muted">above the floor, left out by the size or count limit: ${ev.overBudget.map((id) => noteLink(ctx, id, ' '))}</div>`
      : '',
    ev.degraded.length ? h`<div class="small muted">degraded: ${ev.degraded.join(', ')}</div>` : '',
  ];
  return h`<tr class="event"><td class="small muted">${ev.ts.slice(11)}<br>${ev.hook}</td><td><div class="prompt"><b>${ev.query}</b></div>${injected}${extra}${stagesLine(ev)}</td></tr>`;
}

export function sessionsPage(ctx: PageCtx, data: ViewData): string {
  const all = usedShare(data.events);
  const summary =
    all.share === null ? 'no verdict yet' : `${all.used} of ${all.judged} injected notes used (${Math.round(all.share * 100)}%)`;
  const sessions = data.sessions.slice(0, 100).map(
    (
      s,
    ) => h`<section class="session" data-session="${s.id}"><h2>Session <code>${s.id}</code> <span class="small muted">${s.first} – ${s.last} · ${s.events.length} prompts</span></h2>
<table>${s.events.map((ev) => eventRow(ctx, ev))}</table></section>`,
  );
  const empty = h`<p class="muted">No hook calls logged yet. Once the prompt hook has run (in Claude Code, Codex or Copilot, or <code>recall hook user-prompt-submit</code> fed a hook JSON), its prompts show here.</p>`;
  const body = h`<h1>Sessions, newest first</h1><p>Helpfulness overall: <b id="used-overall">${summary}</b>${data.skipped ? h` <span class="muted small">(${data.skipped} unreadable log lines skipped)</span>` : ''}</p>
${USED_EXPLAINED}${data.sessions.length ? sessions : empty}${data.sessions.length > 100 ? h`<p class="muted">(older sessions not shown)</p>` : ''}`;
  return page(ctx, 'Sessions', body);
}

/** A note as the note page shows it (from the KB), or why it could not be read. */
export type NoteText =
  { title: string; path: string; keyInsight: string; howToApply: string; body: string; state: string } | { error: string };

export function notePage(ctx: PageCtx, id: string, note: NoteText, data: ViewData): string {
  const seen = data.events.filter((ev) => ev.injected.some((n) => n.id === id));
  const share = usedShare(seen, id);
  const text =
    'error' in note
      ? h`<p class="muted">${note.error}</p>`
      : h`<h2>${note.title}</h2><p class="small muted">${note.path}${note.state ? ` · ${note.state}` : ''}</p>
${note.keyInsight ? h`<p><b>Key insight:</b> ${note.keyInsight}</p>` : ''}${note.howToApply ? h`<p><b>How to apply:</b> ${note.howToApply}</p>` : ''}<div class="note">${note.body.trim()}</div>`;
  const rows = seen.map(
    (ev) =>
      h`<tr><td class="small">${ev.ts}</td><td class="small"><code>${ev.session}</code></td><td>${ev.query}</td><td>${verdictCell(ev, id)}</td></tr>`,
  );
  const usage = h`<h2>Where it was injected</h2><p>Injected <b id="inject-count">${seen.length}</b> ${seen.length === 1 ? 'time' : 'times'}; deduped ${data.events.filter((ev) => ev.deduped.includes(id)).length} times.</p>
${seen.length ? h`<table><tr><th>when</th><th>session</th><th>prompt</th><th>helped?</th></tr>${rows}</table>` : ''}
<h2>Whether it was used</h2><p id="used-share">${share.share === null ? 'not judged yet' : `used ${share.used} of ${share.judged} judged times (${Math.round(share.share * 100)}%)`}</p>${USED_EXPLAINED}`;
  return page(ctx, id, h`<h1>Note <code>${id}</code></h1>${text}${usage}`);
}

export function daysPage(ctx: PageCtx, data: ViewData): string {
  const days = dailyTotals(data.events);
  const rows = days.map(
    (d) =>
      h`<tr><td>${d.day}</td><td>${d.prompts}</td><td>${d.injections}</td><td>${d.notes}</td><td>${d.abstentions}</td><td>${d.tokens}</td><td>${d.p50}</td><td>${d.p95}</td></tr>`,
  );
  const charts = days.length
    ? h`<div>${barChart(
        'Prompts with notes injected, per day',
        days.map((d) => ({ label: d.day, value: d.injections })),
      )}${barChart(
        'Abstentions per day',
        days.map((d) => ({ label: d.day, value: d.abstentions })),
        '#b4443c',
      )}${barChart(
        'Tokens injected per day',
        days.map((d) => ({ label: d.day, value: d.tokens })),
        '#2f8f5b',
      )}${barChart(
        'p95 hook latency (ms) per day',
        days.map((d) => ({ label: d.day, value: d.p95 })),
        '#7a5cc7',
      )}</div>`
    : h`<p class="muted">No hook calls logged yet.</p>`;
  const body = h`<h1>Totals per day</h1><table id="days"><tr><th>day</th><th>prompts</th><th>injections</th><th>notes injected</th><th>abstentions</th><th>tokens injected</th><th>p50 hook ms</th><th>p95 hook ms</th></tr>${rows}</table>
<p class="small muted">An injection is a prompt that got at least one note; an abstention a prompt where nothing cleared the relevance floor. Hook latency is counted from the hook process's start to its answer.</p>${charts}`;
  return page(ctx, 'Totals per day', body);
}
