/**
 * `npm run eval [-- --sets golden,abstain,example,locomo,cross] [--kb DIR --queries FILE] [--k K] [--json]`
 *
 * Scores retrieval on labelled query sets (scripts/labelled-sets.ts; or one KB and query file of
 * your own: YAML `queries: [{id, class, query, relevant: [names], superseded?: [names]}]`, or JSON
 * lines of the same objects), each under three callers' settings, next to plain BM25 in the same run:
 *
 *   cli          `recall QUERY --limit K`: results above the CLI floor, then weak matches
 *   user-prompt  the UserPromptSubmit hook: 9 fetched at its floor, up to 3 whole learnings in 1500 chars
 *   session-start  the SessionStart hook's main recall: 3 at its floor with --min-overlap 0.2
 *   bm25         plain Okapi BM25 (k1 1.2, b 0.75, function words dropped) over each note's text
 *
 * Figures per set: recall@K (share of a query's relevant notes in what is returned), MRR, nDCG@K,
 * OOD noise (share of off-topic queries that return anything: for the CLI, anything above its floor),
 * false abstention (share of on-topic queries that return nothing), precision (share of returned
 * notes labelled relevant, over queries that returned something), superseded-above-current
 * violations; and which arms found the CLI's top-K. Runs the real pipeline in-process on a
 * throw-away state dir (no cache, no logs), so it measures ranking, not I/O.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_COMMAND, openSession, type RecallCommand, type RecallSession } from '../pipeline/run.js';
import { PROMPT_FETCH, wholeLearnings } from '../hooks/registry.js';
import { SESSION_START_CHARS, SESSION_START_KEEP } from '../hooks/session-start-recall.js';
import { numberDefault } from '../core/settings/index.js';
import { renderMarkdown } from '../sinks/render/index.js';
import { labelledSets, loadQueries, type LabelledQuery, type LabelledSet } from './labelled-sets.js';
import { plainBm25 } from './plain-bm25.js';
import { PROFILES, mean, reportText, summaryRows, type Profile, type QueryScore, type SetResult, type Summary } from './eval-report.js';

function parseArgs(argv: string[]): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i]!;
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}`);
    const key = a.slice(2);
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) out[key] = true;
    else {
      out[key] = next;
      i += 1;
    }
  }
  return out;
}

/** nDCG@k with binary relevance: DCG of the ranking over the DCG of an ideal one. */
function ndcgAt(ids: readonly string[], rel: ReadonlySet<string>, k: number): number {
  const gain = (i: number): number => 1 / Math.log2(i + 2);
  const dcg = ids.slice(0, k).reduce((sum, id, i) => sum + (rel.has(id) ? gain(i) : 0), 0);
  const ideal = Array.from({ length: Math.min(rel.size, k) }, (_, i) => gain(i)).reduce((a, b) => a + b, 0);
  return ideal > 0 ? dcg / ideal : 0;
}

function score(
  q: LabelledQuery,
  ids: string[],
  returned: string[],
  arms: string[][],
  k: number,
  ms: number,
  whole: string[] = returned,
): QueryScore {
  const rel = new Set(q.relevant);
  const onTopic = rel.size > 0;
  const top = ids.slice(0, k);
  const firstRel = top.findIndex((id) => rel.has(id));
  const sup = new Set(q.superseded ?? []);
  const firstSup = top.findIndex((id) => sup.has(id));
  const shown = returned.slice(0, k);
  return {
    id: q.id,
    class: q.class,
    ...(q.category !== undefined ? { category: q.category } : {}),
    ids: top,
    arms,
    onTopic,
    recall: onTopic ? top.filter((id) => rel.has(id)).length / rel.size : null,
    mrr: onTopic ? (firstRel >= 0 ? 1 / (firstRel + 1) : 0) : null,
    ndcg: onTopic ? ndcgAt(top, rel, k) : null,
    returned: shown.length > 0,
    precision: onTopic && shown.length ? shown.filter((id) => rel.has(id)).length / shown.length : null,
    violation: firstSup >= 0 && (firstRel < 0 || firstSup < firstRel),
    ms,
    returnedRecall: onTopic ? shown.filter((id) => rel.has(id)).length / rel.size : null,
    hit: onTopic ? shown.some((id) => rel.has(id)) : null,
    returnedWhole: whole.length > 0,
    hitWhole: onTopic ? whole.slice(0, k).some((id) => rel.has(id)) : null,
  };
}

