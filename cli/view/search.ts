/**
 * The search page of `recall view`: a recall over the KB with the prompt hook's settings (its
 * floor, 9 fetched), run by the same pipeline with the same trace taps as `recall trace`, shown as
 * a timeline of its stages and the notes it returned. Nothing is logged (like trace).
 */
import { DEFAULT_COMMAND, openSession, type RunIo } from '../../pipeline/run.js';
import type { TraceEvent } from '../../operators/trace-stage.js';
import { stageClock } from '../../hooks/usage/index.js';
import type { KbOptions } from '../../pipeline/notes/index.js';
import { errorMessage } from '../../core/errors.js';
import { h, href, page, timeline, type PageCtx } from './html.js';
import { sourceLabel } from './notes-page.js';

/** Longest query the page runs (a prompt is rarely longer; a pasted file is cut). */
const MAX_QUERY_CHARS = 2000;

export interface SearchRun {
  query: string;
  results: { id: string; title: string; relevance: number; score: number }[];
  weak: { id: string; title: string; relevance: number }[];
  abstained: string | null;
  /** One run per KB read, in the order they ran (several KBs each run the whole recall in turn). */
  kbs: {
    label: string;
    root: string;
    stages: { stage: string; ms: number }[];
    arms: { arm: string; status: string; hits: number; ms: number }[];
  }[];
  floor: number;
  ms: number;
  error: string | null;
}

export async function runSearch(query: string, kb: KbOptions, io: RunIo): Promise<SearchRun> {
  const q = query.slice(0, MAX_QUERY_CHARS);
  const base: SearchRun = { query: q, results: [], weak: [], abstained: null, kbs: [], floor: 0, ms: 0, error: null };
  let session: Awaited<ReturnType<typeof openSession>> | null = null;
  try {
    session = await openSession({ ...kb, verbose: false }, io);
    // Each KB's recall starts with a 'start' event: a new clock, and a new table, for each.
    const runs: { clock: ReturnType<typeof stageClock>; arms: SearchRun['kbs'][number]['arms'] }[] = [];
    const sink = (e: TraceEvent): void => {
      if (e.stage === 'start' || !runs.length) runs.push({ clock: stageClock(), arms: [] });
      const run = runs[runs.length - 1]!;
      run.clock.sink(e);
      if (e.stage === 'arm') run.arms.push({ arm: e.arm, status: e.status, hits: e.hits.length, ms: Math.round(e.ms) });
    };
    const floor = session.config.floors.userPrompt;
    const res = await session.run(
      {
        ...DEFAULT_COMMAND,
        query: q,
        limit: 9,
        maxChars: 0,
        format: 'json',
        cache: false,
        floor,
        showWeak: true,
        gapLog: false,
        followup: false,
      },
      { noLog: true, trace: sink },
    );
    const o = res.outcome;
    // Each KB read runs in turn; a KB that ran no recall (no notes) leaves no run, and then the runs are
    // only numbered. The fusion of several KBs starts a run of its own that runs no arm: not a KB.
    const kbRuns = runs.length > 1 ? runs.filter((r) => r.arms.length > 0) : runs;
    const read = kbRuns.length === session.sources.read.length ? session.sources.read : [];
    return {
      ...base,
      kbs: kbRuns.map((r, i) => ({
        label: read[i] ? sourceLabel(read[i]) : `KB ${i + 1}`,
        root: read[i]?.root ?? res.scope.root,
        stages: r.clock.stages(),
        arms: r.arms,
      })),
      floor,
      ms: Math.round(o?.ms ?? 0),
      abstained: o ? o.abstained : 'no notes in this KB',
      results: (o?.results ?? []).map((c) => ({ id: c.note.displayId, title: c.note.title, relevance: c.relevance, score: c.score })),
      weak: (o?.weak ?? []).slice(0, 5).map((c) => ({ id: c.note.displayId, title: c.note.title, relevance: c.relevance })),
    };
  } catch (err) {
    return { ...base, error: errorMessage(err) };
  } finally {
    session?.close();
  }
}

export function searchPage(ctx: PageCtx, run: SearchRun | null): string {
  const form = h`<form action="/search" method="get"><input name="q" size="60" value="${run?.query ?? ''}" aria-label="query"> <button>Search</button></form>
<p class="small muted">Runs the prompt hook's recall (its relevance floor, up to 9 notes) through the same pipeline, with the trace taps of <code>recall trace</code>. Nothing is logged.</p>`;
  if (!run) return page(ctx, 'Search', h`<h1>Search the KB</h1>${form}`);
  if (run.error) return page(ctx, 'Search', h`<h1>Search the KB</h1>${form}<p class="abstain">The recall failed: ${run.error}</p>`);
  const link = (id: string): string => href('/note', { id });
  const results = run.results.length
    ? h`<table id="results"><tr><th>#</th><th>note</th><th>title</th><th>relevance</th><th>score</th></tr>${run.results.map(
        (r, i) =>
          h`<tr><td>${i + 1}</td><td><a href="${link(r.id)}"><code>${r.id}</code></a></td><td>${r.title}</td><td>${r.relevance.toFixed(2)}</td><td>${r.score.toFixed(3)}</td></tr>`,
      )}</table>`
    : h`<p class="abstain" id="abstained">abstained: ${run.abstained ?? 'nothing found'}</p>`;
  const weak = run.weak.length
    ? h`<h2>Below the floor (${run.floor})</h2><ul>${run.weak.map((w) => h`<li><a href="${link(w.id)}"><code>${w.id}</code></a> ${w.title} · relevance ${w.relevance.toFixed(2)}</li>`)}</ul>`
    : '';
  const perKb = run.kbs.map(
    (
      k,
      i,
    ) => h`<section class="kb-run" data-kb="${k.root}"><h2>Stages${run.kbs.length > 1 ? h` · ${k.label} <span class="small muted">${k.root}</span>` : ''}</h2>
<div class="timeline" id="${i === 0 ? 'timeline' : `timeline-${i + 1}`}">${timeline(k.stages)}</div><h3>Arms</h3><table class="small"><tr><th>arm</th><th>status</th><th>hits</th><th>ms</th></tr>${k.arms.map((a) => h`<tr><td>${a.arm}</td><td>${a.status}</td><td>${a.hits}</td><td>${a.ms}</td></tr>`)}</table></section>`,
  );
  const kbsLine = run.kbs.map((k) => `${k.label} (${k.root})`).join(' + ');
  const body = h`<h1>Search the KB</h1>${form}<p class="small muted">${kbsLine} · ${run.ms} ms · floor ${run.floor}</p>
<h2>Results</h2>${results}${weak}${perKb}`;
  return page(ctx, `Search: ${run.query}`, body);
}
