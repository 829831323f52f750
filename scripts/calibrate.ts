/**
 * `npm run calibrate [-- --dump FILE | --from FILE] [--write]`
 *
 * Fits the lexical relevance model (operators/math/relevance.ts) on the labelled sets
 * (scripts/labelled-sets.ts) and prints its coefficients with query-level figures: OOD noise (an
 * off-topic query that would return anything), false abstention (an on-topic query that would
 * return nothing) and recall@K of what clears the floor, on all sets and leaving each family out.
 *
 * The everyday prompts are scored but left out of the fit (see main).
 *
 * Examples: every candidate the real pipeline retrieves, with the features the pipeline computed
 * (read from its trace), labelled by the query's relevant notes. The fit is per query, the level the
 * floors act on (fitLogistic: an on-topic query should return a relevant note, an off-topic one
 * nothing), each family weighing the same; the bias is then placed where the floors' figures are
 * best balanced (withBestBias).
 *
 * `--dump FILE` writes the examples as JSON lines, `--from FILE` reads them back instead of running
 * the pipeline (a refit of new weights over the same features); `--write` replaces RELEVANCE_MODEL
 * in operators/math/relevance.ts with the fitted coefficients.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_COMMAND, openSession, type RecallSession } from '../pipeline/run.js';
import type { TraceEvent } from '../operators/trace-stage.js';
import { FEATURE_NAMES, type RelevanceModel } from '../operators/math/index.js';
import { figures, fitLogistic, kOf, type Example, type Figures } from './calibrate-fit.js';
import { labelledSets, type LabelledSet } from './labelled-sets.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** One query's traced relevance features, ranks by arm and base scores. */
async function traceQuery(
  session: RecallSession,
  query: string,
): Promise<{
  rel: Extract<TraceEvent, { stage: 'relevance' }> | null;
  order: string[];
  armRanks: Map<string, Record<string, number>>;
  bases: Map<string, number>;
}> {
  let rel: Extract<TraceEvent, { stage: 'relevance' }> | null = null;
  let order: string[] = [];
  const armRanks = new Map<string, Record<string, number>>();
  const bases = new Map<string, number>();
  const command = {
    ...DEFAULT_COMMAND,
    query,
    limit: 10,
    format: 'json' as const,
    cache: false,
    mmr: false,
    floor: 0,
    gapLog: false,
    followup: false,
  };
  await session.run(command, {
    noLog: true,
    trace: (ev) => {
      if (ev.stage === 'relevance') rel = ev;
      if (ev.stage === 'score') {
        order = ev.candidates.map((c) => c.id);
        for (const c of ev.candidates) bases.set(c.id, c.base);
      }
      if (ev.stage === 'arm') for (const h of ev.hits) armRanks.set(h.id, { ...(armRanks.get(h.id) ?? {}), [ev.arm]: h.rank });
    },
  });
  return { rel, order, armRanks, bases };
}

/**
 * How a set's labels name a note, by the note's key: the key itself, or for a Claude Code memory
 * folder (labels are file names, recall keys a memory by its `name:`) the file name without `.md`.
 * Without this every memory would be labelled irrelevant and the fit would learn to silence them.
 */
function labelOf(session: RecallSession, set: LabelledSet): (key: string) => string {
  if (set.labels !== 'file') return (key) => key;
  const files = new Map(
    session.noteSets().flatMap((s) => s.notes().map((n) => [n.key, path.basename(n.path).replace(/\.md$/, '')] as const)),
  );
  return (key) => files.get(key) ?? key;
}

/** The labelled examples of one query: every candidate with features, labelled by the query's relevant set. */
async function queryExamples(
  session: RecallSession,
  set: LabelledSet,
  q: LabelledSet['queries'][number],
  label: (key: string) => string,
): Promise<Example[]> {
  const { rel, order, armRanks, bases } = await traceQuery(session, q.query);
  const relevant = new Set(q.relevant);
  return (rel?.candidates ?? []).flatMap((c) =>
    c.features
      ? [
          {
            family: set.family,
            set: set.name,
            queryId: q.id,
            inDomain: relevant.size > 0,
            nRelevant: relevant.size,
            key: c.id,
            label: relevant.has(label(c.id)) ? 1 : 0,
            features: c.features,
            rank: order.indexOf(c.id) + 1 || order.length + 1,
            armRanks: armRanks.get(c.id) ?? {},
            base: bases.get(c.id) ?? 0,
            terms: rel?.terms ?? [],
            missing: c.missing,
          },
        ]
      : [],
  );
}

