/**
 * Plain Okapi BM25 (k1 1.2, b 0.75) over each live note's title and body, words lower-cased with
 * function words dropped: the floor that `npm run eval` prints next to recall's figures. Built from
 * the files directly (not recall's index), so it shares none of recall's choices.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseNote } from '../core/note/index.js';
import { STOPWORDS } from '../core/terms.js';

const K1 = 1.2;
const B = 0.75;

function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length >= 2 && !STOPWORDS.has(w));
}

export interface PlainBm25 {
  /** Note keys, best first, at most k (notes that share no word with the query are left out). */
  search(query: string, k: number): string[];
}

/**
 * @param kbRoot a KB (its `documents/`) or a Claude Code memory folder (its files, MEMORY.md, the
 *   index, left out)
 * @param labels what a result is named by: the note's key, or its file name without `.md`
 */
export function plainBm25(kbRoot: string, labels: 'key' | 'file' = 'key'): PlainBm25 {
  const memoryFolder = !fs.existsSync(path.join(kbRoot, 'documents'));
  const dir = memoryFolder ? kbRoot : path.join(kbRoot, 'documents');
  const docs: { key: string; tf: Map<string, number>; len: number }[] = [];
  const df = new Map<string, number>();
  for (const name of fs.readdirSync(dir).sort()) {
    if (!name.endsWith('.md') || (memoryFolder && name === 'MEMORY.md')) continue;
    let note;
    try {
      note = parseNote(fs.readFileSync(path.join(dir, name), 'utf8'), `documents/${name}`, 'documents');
    } catch {
      continue;
    }
    const ws = words(`${note.title}\n${note.body}`);
    const tf = new Map<string, number>();
    for (const w of ws) tf.set(w, (tf.get(w) ?? 0) + 1);
    for (const w of tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
    docs.push({ key: labels === 'file' ? name.replace(/\.md$/, '') : note.key, tf, len: ws.length });
  }
  const n = docs.length;
  const avg = docs.reduce((s, d) => s + d.len, 0) / Math.max(1, n);
  const idf = (w: string): number => Math.log(1 + (n - (df.get(w) ?? 0) + 0.5) / ((df.get(w) ?? 0) + 0.5));
  return {
    search(query, k) {
      const q = [...new Set(words(query))];
      const scored: { key: string; s: number }[] = [];
      for (const d of docs) {
        let s = 0;
        for (const w of q) {
          const f = d.tf.get(w);
          if (!f) continue;
          s += idf(w) * ((f * (K1 + 1)) / (f + K1 * (1 - B + (B * d.len) / avg)));
        }
        if (s > 0) scored.push({ key: d.key, s });
      }
      return scored
        .sort((a, b) => b.s - a.s)
        .slice(0, k)
        .map((x) => x.key);
    },
  };
}
