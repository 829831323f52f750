/**
 * `recall trace` and `recall explain`: the real pipeline with a trace sink (a tap on each stage), so
 * what is shown is what a recall does — not a second implementation.
 *
 * trace streams one event per stage as it completes: as aligned text (coloured only on a TTY) or as
 * JSON lines (`--format jsonl`). explain runs the same trace and says where a note dropped out.
 * Neither writes the recall log.
 */
import { styleText } from 'node:util';
import { openKbIndex, openSession, type RecallCommand, type RunIo } from './run.js';
import type { TraceEvent } from '../operators/trace-stage.js';
import { notesByKeys, closeIndex } from '../sources/index-store.js';
import { loadConfig } from './config.js';
import { resolveScope } from './scope.js';

type Paint = (style: Parameters<typeof styleText>[0], text: string) => string;

const num = (x: number, d = 3): string => (Number.isFinite(x) ? x.toFixed(d) : String(x));

/** One event as human-readable lines. */
export function formatEvent(ev: TraceEvent, paint: Paint): string[] {
  const at = paint('dim', `${num(ev.t, 1).padStart(8)} ms`);
  const head = (name: string): string => `${at}  ${paint('bold', name.padEnd(13))}`;
  const list = (items: string[], max = 10): string => (items.length > max ? `${items.slice(0, max).join(', ')}, … (+${items.length - max})` : items.join(', ') || '—');
  switch (ev.stage) {
    case 'start':
      return [`${head('start')}query ${JSON.stringify(ev.query)}  terms [${ev.terms.join(' ')}]  date window ${ev.temporal ? `${ev.temporal.start} … ${ev.temporal.end} ("${ev.temporal.matched}")` : 'none'}`];
    case 'cache':
      return [`${head('cache')}${ev.tier ? paint('green', `${ev.tier} hit: arms, rerank and embeddings skipped`) : 'miss'}`];
    case 'arm': {
      const status = ev.status === 'ok' ? paint('green', 'ok') : ev.status === 'disabled' ? paint('dim', 'disabled') : paint('red', ev.status);
      const lines = [`${head(`arm ${ev.arm}`)}${status}  ${ev.hits.length} hits in ${num(ev.ms, 0)} ms${ev.message ? `  (${ev.message})` : ''}`];
      for (const h of ev.hits.slice(0, 10)) lines.push(`${' '.repeat(25)}${String(h.rank).padStart(3)}. ${h.id}  ${paint('dim', num(h.score))}`);
      if (ev.hits.length > 10) lines.push(`${' '.repeat(25)}… ${ev.hits.length - 10} more`);
      return lines;
    }
    case 'floors':
    case 'superseded':
      return [`${head(ev.stage === 'floors' ? 'arm floors' : 'superseded')}${ev.dropped.length ? ev.dropped.map((d) => `${paint('yellow', d.key)} (${d.reason})`).join('; ') : 'nothing dropped'}`];
    case 'fuse':
      return [
        `${head('fuse (RRF)')}${ev.candidates.length} candidates`,
        ...ev.candidates.slice(0, 20).map((c) => `${' '.repeat(25)}${String(c.rank).padStart(3)}. ${c.id}  rrf ${num(c.rrf, 4)}  evidence ${num(c.evidence)}  [${c.arms.join('+')}]`),
      ];
    case 'rerank':
      return [`${head('rerank')}cross-encoder ${ev.crossEncoder ? paint('green', 'scored') : 'none'}, embeddings ${ev.embeddings ? paint('green', 'yes') : 'none'}${ev.degraded.length ? `  (${ev.degraded.join('; ')})` : ''}`];
    case 'score':
      return [
        `${head('score')}relevance × boosts (confidence recency tags proof project domain authority speculative)`,
        ...ev.candidates.slice(0, 20).map((c) => {
          const b = c.boosts;
          const factors = [b.confidence, b.recency, b.tags, b.proof, b.project, b.domain, b.authority, b.speculative].map((x) => num(x)).join(' ');
          return `${' '.repeat(25)}${String(c.rank).padStart(3)}. ${c.id}  ${paint('bold', num(c.score, 4))} = ${num(c.relevance, 4)}${c.ce !== null ? ` (ce ${num(c.ce, 2)})` : ''} × ${factors}`;
        }),
      ];
    case 'quarantine':
    case 'confidence':
    case 'mmr':
    case 'budget':
      return [`${head(ev.stage)}kept ${ev.kept.length}${ev.dropped.length ? `; dropped ${ev.dropped.map((d) => `${paint('yellow', d.key)} (${d.reason})`).join('; ')}` : ''}`];
    case 'ood-gate':
      return [
        `${head('ood gate')}${ev.minOverlap <= 0 ? 'off' : ev.gated ? paint('red', `gated: best coverage ${num(ev.coverage ?? 0, 2)} < ${ev.minOverlap}`) : `passed: best coverage ${num(ev.coverage ?? 0, 2)} ≥ ${ev.minOverlap}`}`,
      ];
    case 'result':
      return [
        `${head('result')}${ev.ids.length} notes in ${num(ev.ms, 1)} ms${ev.cacheTier ? ` (cache ${ev.cacheTier})` : ''}: ${list(ev.ids.map((id, i) => `${id} ${num(ev.scores[i] ?? 0, 3)}`))}`,
        ...(ev.degraded.length ? [`${' '.repeat(25)}degraded: ${ev.degraded.join(', ')}`] : []),
      ];
  }
}

