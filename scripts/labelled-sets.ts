/**
 * The labelled query sets that `npm run eval` scores and `npm run calibrate` fits on, found next to
 * this repository (`../shared/eval`, as checked out for development) and in `examples/eval`.
 *
 * - golden: 20 notes and 20 queries (exact, graph, temporal, ood);
 * - abstain: developer prompts against the golden KB, 30 off-topic and 14 paraphrased on-topic;
 * - example: prompts against examples/kb, 24 paraphrased on-topic and 25 off-topic;
 * - prompts: prompts as people type them into a coding agent (8-68 words, pasted errors, hard
 *   negatives), against the golden KB (prompts-golden) and the example KB (prompts-examples);
 * - titles: a two-word key phrase of each live example note's title, which should find that note first;
 * - everyday: 40 everyday prompts to a coding agent, about nothing a KB holds, against both developer KBs;
 * - locomo-<c>: a LoCoMo conversation as a KB (one note per dialog turn), its questions of
 *   categories 1-4 (evidence turns labelled), built with the set's own make_kb.py (python3);
 * - cross-<q>-on-<c>: conversation q's questions asked of conversation c's KB: off-topic;
 * - claudemem: a Claude Code memory folder read as it is (no setup), and prompts typed in that
 *   project, labelled by memory file name.
 * Sets whose files are missing are skipped with a note on stderr.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import yaml from 'js-yaml';

export interface LabelledQuery {
  id: string;
  class: string;
  query: string;
  relevant: string[];
  superseded?: string[];
  category?: number;
}

export interface LabelledSet {
  name: string;
  /** Family for reporting and for weighting during calibration (golden, abstain, example, locomo, cross). */
  family: string;
  kb: string;
  queries: LabelledQuery[];
  /** Cut-off K for recall@K in reports. */
  k: number;
  /**
   * What the labels name: a note's key (default) or its file name without `.md` (a Claude Code
   * memory folder, whose labels are file names while recall keys a memory by its `name:`).
   */
  labels?: 'key' | 'file';
}

export function loadQueries(file: string): LabelledQuery[] {
  const text = fs.readFileSync(file, 'utf8');
  const data = file.endsWith('.jsonl')
    ? {
        queries: text
          .split('\n')
          .filter((l) => l.trim())
          .map((l, i) => {
            try {
              return JSON.parse(l) as unknown;
            } catch (err) {
              throw new Error(`${file}:${i + 1}: not JSON (${(err as Error).message})`, { cause: err });
            }
          }),
      }
    : (yaml.load(text) as { queries?: unknown });
  if (!data || !Array.isArray(data.queries)) throw new Error(`${file}: no "queries" list`);
  return data.queries.map((q, i) => {
    const o = q as Record<string, unknown>;
    if (typeof o['query'] !== 'string') throw new Error(`${file}: query #${i + 1} has no text`);
    const relevant = Array.isArray(o['relevant']) ? o['relevant'].map(String) : [];
    return {
      id: String(o['id'] ?? `q${i + 1}`),
      class: String(o['class'] ?? (relevant.length ? 'in' : 'ood')),
      query: o['query'],
      relevant,
      ...(Array.isArray(o['superseded']) ? { superseded: o['superseded'].map(String) } : {}),
      ...(typeof o['category'] === 'number' ? { category: o['category'] } : {}),
    };
  });
}

export const LOCOMO_CONVERSATIONS = ['30', '41', '42', '43', '44'] as const;

/** Build (once per process run) the LoCoMo KBs into `dir`; null when python3 or the data is missing. */
function buildLocomo(
  sharedEval: string,
  dir: string,
  warn: (l: string) => void,
): Map<string, { kb: string; queries: LabelledQuery[] }> | null {
  const script = path.join(sharedEval, 'locomo', 'make_kb.py');
  if (!fs.existsSync(script)) return null;
  const out = new Map<string, { kb: string; queries: LabelledQuery[] }>();
  for (const c of LOCOMO_CONVERSATIONS) {
    const data = path.join(sharedEval, 'locomo', 'data', `${c}.json`);
    const kb = path.join(dir, `locomo-${c}`);
    if (!fs.existsSync(path.join(kb, 'queries.jsonl'))) {
      const r = spawnSync('python3', [script, data, kb], { encoding: 'utf8' });
      if (r.status !== 0) {
        warn(`locomo ${c}: make_kb.py failed (${(r.stderr || r.error?.message || '').trim().split('\n').pop()})`);
        return null;
      }
    }
    const queries = loadQueries(path.join(kb, 'queries.jsonl')).filter(
      (q) => q.category !== undefined && q.category >= 1 && q.category <= 4,
    );
    out.set(c, { kb, queries });
  }
  return out;
}

export interface SetOptions {
  repo: string;
  /** Which families to load (default all). */
  families?: readonly string[];
  warn: (line: string) => void;
  /** Where LoCoMo KBs are built (kept between runs when given). */
  workDir?: string;
}

/**
 * The prompt sets' hard negatives, as their README lists them: off-topic prompts that name a note's
 * tool or paste its error but ask about another problem. The issue's targets count them apart from
 * the other off-topic prompts, so the report shows them as a class of their own ("hard").
 */
