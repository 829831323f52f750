/**
 * `recall trace`, `recall explain` and `recall replay` through the built CLI.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tempKb, noteText, touchLater, type TempKb } from '../helpers/kb.js';
import { driverEnv } from '../helpers/driver.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = path.join(repo, 'bin', 'recall');
let kb: TempKb | null = null;
afterEach(() => kb?.cleanup());

function run(args: string[], k: TempKb, env: Record<string, string> = {}): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(bin, args, {
    cwd: repo,
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', HOME: k.state, REFLECT_STATE_DIR: k.state, ...driverEnv(), ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const STAGE_ORDER = [
  'start',
  'cache',
  'arm',
  'floors',
  'fuse',
  'superseded',
  'rerank',
  'relevance',
  'score',
  'quarantine',
  'confidence',
  'ood-gate',
  'abstain',
  'mmr',
  'budget',
  'result',
];

describe('recall trace', () => {
  it('reports every stage in pipeline order, and ends with the ids `recall --format json` returns', () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'postgres pool sizing', 'size the postgres pool per worker', { confidence: 'high' }));
    kb.write('documents/b.md', noteText('b', 'postgres deadlocks', 'lock ordering avoids postgres deadlocks'));
    kb.write('documents/c.md', noteText('c', 'old pool advice', 'postgres pool', { superseded_by: 'a' }));
    kb.write('documents/q.md', noteText('q', 'fleet pool note', 'postgres pool from the fleet', { quarantine: true }));
    const q = 'postgres pool sizing';
    const out = run(['trace', '--kb', kb.root, q, '--format', 'jsonl', '--no-cache', '--min-overlap', '0.2'], kb);
    expect(out.code).toBe(0);
    const events = out.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { stage: string; t: number; arm?: string; ids?: string[]; dropped?: { key: string }[] });
    const stages = events.map((e) => e.stage);
    // Each stage once (the four arms each report), in order, with non-decreasing times.
    expect(stages.filter((s) => s !== 'arm')).toEqual(STAGE_ORDER.filter((s) => s !== 'arm'));
    expect(
      events
        .filter((e) => e.stage === 'arm')
        .map((e) => e.arm)
        .sort(),
    ).toEqual(['bm25', 'graph', 'temporal', 'vector']);
    const idx = (s: string): number => stages.indexOf(s);
    expect(stages.lastIndexOf('arm')).toBeLessThan(idx('floors'));
    expect(idx('cache')).toBeLessThan(stages.indexOf('arm'));
    events.reduce((prev, e) => (expect(e.t).toBeGreaterThanOrEqual(prev), e.t), 0);
    expect(events.find((e) => e.stage === 'superseded')!.dropped!.map((d) => d.key)).toEqual(['c']);
    expect(events.find((e) => e.stage === 'quarantine')!.dropped!.map((d) => d.key)).toEqual(['q']);
    const json = JSON.parse(run(['--kb', kb.root, q, '--format', 'json', '--no-cache', '--min-overlap', '0.2'], kb).stdout) as {
      results: { id: string }[];
    };
    expect(events[events.length - 1]!.ids).toEqual(json.results.map((r) => r.id));
  });

  it('prints aligned text without colour when not on a terminal', () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'postgres pool sizing', 'size the pool'));
    const out = run(['trace', '--kb', kb.root, 'postgres pool'], kb);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^\s+\d+\.\d ms {2}start {8}query "postgres pool"/);
    expect(out.stdout).toMatch(/ms {2}result {7}1 notes/);
    expect(out.stdout).not.toContain('\u001b[');
  });
});

describe('recall explain', () => {
  it('names the stage where a note dropped out', () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'postgres pool sizing', 'size the postgres pool', { confidence: 'high' }));
    kb.write('documents/low.md', noteText('low', 'postgres pool sizing too', 'size the postgres pool', { confidence: 'low' }));
    kb.write('documents/old.md', noteText('old', 'postgres pool sizing old', 'size the postgres pool', { status: 'superseded' }));
    kb.write('documents/far.md', noteText('far', 'kafka consumer lag', 'rebalance partitions'));
    kb.write('archived/gone.md', noteText('gone', 'postgres pool archived', 'x'));
    // The first line says where the note dropped out; a second line gives its relevance against the floor.
    const full = (id: string, extra: string[] = []): string =>
      run(['explain', '--kb', kb!.root, 'postgres pool sizing', '--id', id, ...extra], kb!).stdout.trim();
    const explain = (id: string, extra: string[] = []): string => full(id, extra).split('\n')[0]!;
    expect(explain('a')).toMatch(/^a: included, rank 1 of 2/);
    expect(full('a')).toMatch(/\n {2}relevance 1\.00 ≥ floor 0\.50; deciding factor: .*; contains every query word$/);
    // A note that shares one generic word: under the floor, and explain says so and why.
    expect(full('far', ['--floor', '0.5'])).toMatch(/^far: not retrieved by any arm/);
    expect(explain('low', ['--confidence', 'HIGH'])).toMatch(
      /^low: retrieved by bm25 \(rank \d\).*then below the confidence filter: confidence LOW below HIGH$/,
    );
    expect(explain('old')).toMatch(/then retired \(superseded\): status superseded$/);
    expect(explain('low', ['--limit', '1'])).toMatch(/then cut by --limit: beyond --limit 1$/);
    expect(explain('far')).toMatch(/^far: not retrieved by any arm/);
    expect(explain('gone')).toMatch(/^gone: the note is in archived\//);
    // An unknown id is a lookup that failed: said on stderr, exit 1.
    const nope = run(['explain', '--kb', kb.root, 'postgres pool sizing', '--id', 'nope'], kb);
    expect([nope.code, nope.stdout]).toEqual([1, '']);
    expect(nope.stderr).toMatch(/^recall: nope: no note with this id/);
    expect(explain('a', ['--min-overlap', '1', '--tags', 'x'])).toMatch(/^a: included|OOD gate/);
  });

  it('reports the relevance, the floor and the deciding factor of a note under the floor, uncached by default', () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'postgres pool sizing', 'size the postgres pool', { confidence: 'high' }));
    kb.write(
      'documents/b.md',
      noteText('b', 'kafka consumer group rebalancing', 'pin partitions and raise the session timeout for the pool'),
    );
    const q = 'postgres pool sizing for kafka';
    // A cached fetch first: explain must still see the arms (it runs uncached unless --cache).
    run(['--kb', kb.root, q], kb);
    const out = run(['explain', '--kb', kb.root, q, '--id', 'b'], kb).stdout.trim();
    expect(out).toMatch(
      /^b: (retrieved by bm25 \(rank \d\).*then below the relevance floor: relevance 0\.\d\d < floor 0\.50|shown only as a weak match)/,
    );
    expect(out).toMatch(/relevance 0\.\d\d < floor 0\.50; deciding factor: .*; lacks "postgres"/);
    // The evidence it has and lacks, in words: it shares "kafka" but not the query's postgres pool.
    expect(out).toMatch(/; it shares "kafka"[^;]*( with the query)/);
  });

  it("abstains on another conversation's John, says why, and shows the title label counted in the ranking only", () => {
    kb = tempKb();
    // A conversation: John heads 12 of 16 turns (a label); nobody mentions veterans.
    const turns = ['the pottery class', 'my new job', 'a trip to the coast', 'basketball practice', 'the team dinner', 'a good book'];
    for (let i = 0; i < 12; i += 1)
      kb.write(`documents/j${i}.md`, noteText(`j${i}`, `John: about ${turns[i % 6]}`, `John: I keep thinking about ${turns[i % 6]}.`));
    for (let i = 0; i < 4; i += 1) kb.write(`documents/m${i}.md`, noteText(`m${i}`, `Maria: hello ${i}`, `Maria: how are you, ${i}?`));
    const other = 'What did John do for the veterans this week?';
    const out = run(['--kb', kb.root, other], kb);
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(
      /nothing relevant enough to return \(no note mentions "veterans"; a name alone \("john"\) does not make a note about the rest;/,
    );
    expect(run(['explain', '--kb', kb.root, other, '--id', 'j1'], kb).stdout).toMatch(
      /deciding factor: the note shares only "john" with the query, a name many notes of this KB carry/,
    );
    // On its own topic the John turn is found; the trace shows the label counted in the ranking factor.
    const own = 'What does John think about the pottery class?';
    expect(JSON.parse(run(['--kb', kb.root, own, '--format', 'json'], kb).stdout).results[0].id).toMatch(/^j(0|6)$/);
    const labelled = / × (\d\.\d{3}) {2}relevance (\d\.\d{3}) \(title labels counted\)/.exec(
      run(['trace', '--kb', kb.root, own], kb).stdout,
    );
    expect(labelled).not.toBeNull();
    expect(Number(labelled![1])).toBeGreaterThan(Number(labelled![2]));
  });

  it("says how much of a lexical score the note's episode lent it, in explain and in trace", () => {
    kb = tempKb();
    // Two notes archived at one moment (one session): the half-matching "pick" borrows from "films".
    const at = (text: string): string => text.replace('---\n## Learning', '---\n<!-- archived: 2023-08-21T10:00:00 -->\n\n## Learning');
    kb.write('documents/films.md', at(noteText('films', 'fantasy films with Tim', 'Tim loves fantasy films')));
    kb.write('documents/pick.md', at(noteText('pick', 'favourite pick', 'Star Wars, my favourite movie')));
    kb.write('documents/night.md', noteText('night', 'movie night', 'movie night, a movie'));
    const q = 'fantasy movies';
    const explain = run(['explain', '--kb', kb.root, q, '--id', 'pick'], kb).stdout;
    expect(explain).toMatch(/\n {2}\d+\.\d\d of its BM25 score \d+\.\d\d was lent by a note archived at the same moment/);
    expect(run(['explain', '--kb', kb.root, q, '--id', 'night'], kb).stdout).not.toMatch(/lent by/);
    const trace = run(['trace', '--kb', kb.root, q], kb).stdout;
    expect(trace).toMatch(/\d\. pick {2}\d+\.\d{3} \(\d+\.\d{3} from its episode\)/);
    expect(trace).toMatch(/\d\. films {2}\d+\.\d{3}\n/);
    // Off: no context, nothing lent.
    expect(run(['explain', '--kb', kb.root, q, '--id', 'pick'], kb, { RECALL_EPISODE_WEIGHT: '0' }).stdout).not.toMatch(/lent by/);
  });
});

describe('recall replay', () => {
  it('reports exactly what one edited note and one changed alpha change across 20 logged recalls', () => {
    kb = tempKb();
    const topics = [
      'alpha',
      'bravo',
      'charlie',
      'delta',
      'echo',
      'foxtrot',
      'golf',
      'hotel',
      'india',
      'juliet',
      'kilo',
      'lima',
      'mike',
      'november',
      'oscar',
      'papa',
      'quebec',
      'romeo',
    ];
    for (const t of topics) kb.write(`documents/${t}.md`, noteText(t, `${t} topic`, `notes about ${t}word only`));
    // Two notes for one query: "lexical" matches it a little better, "trusted" has high confidence.
    kb.write(
      'documents/lexical.md',
      noteText('lexical', 'sierra tango procedure', 'sierra tango procedure checklist', { confidence: 'low' }),
    );
    kb.write('documents/trusted.md', noteText('trusted', 'sierra tango procedure', 'sierra tango procedure', { confidence: 'high' }));
    const queries = [...topics.map((t) => `${t}word`), 'sierra tango procedure checklist', 'nothing matches zzzqqq'];
    expect(queries).toHaveLength(20);
    for (const q of queries) expect(run(['--kb', kb.root, q, '--no-cache', '--format', 'json'], kb).code).toBe(0);
    const before = run(['replay', '--json'], kb);
    expect(JSON.parse(before.stdout)).toMatchObject({ replayed: 20, changed: 0 });
    // Change one note (golf no longer answers its query) and one alpha (confidence no longer counts).
    const golf = kb.write('documents/golf.md', noteText('golf', 'golf topic', 'rewritten about something else'));
    touchLater(golf);
    const after = run(['replay', '--json', '--fail-on-change'], kb, { RECALL_CONFIDENCE_ALPHA: '0' });
    expect(after.code).toBe(1);
    const report = JSON.parse(after.stdout) as {
      replayed: number;
      changed: number;
      diffs: { query: string; changed: boolean; added: string[]; removed: string[]; moved: [string, number, number][] }[];
    };
    expect(report.replayed).toBe(20);
    const changed = report.diffs
      .filter((d) => d.changed)
      .map((d) => ({ query: d.query, added: d.added, removed: d.removed, moved: d.moved }));
    expect(changed).toEqual([
      { query: 'golfword', added: [], removed: ['golf'], moved: [] },
      {
        query: 'sierra tango procedure checklist',
        added: [],
        removed: [],
        moved: [
          ['lexical', 2, 1],
          ['trusted', 1, 2],
        ],
      },
    ]);
    // Replay writes no log lines.
    const lines = fs.readFileSync(path.join(kb.state, 'recall_log.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(20);
    const text = run(['replay'], kb, { RECALL_CONFIDENCE_ALPHA: '0' }).stdout;
    expect(text).toMatch(/replayed 20 recalls from .*: 2 would change/);
    expect(text).toContain('  - golf');
    expect(text).toContain('  ~ lexical: rank 2 → 1');
  });

  it('reads old (reference) log lines and rejects a missing log', () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'postgres pool', 'postgres pool'));
    fs.mkdirSync(kb.state, { recursive: true });
    fs.writeFileSync(
      path.join(kb.state, 'old.jsonl'),
      `${JSON.stringify({ ts: '2026-01-01T10:00:00', query: 'postgres pool', mode: 'naive', count: 1, cached: false, cache_tier: null })}\nnot json\n`,
    );
    const r = run(['replay', path.join(kb.state, 'old.jsonl'), '--json'], kb, { GLOBAL_LEARNINGS_PATH: kb.root });
    // The unreadable line is reported and counted as a change (a replay gate must not pass over it).
    expect(JSON.parse(r.stdout)).toMatchObject({
      replayed: 1,
      skipped: 1,
      changed: 2,
      diffs: [{ added: ['a'] }, { line: 2, changed: true, error: expect.stringMatching(/unreadable record/) }],
    });
    const missing = run(['replay', '/nonexistent/log.jsonl'], kb);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no recall log to replay/);
  });
});