/** One query under one caller's settings: the ids shown in order, and those counted as returned. */
async function runProfile(
  session: RecallSession,
  profile: Exclude<Profile, 'bm25'>,
  q: LabelledQuery,
  k: number,
  idOf: (c: { note: { key: string; path: string } }) => string,
): Promise<{ ids: string[]; returned: string[]; whole?: string[]; arms: string[][] }> {
  const base: RecallCommand = { ...DEFAULT_COMMAND, query: q.query, format: 'json', cache: false, gapLog: false, followup: false };
  const floors = session.config.floors;
  if (profile === 'cli') {
    const r = await session.run({ ...base, limit: k, showWeak: true, floor: floors.cli }, { noLog: true });
    const results = r.outcome?.results ?? [];
    const shown = [...results, ...(r.outcome?.weak ?? [])];
    return { ids: shown.map(idOf), returned: results.map(idOf), arms: shown.map((c) => Object.keys(c.ranks)) };
  }
  if (profile === 'user-prompt') {
    const r = await session.run({ ...base, limit: PROMPT_FETCH, maxChars: 0, floor: floors.userPrompt }, { noLog: true });
    const render = (list: Parameters<typeof renderMarkdown>[0]['results']): string =>
      renderMarkdown({
        query: q.query,
        results: list,
        field: null,
        maxChars: 0,
        economics: session.config.economics,
        glyphs: session.glyphs(),
        home: session.config.home,
      });
    const { kept, pointer } = wholeLearnings(r.outcome?.results ?? [], render, floors.userPrompt, new Set(), q.query);
    const given = [...kept, ...(pointer ? [pointer] : [])];
    const ids = given.map(idOf);
    return { ids, returned: ids, whole: kept.map(idOf), arms: given.map((c) => Object.keys(c.ranks)) };
  }
  const sessionStart = {
    limit: SESSION_START_KEEP,
    maxChars: SESSION_START_CHARS,
    minOverlap: numberDefault('REFLECT_RECALL_MIN_OVERLAP'),
  };
  const r = await session.run({ ...base, ...sessionStart, floor: floors.sessionStart }, { noLog: true });
  const ids = (r.outcome?.results ?? []).map(idOf);
  return { ids, returned: ids, arms: (r.outcome?.results ?? []).map((c) => Object.keys(c.ranks)) };
}

async function evalSet(
  set: LabelledSet,
  env: Record<string, string | undefined>,
  profiles: readonly Profile[],
  k: number | null,
): Promise<{ summaries: Summary[]; perQuery: Record<string, QueryScore[]>; attribution: Record<string, number> }> {
  const session = await openSession(
    { kb: set.kb, global: false, allBranches: false, verbose: false },
    { env, cwd: process.cwd(), warn: () => undefined },
  );
  const perQuery: Record<string, QueryScore[]> = {};
  const attribution: Record<string, number> = {};
  // A memory folder's labels are file names; every other set labels notes by key.
  const idOf = (c: { note: { key: string; path: string } }): string =>
    set.labels === 'file' ? path.basename(c.note.path).replace(/\.md$/, '') : c.note.key;
  try {
    const bm25 = profiles.includes('bm25') ? plainBm25(set.kb, set.labels) : null;
    for (const profile of profiles) {
      const kk = profile === 'user-prompt' || profile === 'session-start' ? 3 : (k ?? set.k);
      const scores: QueryScore[] = [];
      for (const q of set.queries) {
        const t0 = performance.now();
        const out =
          profile === 'bm25'
            ? { ids: bm25!.search(q.query, kk), returned: [] as string[], arms: [] as string[][] }
            : await runProfile(session, profile, q, kk, idOf);
        // Plain BM25 never abstains: everything it ranks counts as returned.
        const returned = profile === 'bm25' ? out.ids : out.returned;
        scores.push(score(q, out.ids, returned, out.arms, kk, performance.now() - t0, (out as { whole?: string[] }).whole ?? returned));
        if (profile === 'cli')
          for (const a of out.arms.slice(0, kk))
            attribution[a.sort().join('+') || 'none'] = (attribution[a.sort().join('+') || 'none'] ?? 0) + 1;
      }
      perQuery[profile] = scores;
    }
  } finally {
    session.close();
  }
  const summaries = Object.entries(perQuery).map(([profile, rs]): Summary => {
    const ood = rs.filter((r) => !r.onTopic);
    const on = rs.filter((r) => r.onTopic);
    return {
      set: set.name,
      family: set.family,
      profile: profile as Profile,
      k: profile === 'user-prompt' || profile === 'session-start' ? 3 : (k ?? set.k),
      queries: rs.length,
      recall_at_k: mean(rs.map((r) => r.recall)),
      mrr: mean(rs.map((r) => r.mrr)),
      ndcg_at_k: mean(rs.map((r) => r.ndcg)),
      ood_noise: ood.length ? ood.filter((r) => r.returned).length / ood.length : null,
      false_abstention: on.length ? on.filter((r) => !r.returned).length / on.length : null,
      precision: mean(rs.map((r) => r.precision)),
      violations: rs.filter((r) => r.violation).length,
    };
  });
  return { summaries, perQuery, attribution };
}

