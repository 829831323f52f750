/**
 * `npm run compare:qmd -- --qmd /path/to/qmd [--kb DIR --queries FILE --class exact]`
 *
 * Compares the BM25 arm on the embedded FTS5 index with the BM25 arm through a real qmd install
 * (qmd is not a dependency: install it anywhere, e.g. `@tobilu/qmd@2.5.3`, and pass its binary).
 * qmd gets an isolated index (temp XDG dirs) with a `learnings` collection over the KB's documents/.
 * For each labelled query of the class it prints both top-5 lists, whether the top notes agree,
 * what a plain `qmd search "<prompt>"` returns (qmd ANDs words), and the latency of each path.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { lastValueFrom } from 'rxjs';
import yaml from 'js-yaml';
import { openIndex, refreshIndex, closeIndex } from '../sources/index/index.js';
import { bm25Arm, qmdArm, parseQmdOutput } from '../sources/arms/index.js';

function arg(name: string, def?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : def;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

async function main(): Promise<void> {
  const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const qmd = arg('qmd');
  if (!qmd || !fs.existsSync(qmd)) throw new Error('pass --qmd /path/to/qmd (a qmd binary; it is not a dependency of recall)');
  const kb = path.resolve(arg('kb') ?? path.join(repo, '..', 'shared', 'eval', 'golden'));
  const queriesFile = path.resolve(arg('queries') ?? path.join(kb, 'golden_queries.yaml'));
  const cls = arg('class', 'exact')!;
  const data = yaml.load(fs.readFileSync(queriesFile, 'utf8')) as {
    queries: { id: string; class: string; query: string; relevant: string[] }[];
  };
  const queries = data.queries.filter((q) => q.class === cls);

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-qmd-'));
  const env = { ...process.env, XDG_CACHE_HOME: path.join(tmp, 'cache'), XDG_CONFIG_HOME: path.join(tmp, 'config') };
  const add = spawnSync(qmd, ['collection', 'add', path.join(kb, 'documents'), '--name', 'learnings'], { env, encoding: 'utf8' });
  if (add.status !== 0) throw new Error(`qmd collection add failed: ${add.stderr}`);
  const index = openIndex(kb, path.join(tmp, 'state'));
  refreshIndex(index);
  const lines: string[] = [];
  const tEmbedded: number[] = [];
  const tQmd: number[] = [];
  let agreeTop1 = 0;
  let plainHits = 0;
  try {
    for (const q of queries) {
      let t0 = performance.now();
      const emb = (await lastValueFrom(bm25Arm(q.query, 5, index))).map((h) => h.note.key);
      tEmbedded.push(performance.now() - t0);
      t0 = performance.now();
      const viaQmd = (await lastValueFrom(qmdArm(q.query, { bin: qmd, collection: 'learnings', env, index, limit: 5 }))).map(
        (h) => h.note.key,
      );
      tQmd.push(performance.now() - t0);
      const plain = spawnSync(qmd, ['search', q.query, '-c', 'learnings', '--json'], { env, encoding: 'utf8' });
      const plainCount = parseQmdOutput(plain.stdout, 'learnings').length;
      if (plainCount > 0) plainHits += 1;
      const same = emb[0] === viaQmd[0];
      if (same) agreeTop1 += 1;
      lines.push(`${q.id}  top-1 ${same ? 'same' : 'DIFFERENT'}  relevant ${q.relevant.join(',')}`);
      lines.push(`   embedded: ${emb.join(', ')}`);
      lines.push(`   via qmd:  ${viaQmd.join(', ')}`);
      lines.push(`   plain qmd search "<prompt>": ${plainCount} hits`);
    }
  } finally {
    closeIndex(index);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const ver = spawnSync(qmd, ['--version'], { encoding: 'utf8' }).stdout.trim();
  process.stdout.write(
    [
      `BM25 arm: embedded FTS5 vs qmd ${ver || ''} (${qmd}) on ${queries.length} "${cls}" queries of ${queriesFile}`,
      '',
      ...lines,
      '',
      `top-1 agreement: ${agreeTop1}/${queries.length}; plain qmd search with the prompt returned anything for ${plainHits}/${queries.length}`,
      `latency per query, median: embedded ${median(tEmbedded).toFixed(1)} ms (in-process), via qmd ${median(tQmd).toFixed(0)} ms (${'processes'})`,
    ].join('\n') + '\n',
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`compare-qmd: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
