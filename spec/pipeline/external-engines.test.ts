/**
 * External engines through fake `reflect` and `qmd` executables on a temp PATH: real-format output,
 * a hang past the timeout (with a grandchild), a crash, garbage, an error envelope.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { recallIn, ids } from '../helpers/run.js';
import { waitFor } from '../helpers/wait.js';

let kb: TempKb;
afterEach(() => kb?.cleanup());

function fakeBin(k: TempKb, name: string, script: string): string {
  const dir = path.join(path.dirname(k.root), 'bin');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  return dir;
}

function envWith(binDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: `${binDir}:${process.env['PATH'] ?? ''}`, ...extra };
}

/** Printed by a fake engine: JSON in a file next to the script (avoids shell quoting). */
function printJson(k: TempKb, name: string, value: unknown): string {
  const file = path.join(path.dirname(k.root), `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(value));
  return `cat '${file}'`;
}

function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

function baseKb(): TempKb {
  const k = tempKb();
  k.write('documents/lex.md', noteText('lex', 'pool sizing', 'connection pool sizing for bursts'));
  k.write('documents/vec.md', noteText('vec', 'unrelated words', 'nothing lexical in common'));
  k.write('documents/ent.md', noteText('ent', 'other words', 'also nothing in common'));
  k.write('documents/ent.entities.yaml', 'document_id: ent\nentities:\n  - name: "redis-connection-pool"\n    type: technology\n');
  fs.mkdirSync(path.join(k.root, 'nano_graphrag_cache'));
  return k;
}

const chunk = (id: string, body: string): string => `---\nid: ${id}\ntitle: "${id} title"\n---\n${body}`;

describe('reflect engine', () => {
  it('parses naive chunks (dropping continuation and refusal chunks) and local CSV sections', async () => {
    kb = baseKb();
    const naive = printJson(kb, 'naive', {
      query: 'q',
      mode: 'naive',
      context: [
        chunk('vec', 'semantic match'),
        'a continuation chunk without frontmatter',
        chunk('remote-only', 'a note the engine has but our index does not'),
        "Sorry, I'm not able to provide an answer to that question.",
      ].join('\n--New Chunk--\n'),
    });
    const local = printJson(kb, 'local', {
      query: 'q',
      mode: 'local',
      context:
        '-----Reports-----\n```csv\nid,\tcontent\n```\n-----Entities-----\n```csv\nid,\tentity,\ttype,\tdescription,\trank\n0,\t"REDIS-CONNECTION-POOL",\t"TECHNOLOGY",\t"client pool",\t3\n```\n' +
        '-----Relationships-----\n```csv\nid,\tsource,\ttarget,\tdescription,\tweight,\trank\n```\n' +
        `-----Sources-----\n\`\`\`csv\nid,\tcontent\n0,\t${chunk('lex', 'multi\nline, with,\tcommas')}\n1,\tcontinuation text only\n\`\`\``,
    });
    const bin = fakeBin(kb, 'reflect', `case "$*" in *"--mode naive"*) ${naive};; *"--mode local"*) ${local};; esac`);
    const r = await recallIn(kb, 'connection pool sizing', {}, { env: envWith(bin) });
    const byKey = Object.fromEntries(r.outcome!.results.map((c) => [c.note.key, Object.keys(c.ranks)]));
    expect(byKey['vec']).toEqual(['vector']);
    expect(byKey['remote-only']).toEqual(['vector']);
    expect(byKey['lex']).toEqual(expect.arrayContaining(['bm25', 'graph']));
    expect(byKey['ent']).toEqual(['graph']);
    expect(r.outcome!.results.find((c) => c.note.key === 'vec')!.note.path).toBe('documents/vec.md');
    expect(r.outcome!.degraded.filter((d) => d.stage.startsWith('arm:'))).toEqual([]);
  });

  it('kills a hung engine and its children at the timeout and keeps the other arms', async () => {
    kb = baseKb();
    const pidFile = path.join(path.dirname(kb.root), 'pids');
    const bin = fakeBin(kb, 'reflect', `sleep 300 & echo $! >> '${pidFile}'\necho $$ >> '${pidFile}'\nwait`);
    const t0 = Date.now();
    const r = await recallIn(
      kb,
      'connection pool sizing',
      {},
      { env: envWith(bin, { RECALL_VECTOR_TIMEOUT: '1', RECALL_GRAPH_TIMEOUT: '1' }) },
    );
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(ids(r)).toContain('lex');
    expect(
      r
        .outcome!.arms.filter((a) => a.status === 'timeout')
        .map((a) => a.arm)
        .sort(),
    ).toEqual(['graph', 'vector']);
    const pids = fs.readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
    expect(pids).toHaveLength(4);
    // SIGKILL is delivered at once but reaped a little later: wait for every process to be gone.
    await waitFor(() => !pids.some(isAlive), 20_000, 50);
    expect(pids.filter(isAlive)).toEqual([]);
  });

  it.each([
    ['a crash', 'echo "engine exploded: index missing" >&2; exit 3', /exit 3\): engine exploded: index missing/],
    ['garbage', 'echo "<html>not json"', /not JSON/],
    ['an error envelope', `echo '{"query":"q","mode":"naive","error":"graph store locked","results":[]}'`, /graph store locked/],
  ])('degrades on %s and still returns the BM25 results', async (_name, script, message) => {
    kb = baseKb();
    const bin = fakeBin(kb, 'reflect', script);
    const r = await recallIn(kb, 'connection pool sizing', {}, { env: envWith(bin) });
    expect(ids(r)).toEqual(['lex']);
    const vector = r.outcome!.degraded.find((d) => d.stage === 'arm:vector');
    expect(vector).toMatchObject({ reason: 'error' });
    expect(vector!.message).toMatch(message);
  });

  it('uses the embedded engine unless the KB has a reflect index (auto), or when told to', async () => {
    kb = baseKb();
    fs.rmSync(path.join(kb.root, 'nano_graphrag_cache'), { recursive: true });
    const bin = fakeBin(kb, 'reflect', 'echo "should not run" >&2; exit 9');
    const auto = await recallIn(kb, 'connection pool sizing', {}, { env: envWith(bin) });
    expect(auto.outcome!.arms.find((a) => a.arm === 'vector')!.status).toBe('unavailable');
    const forced = await recallIn(kb, 'connection pool sizing', {}, { env: envWith(bin, { RECALL_ENGINE: 'reflect' }) });
    expect(forced.outcome!.arms.find((a) => a.arm === 'vector')!.message).toMatch(/exit 9/);
    const missing = await recallIn(kb, 'connection pool sizing', {}, { env: { RECALL_ENGINE: 'reflect', PATH: '/nonexistent' } });
    expect(missing.outcome!.degraded).toContainEqual(
      expect.objectContaining({ stage: 'engine', message: expect.stringMatching(/not on PATH/) as unknown as string }),
    );
  });
});