/** The labelled sets to score: one KB and query file of the user's, or the named families. */
function chooseSets(args: Record<string, string | boolean>, repo: string, k: number | null): LabelledSet[] {
  if (args['kb'] || args['queries']) {
    const kb = path.resolve(String(args['kb'] ?? path.join(repo, '..', 'shared', 'eval', 'golden')));
    const file = path.resolve(String(args['queries'] ?? path.join(kb, 'golden_queries.yaml')));
    return [{ name: path.basename(file).replace(/\.[^.]+$/, ''), family: 'custom', kb, queries: loadQueries(file), k: k ?? 5 }];
  }
  const warn = (l: string): void => void process.stderr.write(`eval: ${l}\n`);
  const families = typeof args['sets'] === 'string' ? args['sets'].split(',') : undefined;
  return labelledSets({ repo, warn, ...(families ? { families } : {}) });
}

function chooseProfiles(args: Record<string, string | boolean>): readonly Profile[] {
  const profiles = typeof args['profiles'] === 'string' ? (args['profiles'].split(',') as Profile[]) : PROFILES;
  for (const p of profiles) if (!PROFILES.includes(p)) throw new Error(`--profiles: unknown caller ${p} (one of ${PROFILES.join(', ')})`);
  return profiles;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const k = args['k'] !== undefined ? Number(args['k']) : args['limit'] !== undefined ? Number(args['limit']) : null;
  if (k !== null && (!Number.isInteger(k) || k < 1)) throw new Error('--k must be an integer of at least 1');
  const sets = chooseSets(args, repo, k);
  const profiles = chooseProfiles(args);
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-eval-'));
  const env = { ...process.env, REFLECT_STATE_DIR: stateDir, RECALL_GAP_LOG: '0', RECALL_FOLLOWUP: '0' };
  const all: SetResult[] = [];
  try {
    for (const set of sets) all.push({ set, ...(await evalSet(set, env, profiles, k)) });
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
  if (args['json']) {
    const sets = all.map((a) => ({ name: a.set.name, kb: a.set.kb, attribution: a.attribution, queries: a.perQuery }));
    process.stdout.write(`${JSON.stringify({ summary: summaryRows(all, profiles), sets }, null, 2)}\n`);
    return;
  }
  process.stdout.write(`${reportText(all, profiles, await floorsOf(env), Boolean(args['verbose']))}\n`);
}

async function floorsOf(env: Record<string, string | undefined>): Promise<string[]> {
  const { loadConfig } = await import('../pipeline/config/config.js');
  const f = loadConfig(env).floors;
  return [`${f.cli}`, `user-prompt ${f.userPrompt}`, `session-start ${f.sessionStart}`];
}

main().catch((err: unknown) => {
  process.stderr.write(`eval: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
