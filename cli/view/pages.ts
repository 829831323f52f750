/**
 * The pages of `recall view`, rendered on the server from the recall log (data.ts): sessions and
 * totals per day. The notes and a note are in notes-page.ts, the search page in search.ts. Pure
 * functions of their data.
 */
import { barChart, h, href, page, plural, timeTag, type Html, type PageCtx } from './html.js';
import { dailyTotals, isOptionalMissing, optionalMissing, usedShare, type ViewData, type ViewEvent } from './data.js';

/** How "used" is decided, said on every page that shows a verdict. */
export const USED_EXPLAINED = h`<div class="explain"><b>How "used" is decided.</b> When the session's next prompt arrives, recall reads
what the assistant wrote after the notes were injected (from the harness's transcript, at most 256 KB from that point; only the
assistant's own text, thinking and tool inputs, never the prompt or the injected block). A note counts as <i>used</i> when that text
names the note's id, repeats a code-like token of the note (such as <code>idle_in_transaction_session_timeout</code>), or repeats four
consecutive words of its key insight, fix or how-to-apply that contain at least two topic words, leaving out words the prompt itself
contained. A paraphrase is not detected, so "not used" means no trace of the note was found. Nothing of the transcript is stored: only
the verdict and the phrase that matched. The last prompt of a session waits for a next prompt and shows as "not judged yet".</div>`;

function noteLink(id: string, label?: string): Html {
  return h`<a href="${href('/note', { id })}"><code>${id}</code></a>${label ? h` ${label}` : ''}`;
}

export function verdictCell(ev: ViewEvent, id: string): Html {
  const v = ev.verdicts.get(id);
  if (!v) return h`<span class="muted">not judged yet</span>`;
  return v.used
    ? h`<span class="used">used</span> <span class="small muted">(${v.by}: “${v.evidence ?? ''}”)</span>`
    : h`<span class="unused">not used</span>`;
}

/**
 * The logged stages cut into one run per KB: with several KBs read, each runs the whole recall in
 * turn and its stages follow the previous KB's, so a stage name seen again starts the next KB.
 */
export function stageRuns(stages: readonly { stage: string; ms: number }[]): { stage: string; ms: number }[][] {
  const runs: { stage: string; ms: number }[][] = [];
  let seen = new Set<string>();
  for (const s of stages) {
    if (!runs.length || seen.has(s.stage)) {
      runs.push([]);
      seen = new Set();
    }
    seen.add(s.stage);
    runs[runs.length - 1]!.push(s);
  }
  return runs;
}

/** A KB the view reads, as the stage lines name it. */
export interface KbLabel {
  root: string;
  label: string;
}

/**
 * Each KB's stages of one prompt, labelled. The hook line records the first KB it read (`kb`),
 * not the list: when that is the view's first KB and the prompt ran as many KBs as the view
 * reads, they are the same sources in the same order and are named; otherwise numbered.
 */
function stagesLine(ev: ViewEvent, kbs: readonly KbLabel[]): Html {
  const all = stageRuns(ev.stages);
  // Several KBs end with the fused result's own stages ("result"), which would read as one more KB:
  // a KB's run always runs its arms, the fusion of the KBs runs none.
  const last = all[all.length - 1];
  const fused = all.length > 1 && last && !last.some((s) => s.stage === 'arms' || s.stage.startsWith('arm:')) ? all.pop()! : null;
  const runs = all;
  const named = runs.length === kbs.length && ev.kb === kbs[0]?.root;
  const lines = runs.map((run, i) => {
    const parts = run.filter((s) => !s.stage.startsWith('arm:') && s.ms > 0).map((s) => `${s.stage} ${s.ms}`);
    const arms = run.filter((s) => s.stage.startsWith('arm:')).map((s) => `${s.stage.slice(4)} ${s.ms}`);
    const label = runs.length > 1 ? `${named ? kbs[i]!.label : `KB ${i + 1} of ${runs.length}`}: ` : '';
    return `${label}${parts.length ? `${parts.join(', ')} ms` : ''}${arms.length ? `${parts.length ? ' · ' : ''}arms: ${arms.join(', ')} ms` : ''}`;
  });
  if (fused) lines.push(`fused ${fused.reduce((sum, x) => sum + x.ms, 0)} ms`);
  return h`<span class="small muted">hook ${ev.hookMs} ms · recall ${ev.recallMs} ms${lines
    .filter(Boolean)
    .map((r) => ` · ${r}`)
    .join('')}</span>`;
}

