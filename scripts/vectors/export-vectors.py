#!/usr/bin/env python3
"""Export a compact word-vector file from a fastText model trained by train.sh.

Usage: python3 scripts/vectors/export-vectors.py MODEL.bin CORPUS.txt OUT.i8 [--words 50000]

Keeps the most frequent words of the corpus (at least --min-count occurrences, at most --words),
each vector scaled to length 1 and stored as int8 with one float32 scale per word, so the cosine
of two words is dot(q_a, q_b) * scale_a * scale_b. Words outside the file have no vector (the
character n-grams fastText uses for unseen words would take ~50 MB more, so they are not shipped).

File layout (little-endian):
  8 bytes   magic "RCLWV001"
  uint32    dim, count, byte length of the word list
  bytes     the words, UTF-8, joined by "\\n", sorted by byte value (binary search, no map to build)
  padding   to a multiple of 4
  float32   scale[count]
  int8      vector[count][dim]
"""
import argparse
import collections
import struct
import subprocess
import sys

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('model')
    ap.add_argument('corpus')
    ap.add_argument('out')
    ap.add_argument('--words', type=int, default=50000)
    ap.add_argument('--min-count', type=int, default=5)
    args = ap.parse_args()

    counts = collections.Counter()
    with open(args.corpus, encoding='utf-8') as f:
        for line in f:
            counts.update(line.split())
    # Most frequent first; ties by the word itself so two runs pick the same words.
    ranked = sorted((w for w, c in counts.items() if c >= args.min_count), key=lambda w: (-counts[w], w))
    keep = sorted(ranked[: args.words], key=lambda w: w.encode('utf-8'))

    out = subprocess.run(
        ['fasttext', 'print-word-vectors', args.model],
        input='\n'.join(keep) + '\n',
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    if len(out) != len(keep):
        sys.exit(f'{args.model}: fasttext returned {len(out)} vectors for {len(keep)} words')
    vecs = np.array([line.rstrip().split(' ')[1:] for line in out], dtype=np.float64)
    for w, line in zip(keep, out):
        if line.split(' ', 1)[0] != w:
            sys.exit(f'{args.model}: vector order differs at {w!r}')
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    norms[norms == 0] = 1
    unit = vecs / norms
    peak = np.max(np.abs(unit), axis=1, keepdims=True)
    peak[peak == 0] = 1
    q = np.clip(np.rint(unit / peak * 127), -127, 127).astype(np.int8)
    # The scale makes each stored vector unit length again, so a dot product is a cosine.
    scale = 1 / np.linalg.norm(q.astype(np.float64), axis=1)
    scale[~np.isfinite(scale)] = 0

    names = '\n'.join(keep).encode('utf-8')
    dim = vecs.shape[1]
    with open(args.out, 'wb') as f:
        f.write(b'RCLWV001')
        f.write(struct.pack('<III', dim, len(keep), len(names)))
        f.write(names)
        f.write(b'\0' * ((-(20 + len(names))) % 4))
        f.write(scale.astype('<f4').tobytes())
        f.write(q.tobytes())
    size = 20 + len(names) + ((-(20 + len(names))) % 4) + 4 * len(keep) + dim * len(keep)
    print(f'{args.out}: {len(keep)} words, {dim} dimensions, {size / 1e6:.1f} MB', file=sys.stderr)


if __name__ == '__main__':
    main()