describe('qmd engine', () => {
  it('sends keyword queries instead of the sentence and maps qmd paths to notes', async () => {
    kb = baseKb();
    const argLog = path.join(path.dirname(kb.root), 'qmd-args');
    const json = printJson(kb, 'qmd', [{ docid: '#1', score: 0.9, file: 'qmd://learnings/lex.md', line: 3, title: 'x', snippet: '' }]);
    const bin = fakeBin(kb, 'qmd', `echo "$2" >> '${argLog}'\n${json}`);
    const r = await recallIn(
      kb,
      'how do we size the connection pool for bursts?',
      {},
      { env: envWith(bin, { RECALL_BM25_ENGINE: 'qmd' }) },
    );
    expect(r.outcome!.results.find((c) => c.note.key === 'lex')!.ranks.bm25).toBe(1);
    // All content terms together (AND in qmd), then each term alone (OR across the fused lists).
    const sent = fs.readFileSync(argLog, 'utf8').trim().split('\n').sort();
    expect(sent).toEqual(['bursts', 'connection', 'pool', 'size', 'size connection pool bursts']);
  });

  it('reports qmd failures with its stderr', async () => {
    kb = baseKb();
    const bin = fakeBin(kb, 'qmd', 'echo "Collection not found: learnings" >&2; exit 1');
    const r = await recallIn(kb, 'connection pool sizing', {}, { env: envWith(bin, { RECALL_BM25_ENGINE: 'qmd' }) });
    expect(r.outcome!.degraded).toContainEqual({
      stage: 'arm:bm25',
      reason: 'error',
      message: 'qmd search exited 1: Collection not found: learnings',
    });
  });
});

describe('--mode local', () => {
  it('makes the graph arm the primary arm and does not run it twice', async () => {
    kb = baseKb();
    fs.rmSync(path.join(kb.root, 'nano_graphrag_cache'), { recursive: true });
    const r = await recallIn(kb, 'redis connection pool', { mode: 'local' });
    expect(r.outcome!.results.find((c) => c.note.key === 'ent')!.ranks).toHaveProperty('vector');
    expect(r.outcome!.arms.find((a) => a.arm === 'graph')).toMatchObject({ status: 'disabled' });
  });
});