const HARD_NEGATIVES: ReadonlySet<string> = new Set([
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => `gp-ood-0${i}`),
  'gp-followup-03',
  'gp-followup-04',
  ...Array.from({ length: 12 }, (_, i) => `ep-ood-${String(i + 1).padStart(2, '0')}`),
  'ep-followup-04',
  'ep-followup-05',
  'ep-followup-06',
]);

function withHardClass(queries: LabelledQuery[]): LabelledQuery[] {
  return queries.map((q) => (HARD_NEGATIVES.has(q.id) && q.relevant.length === 0 ? { ...q, class: 'hard' } : q));
}

/** The prompt sets (both KBs), the Claude Code memory set and the title-phrase set, those whose files exist. */
function promptSets(sharedEval: string, golden: string, repo: string, want: (f: string) => boolean): LabelledSet[] {
  const sets: LabelledSet[] = [];
  const prompts = path.join(sharedEval, 'prompts');
  if (want('prompts') && fs.existsSync(path.join(prompts, 'golden-prompts.jsonl')) && fs.existsSync(golden))
    sets.push({
      name: 'prompts-golden',
      family: 'prompts',
      kb: golden,
      queries: withHardClass(loadQueries(path.join(prompts, 'golden-prompts.jsonl'))),
      k: 3,
    });
  if (want('prompts') && fs.existsSync(path.join(prompts, 'examples-prompts.jsonl')))
    sets.push({
      name: 'prompts-examples',
      family: 'prompts',
      kb: path.join(repo, 'examples', 'kb'),
      queries: withHardClass(loadQueries(path.join(prompts, 'examples-prompts.jsonl'))),
      k: 3,
    });
  const claudemem = path.join(sharedEval, 'claudemem');
  if (want('claudemem') && fs.existsSync(path.join(claudemem, 'queries.jsonl')))
    sets.push({
      name: 'claudemem',
      family: 'claudemem',
      kb: path.join(claudemem, 'memory'),
      queries: loadQueries(path.join(claudemem, 'queries.jsonl')),
      k: 3,
      labels: 'file',
    });
  const titles = path.join(repo, 'examples', 'eval', 'title-phrases.jsonl');
  if (want('titles') && fs.existsSync(titles))
    sets.push({ name: 'title-phrases', family: 'titles', kb: path.join(repo, 'examples', 'kb'), queries: loadQueries(titles), k: 1 });
  return sets;
}

export function labelledSets(opts: SetOptions): LabelledSet[] {
  const want = (f: string): boolean => !opts.families || opts.families.includes(f);
  // The shared sets sit next to the checkout (`../shared/eval`); RECALL_EVAL_DIR names another place
  // (a second worktree, a copy of the sets).
  const sharedEval = process.env['RECALL_EVAL_DIR']
    ? path.resolve(process.env['RECALL_EVAL_DIR'])
    : path.join(opts.repo, '..', 'shared', 'eval');
  const sets: LabelledSet[] = [];
  const golden = path.join(sharedEval, 'golden');
  if (fs.existsSync(path.join(golden, 'golden_queries.yaml'))) {
    if (want('golden'))
      sets.push({ name: 'golden', family: 'golden', kb: golden, queries: loadQueries(path.join(golden, 'golden_queries.yaml')), k: 5 });
    const abstain = path.join(sharedEval, 'abstain', 'golden-prompts.jsonl');
    if (want('abstain') && fs.existsSync(abstain))
      sets.push({ name: 'abstain', family: 'abstain', kb: golden, queries: loadQueries(abstain), k: 3 });
  } else opts.warn(`no golden set at ${golden}: skipped`);
  const example = path.join(opts.repo, 'examples', 'eval', 'example-kb-prompts.jsonl');
  if (want('example') && fs.existsSync(example))
    sets.push({ name: 'example', family: 'example', kb: path.join(opts.repo, 'examples', 'kb'), queries: loadQueries(example), k: 3 });
  sets.push(...promptSets(sharedEval, golden, opts.repo, want));
  // Everyday prompts to a coding agent ("that still does not work", "fix the failing build"): about
  // no learning in particular, against both developer KBs.
  const everyday = path.join(opts.repo, 'examples', 'eval', 'everyday-prompts.jsonl');
  if (want('everyday') && fs.existsSync(everyday)) {
    sets.push({
      name: 'everyday-example',
      family: 'everyday',
      kb: path.join(opts.repo, 'examples', 'kb'),
      queries: loadQueries(everyday),
      k: 3,
    });
    if (fs.existsSync(golden)) sets.push({ name: 'everyday-golden', family: 'everyday', kb: golden, queries: loadQueries(everyday), k: 3 });
  }
  if (want('locomo') || want('cross')) {
    const dir = opts.workDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'recall-locomo-'));
    const convs = buildLocomo(sharedEval, dir, opts.warn);
    if (!convs) opts.warn('LoCoMo sets skipped (no ../shared/eval/locomo or no python3)');
    else {
      for (const [c, { kb, queries }] of convs)
        if (want('locomo')) sets.push({ name: `locomo-${c}`, family: 'locomo', kb, queries, k: 10 });
      if (want('cross'))
        for (const [c, { kb }] of convs)
          for (const [q, other] of convs) {
            if (q === c) continue;
            const ood = other.queries.map((x) => ({ id: `${x.id}@${c}`, class: 'ood', query: x.query, relevant: [] }));
            sets.push({ name: `cross-${q}-on-${c}`, family: 'cross', kb, queries: ood, k: 10 });
          }
    }
  }
  return sets;
}
