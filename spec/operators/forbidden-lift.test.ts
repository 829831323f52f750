/**
 * A prompt that names what a rule forbids is about that rule (operators/lift-forbidden.ts): "just
 * unwrap it" and "No unwrap()/expect() outside tests"; "force-push the branch" and "no force-push
 * before approval". Nothing else a rule says, and no everyday coding word, lifts it.
 */
import { describe, it, expect } from '@jest/globals';
import { lastValueFrom, of } from 'rxjs';
import { estimateRelevance, type EstimateRelevanceOptions } from '../../operators/estimate-relevance.js';
import { ASKED_STEP_SURE } from '../../operators/lift-asked-steps.js';
import { forbiddenThings, liftForbidden } from '../../operators/lift-forbidden.js';
import { queryTerms } from '../../core/stems.js';
import { initialState, type RelevanceEstimate } from '../../core/state.js';
import { note } from '../helpers/notes.js';
import type { Note } from '../../core/note/index.js';

/** Everyday English weights: the tools and calls below are rare, the rest common. */
const INFO: Record<string, number> = {
  renumb: 0.96,
  protobuf: 1,
  field: 0.6,
  runbook: 1,
  oncal: 1,
  cach: 0.7,
  token: 0.7,
  kubectl: 1,
  prod: 0.75,
  crd: 1,
  migrat: 0.8,
  appli: 0.6,
  edit: 0.64,
  proto: 1,
  unwrap: 0.77,
  protoc: 1,
  cargo: 1,
  payload: 0.8,
  gateway: 0.8,
  mock: 0.65,
  forc: 0.45,
  push: 0.55,
};
const info = (stem: string): number => INFO[stem] ?? 0.3;
const weigh: EstimateRelevanceOptions['weigh'] = (stems) => ({
  live: 40,
  df: new Map(stems.map((s) => [s, 3])),
  info: new Map(stems.map((s) => [s, info(s)])),
});

const memory = (name: string, description: string, body: string, type = 'feedback'): Note =>
  note({ id: undefined, name, description, metadata: { type } }, body, `documents/${name}.md`);

const UNWRAP = memory(
  'rust-panics',
  'No unwrap()/expect() in library Rust code; return errors with context',
  'A worker panicked on a None in March.\n\n**How to apply:** Any Rust edit outside tests.',
);
const PUSH = memory(
  'review-etiquette',
  'Answer review comments with new commits; no rebase/amend/force-push before approval',
  'Reviewers lose their place otherwise.\n\n**How to apply:** Any PR that has review comments.',
);
const NEXTEST = memory('test-runner', 'Run the workspace tests with cargo nextest, not cargo test', 'The fixtures collide otherwise.');
const V1 = memory(
  'v1-frozen',
  'The v1 API is frozen',
  'Nothing new goes into v1.\n\n**How to apply:** Offer to build it in v2 instead of implementing it.',
);
const PAYLOADS = memory('log-privacy', 'Never log request payloads or tokens; log ids and counts', 'An incident leaked card data.');

describe('forbiddenThings', () => {
  it('reads each thing a rule forbids, whether it writes it as code', () => {
    const read = (text: string) => forbiddenThings(text).map((t) => `${t.code ? 'code:' : ''}${t.stems.join(' ')}`);
    expect(read('No unwrap()/expect() in library Rust code; return errors')).toEqual(['code:unwrap', 'code:expect']);
    expect(read('no rebase/amend/force-push before approval')).toEqual(['rebas', 'amend', 'code:forc push']);
    expect(read('Run the workspace tests with cargo nextest, not cargo test')).toEqual(['cargo test']);
    // What is done is done to every item of the list.
    expect(read('Never log request payloads or tokens; log ids')).toEqual(['log request payload', 'log token']);
    expect(read('Keep the sockets: don’t use `tmux kill-server`.')).toEqual(['code:tmux kill server']);
    expect(read('Prefer table-driven tests over separate test functions.')).toEqual(['separ test function']);
    expect(read('moment.js is deprecated in this repo; use date-fns')).toEqual(['code:moment js']);
    // A path is one thing, not one per folder.
    expect(read('name: /v2/orders is deprecated')).toEqual(['v2 order']);
    // What the rule says is fine, or what happened, is nothing it forbids.
    expect(read('Use pnpm for every install. The build once failed on a stale lockfile.')).toEqual([]);
  });
});

/** The relevance of a memory after the lift, from an estimate of 0.2 (unsure) for the query. */
function lifted(n: Note, query: string): RelevanceEstimate {
  const relevance = new Map<string, RelevanceEstimate>([[n.key, { p: 0.2, source: 'lexical', features: null }]]);
  const weighed = queryTerms(query).map((t) => ({ ...t, info: info(t.stem), df: 3, specific: false, everyday: t.stem === 'test' }));
  liftForbidden(relevance, [{ note: n, rrf: 1 / 61, evidence: 1, ranks: { bm25: 1 } }], weighed, query);
  return relevance.get(n.key)!;
}