export async function runTrace(cmd: RecallCommand, io: RunIo, format: 'text' | 'jsonl', write: (s: string) => void, color: boolean): Promise<void> {
  const paint: Paint = color ? (style, text) => styleText(style, text) : (_s, text) => text;
  const session = await openSession({ kb: cmd.kb, global: cmd.global, allBranches: cmd.allBranches, verbose: cmd.verbose }, io);
  try {
    await session.run(cmd, {
      noLog: true,
      trace: (ev) => write(format === 'jsonl' ? `${JSON.stringify(ev)}\n` : `${formatEvent(ev, paint).join('\n')}\n`),
    });
  } finally {
    session.close();
  }
}

/** Where (and why) a note did not make it into the result of a query, in a few lines. */
export async function runExplain(cmd: RecallCommand, id: string, io: RunIo): Promise<string> {
  const events: TraceEvent[] = [];
  const session = await openSession({ kb: cmd.kb, global: cmd.global, allBranches: cmd.allBranches, verbose: false }, io);
  try {
    await session.run(cmd, { noLog: true, trace: (ev) => events.push(ev) });
  } finally {
    session.close();
  }
  // Resolve the id (a note key, or a file stem) against the index.
  const config = loadConfig(io.env);
  const scope = resolveScope(config, { kb: cmd.kb, global: cmd.global, allBranches: cmd.allBranches, cwd: io.cwd });
  const index = openKbIndex(config, scope.root, io.env);
  let key = id;
  let where: string | null = null;
  try {
    const byKey = notesByKeys(index, [id]);
    const row = byKey.get(id) ?? (index.db.prepare(`SELECT key, location, path FROM notes WHERE path LIKE ? LIMIT 1`).get(`%/${id}.md`) as { key: string; location: string; path: string } | undefined);
    if (!row) {
      const problem = index.db.prepare(`SELECT path, problem FROM files WHERE path LIKE ? AND problem IS NOT NULL LIMIT 1`).get(`%${id}%`) as { path: string; problem: string } | undefined;
      return problem
        ? `${id}: not indexed: ${problem.path} could not be used (${problem.problem})\n`
        : `${id}: no note with this id or file name in ${scope.root}\n`;
    }
    key = 'key' in row ? row.key : id;
    const loc = 'location' in row ? row.location : 'documents';
    if (loc !== 'documents') where = `${id}: the note is in ${loc === 'forgotten' ? 'documents/.forgotten/' : 'archived/'}: retired notes are never recalled\n`;
  } finally {
    closeIndex(index);
  }
  if (where) return where;
  const result = events.find((e): e is Extract<TraceEvent, { stage: 'result' }> => e.stage === 'result');
  const rank = result?.ids.indexOf(key) ?? -1;
  if (rank >= 0) return `${id}: included, rank ${rank + 1} of ${result!.ids.length} (score ${num(result!.scores[rank] ?? 0, 4)})\n`;
  if (events.some((e) => e.stage === 'cache' && e.tier !== null)) {
    // A cached fetch skips the arms: say so rather than guessing.
    const fused = events.find((e) => e.stage === 'score') as Extract<TraceEvent, { stage: 'score' }> | undefined;
    if (!fused?.candidates.some((c) => c.id === key)) return `${id}: not among the cached candidates of this query (run with --no-cache to see the arms)\n`;
  }
  const arms = events.filter((e): e is Extract<TraceEvent, { stage: 'arm' }> => e.stage === 'arm');
  const found = arms.filter((a) => a.hits.some((h) => h.id === key));
  for (const e of events) {
    if (!('dropped' in e)) continue;
    const d = e.dropped.find((x) => x.key === key);
    if (d) {
      const label: Record<string, string> = {
        'arm-floor': 'below an arm coverage floor',
        superseded: 'retired (superseded)',
        quarantine: 'quarantined',
        confidence: 'below the confidence filter',
        mmr: 'diversified away by MMR',
        limit: 'cut by --limit',
        budget: 'cut by the token budget',
      };
      return `${id}: retrieved by ${found.map((a) => `${a.arm} (rank ${a.hits.find((h) => h.id === key)!.rank})`).join(', ') || 'no arm'}, then ${label[d.stage] ?? d.stage}: ${d.reason}\n`;
    }
  }
  const gate = events.find((e) => e.stage === 'ood-gate') as Extract<TraceEvent, { stage: 'ood-gate' }> | undefined;
  if (gate?.gated) return `${id}: the OOD gate emptied the result (best coverage ${num(gate.coverage ?? 0, 2)} < --min-overlap ${gate.minOverlap})\n`;
  if (found.length === 0) {
    const ran = arms.filter((a) => a.status === 'ok').map((a) => a.arm);
    const off = arms.filter((a) => a.status !== 'ok').map((a) => `${a.arm} ${a.status}`);
    return `${id}: not retrieved by any arm (searched: ${ran.join(', ') || 'none'}${off.length ? `; ${off.join(', ')}` : ''}): the query shares too little with the note\n`;
  }
  return `${id}: retrieved (${found.map((a) => a.arm).join(', ')}) but not in the result\n`;
}