function eventRow(ctx: PageCtx, ev: ViewEvent, kbs: readonly KbLabel[]): Html {
  const injected = ev.injected.length
    ? h`<table class="small"><tr><th>injected</th><th>title</th><th>relevance</th><th>tokens</th><th>helped?</th></tr>${ev.injected.map(
        (n) =>
          h`<tr><td>${noteLink(n.id)}</td><td>${n.title}</td><td>${n.relevance.toFixed(2)}</td><td>${n.tokens}</td><td>${verdictCell(ev, n.id)}</td></tr>`,
      )}</table>`
    : ev.abstained !== null
      ? h`<div class="abstain">abstained: ${ev.abstained}</div>`
      : h`<div class="muted">nothing injected${ev.deduped.length ? ' (every match was already given to this session)' : ''}</div>`;
  const extra = [
    ev.deduped.length
      ? h`<div class="small">deduped (already given in this session): ${ev.deduped.map((id) => noteLink(id, ' '))}</div>`
      : '',
    ev.overBudget.length
      ? h`<div class="small muted">above the floor, left out by the size or count limit: ${ev.overBudget.map((id) => noteLink(id, ' '))}</div>`
      : '',
    // Optional models not installed is the normal state: said once, on the status line, not here.
    ev.degraded.some((d) => !isOptionalMissing(d))
      ? h`<div class="small degraded">degraded: ${ev.degraded.filter((d) => !isOptionalMissing(d)).join(', ')}</div>`
      : '',
  ];
  return h`<tr class="event"><td class="small muted">${timeTag(ev.ts, ctx.now)}<br>${ev.hook}</td><td><div class="prompt"><b>${ev.query}</b></div>${injected}${extra}${stagesLine(ev, kbs)}</td></tr>`;
}

/** The optional parts as a person names them (a part not listed keeps its stage name). */
const PART_NAMES: Readonly<Record<string, string>> = {
  'arm:vector': 'the vector arm',
  embed: 'embeddings',
  rerank: 'the reranker',
};

/** The status line: optional parts not installed, said once for the whole log. */
function statusLine(data: ViewData): Html {
  const missing = optionalMissing(data.events);
  if (!missing.parts.length) return h``;
  const parts = missing.parts.map((p) => PART_NAMES[p] ?? p);
  return h`<p class="status small" id="status">Optional models not installed: ${parts.join(', ')} did not run (${plural(missing.prompts, 'prompt')}). That is the normal state; <code>recall models pull</code> installs them.</p>`;
}

export function sessionsPage(ctx: PageCtx, data: ViewData, kbs: readonly KbLabel[] = []): string {
  const all = usedShare(data.events);
  const summary =
    all.share === null ? 'no verdict yet' : `${all.used} of ${all.judged} injected notes used (${Math.round(all.share * 100)}%)`;
  const sessions = data.sessions.slice(0, 100).map(
    (
      s,
    ) => h`<section class="session" data-session="${s.id}"><h2>Session <code>${s.id}</code> <span class="small muted">${timeTag(s.first, ctx.now)} – ${timeTag(s.last, ctx.now)} · ${plural(s.events.length, 'prompt')}</span></h2>
<table>${s.events.map((ev) => eventRow(ctx, ev, kbs))}</table></section>`,
  );
  const empty = h`<p class="muted">No hook calls logged yet. Once the prompt hook has run (in Claude Code, Codex or Copilot, or <code>recall hook user-prompt-submit</code> fed a hook JSON), its prompts show here.</p>`;
  const body = h`<h1>Sessions, newest first</h1>${statusLine(data)}<p>Helpfulness overall: <b id="used-overall">${summary}</b>${data.skipped ? h` <span class="muted small">(${plural(data.skipped, 'unreadable log line')} skipped)</span>` : ''}</p>
${USED_EXPLAINED}${data.sessions.length ? sessions : empty}${data.sessions.length > 100 ? h`<p class="muted">(older sessions not shown)</p>` : ''}`;
  return page(ctx, 'Sessions', body);
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