export async function collect(sets: readonly LabelledSet[], warn: (l: string) => void): Promise<Example[]> {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-calibrate-'));
  const env = { ...process.env, REFLECT_STATE_DIR: stateDir, RECALL_GAP_LOG: '0', RECALL_FOLLOWUP: '0' };
  const out: Example[] = [];
  try {
    for (const set of sets) {
      const session = await openSession({ kb: set.kb, global: false, allBranches: false, verbose: false }, { env, cwd: repo, warn });
      try {
        const label = labelOf(session, set);
        for (const q of set.queries) out.push(...(await queryExamples(session, set, q, label)));
      } finally {
        session.close();
      }
    }
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
  return out;
}

const f3 = (x: number | null): string => (x === null ? '    -' : x.toFixed(3).padStart(5));

function table(rows: Figures[]): string[] {
  return rows.map(
    (r) =>
      `  ${r.family.padEnd(16)} noise ${f3(r.noise)}  false-abstention ${f3(r.falseAbstention)}  recall@K ${f3(r.recallAtK)}  precision ${f3(r.precision)}`,
  );
}

/**
 * A family of a few sets (the prompt files of both KBs) is also shown set by set: each file has its
 * own targets. Families of many sets (LoCoMo's conversations) are shown whole.
 */
const MAX_SPLIT_SETS = 3;

function perSet(examples: readonly Example[], family: string): boolean {
  const sets = new Set(examples.filter((e) => e.family === family).map((e) => e.set));
  return sets.size > 1 && sets.size <= MAX_SPLIT_SETS;
}

/** A family's rows, then its sets' rows when it is shown set by set. */
function familyTable(examples: readonly Example[], model: RelevanceModel, floor: number): string[] {
  const out: string[] = [];
  for (const row of figures(examples, model, floor, kOf)) {
    out.push(...table([row]));
    if (!perSet(examples, row.family)) continue;
    const own = examples.filter((e) => e.family === row.family);
    out.push(...table(figures(own, model, floor, kOf, (e) => e.set)).map((l) => `  ${l}`));
  }
  return out;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const warn = (l: string): void => void process.stderr.write(`calibrate: ${l}\n`);
  const sets = labelledSets({ repo, warn });
  process.stderr.write(`calibrate: ${sets.length} sets, ${sets.reduce((n, s) => n + s.queries.length, 0)} queries\n`);
  const from = args.indexOf('--from');
  const examples: Example[] =
    from >= 0 && args[from + 1]
      ? fs
          .readFileSync(args[from + 1]!, 'utf8')
          .split('\n')
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l) as Example)
      : await collect(sets, warn);
  const dump = args.indexOf('--dump');
  if (dump >= 0 && args[dump + 1]) fs.writeFileSync(args[dump + 1]!, examples.map((e) => JSON.stringify(e)).join('\n') + '\n');
  // Everyday prompts are reported but not fitted: they share only everyday words with any note, and
  // the gate in the relevance stage (no specific query word → at most GENERIC_ONLY_MAX) decides them;
  // fitting them too would only make the model stricter for the prompts the gate lets through.
  const fitted = (list: readonly Example[]): Example[] => list.filter((e) => e.family !== 'everyday');
  const model = fitLogistic(fitted(examples));
  const out: string[] = [];
  out.push(`examples: ${examples.length} (${examples.filter((e) => e.label === 1).length} relevant)`);
  out.push(`fitted: bias ${model.bias}, ${FEATURE_NAMES.map((f) => `${f} ${model.weights[f]}`).join(', ')}`);
  for (const floor of [0.4, 0.5, 0.6]) {
    out.push(`all sets, floor ${floor}:`);
    out.push(...familyTable(examples, model, floor));
  }
  out.push('each family left out of the fit (floor 0.5):');
  for (const family of [...new Set(examples.map((e) => e.family))]) {
    // LoCoMo questions and their cross-conversation use come from the same conversations: hold both out.
    const held = family === 'locomo' || family === 'cross' ? ['locomo', 'cross'] : [family];
    const m = fitLogistic(fitted(examples.filter((e) => !held.includes(e.family))));
    const own = examples.filter((e) => e.family === family);
    out.push(...familyTable(own, m, 0.5));
  }
  process.stdout.write(`${out.join('\n')}\n`);
  if (args.includes('--write')) {
    const file = path.join(repo, 'operators', 'math', 'relevance.ts');
    const text = fs.readFileSync(file, 'utf8');
    const block = `export const RELEVANCE_MODEL: RelevanceModel = {\n  bias: ${model.bias},\n  weights: {\n${FEATURE_NAMES.map((f) => `    ${f}: ${model.weights[f]},`).join('\n')}\n  },\n};`;
    const next = text.replace(/export const RELEVANCE_MODEL: RelevanceModel = \{[\s\S]*?\n\};/, block);
    if (next === text) throw new Error(`${file}: RELEVANCE_MODEL block not found`);
    fs.writeFileSync(file, next);
    process.stdout.write(`wrote ${path.relative(repo, file)}; rebuild, then run npm run eval\n`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main().catch((err: unknown) => {
    process.stderr.write(`calibrate: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