describe('a rule that forbids what the prompt names', () => {
  it('is lifted so the prompt hook gives it whole', () => {
    expect(lifted(UNWRAP, 'just unwrap it, the config is always loaded by then')).toMatchObject({
      p: ASKED_STEP_SURE,
      source: 'forbidden',
    });
    expect(lifted(PUSH, 'squash it all and force push the branch').p).toBe(ASKED_STEP_SURE);
    expect(lifted(NEXTEST, 'run cargo test on the compactor crate').p).toBe(ASKED_STEP_SURE);
    expect(lifted(PAYLOADS, 'log the full request payload while we debug this').p).toBe(ASKED_STEP_SURE);
  });

  it('is not lifted by part of a thing, an everyday word, or a word the rule only writes in prose', () => {
    // "push" alone is not "force-push"; "log" alone is not logging payloads.
    expect(lifted(PUSH, 'push the branch when the build is green').p).toBe(0.2);
    expect(lifted(PAYLOADS, 'add a log line when the retry gives up').p).toBe(0.2);
    // An item of the list without what is done to it: a regex for tokens logs nothing.
    expect(lifted(PAYLOADS, 'what regex matches our request tokens?').p).toBe(0.2);
    // "instead of implementing it" forbids nothing a prompt asking to implement something names.
    expect(lifted(V1, 'implement Display for the segment id').p).toBe(0.2);
    // The rule's recommendation is no forbidden thing, nor another run of the same program.
    expect(lifted(NEXTEST, 'run cargo nextest for the whole workspace').p).toBe(0.2);
    expect(lifted(NEXTEST, 'cargo build fails on the parquet crate').p).toBe(0.2);
    // A word of prose alone needs the rest of its clause: renumbering a runbook's steps renumbers no protobuf field.
    const proto = memory('proto-fields', 'Never renumber, reuse or retype existing protobuf fields', 'Archived events decode with them.');
    expect(lifted(proto, 'renumber the steps in the oncall runbook').p).toBe(0.2);
    expect(lifted(proto, 'renumber field 7 in the protobuf message').p).toBe(ASKED_STEP_SURE);
    // Words of the thing apart in the prompt are not the thing.
    const tokens = memory('token-cache', 'Never cache tokens; fetch them per request', 'A revoked token lived on.');
    expect(lifted(tokens, 'the token refresh job should cache the user list').p).toBe(0.2);
    expect(lifted(tokens, 'just cache the tokens for an hour').p).toBe(ASKED_STEP_SURE);
    // Where it is forbidden, when the rule says: the prompt must name it too.
    const gitops = memory('gitops-only', 'Never kubectl apply against prod; changes go through the deploy repo', 'Argo reverts it.');
    expect(lifted(gitops, 'kubectl apply the CRD to my local kind cluster').p).toBe(0.2);
    expect(lifted(gitops, 'kubectl apply the new CRD in prod').p).toBe(ASKED_STEP_SURE);
    // Any of the places listed.
    const pushes = memory('no-force-push', 'Never force-push to main or to a PR under review', 'Reviewers lose their place.');
    expect(lifted(pushes, 'force push the PR branch, I squashed it').p).toBe(ASKED_STEP_SURE);
    expect(lifted(pushes, 'force push my scratch branch').p).toBe(0.2);
    // The words that say what is forbidden, not the ones around them: an edit is no edit of an applied migration.
    const migrations = memory(
      'migrations-append-only',
      'Migrations are append-only: never edit an applied migration file',
      'Add a new one.',
    );
    expect(lifted(migrations, 'edit the proto file to add a field').p).toBe(0.2);
    expect(lifted(migrations, 'just edit the applied migration, nobody ran it yet').p).toBe(ASKED_STEP_SURE);
  });

  it('is a rule: a learning of a problem that says "never" is not lifted', () => {
    const bugfix = note(
      { id: 'lrn-worker-panic', title: 'Worker panicked: never unwrap() a cache miss', learning_type: 'bug-fix' },
      'The cache returned None.',
      'documents/lrn-worker-panic.md',
    );
    expect(lifted(bugfix, 'just unwrap it').p).toBe(0.2);
  });

  it('is lifted inside the relevance stage', async () => {
    const estimate = async (query: string): Promise<RelevanceEstimate> => {
      const candidates = [UNWRAP, PAYLOADS].map((n) => ({ note: n, rrf: 1 / 61, evidence: 1, ranks: { bm25: 1 } }));
      const s = await lastValueFrom(
        of({ ...initialState(query, []), candidates }).pipe(
          estimateRelevance({ terms: queryTerms(query), weigh, dateWindow: false, limit: 10 }),
        ),
      );
      return s.relevance.get(UNWRAP.key)!;
    };
    // The rule shares one word of a long prompt: the estimate alone is unsure of it.
    const context = 'the scheduler thread reads the settings struct only after the loader finished, so the value is there';
    expect((await estimate(`just take it out, ${context}`)).p).toBeLessThan(ASKED_STEP_SURE);
    expect(await estimate(`just unwrap it, ${context}`)).toMatchObject({ p: ASKED_STEP_SURE, source: 'forbidden' });
  });
});
