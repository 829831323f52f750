#!/usr/bin/env python3
"""Build the tiny BERT-shaped ONNX fixture models used by the model tests.

Usage: /usr/bin/python3 scripts/make-fixture-models.py spec/fixtures/models
Needs python3-onnx (Debian: apt-get install python3-onnx). Deterministic (seeded), a few tens of KB.

Writes two models in the transformers.js local layout (<dir>/<id>/{config.json, tokenizer.json,
tokenizer_config.json, onnx/model.onnx, onnx/model_quantized.onnx}):
  fixture/tiny-embed  feature extraction: last_hidden_state = (word + token-type embedding) * mask
  fixture/tiny-ce     sequence classification: logits = masked-mean-pooled hidden state . w + b
It also writes <dir>/expected.json: outputs computed here with numpy, independently of onnxruntime
and transformers.js, for the tests to compare against.
No attention, no positions: enough to exercise tokenisation, pair encoding, padding, truncation,
pooling, normalisation and batching through the real onnxruntime path with exact expected outputs.
"""
import json, os, re, sys
import numpy as np
import onnx
from onnx import helper, TensorProto, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bert_tokenizer import write_tokenizer  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "spec/fixtures/models"
DIM = 32
WORDS = """
the a of and to in is it for on with as by at from or be are was this that not no but if when how
what why where which do does we our you your use used using run runs test tests testing build deploy
pool connection connections postgres redis sql database query queries index lock locks deadlock timeout
timeouts retry retries cache caching key keys session sessions token tokens auth jwt oauth cookie
server client request requests response error errors fail fails failed failure exit code crash memory
leak heap worker workers queue task tasks celery kafka docker image container kubernetes pod pods
probe probes restart git branch commit rebase merge worktree tmux kill shell zsh bash script glob
python pyenv node npm jest vitest typescript module import export webhook stripe event events
duplicate idempotency charge twice payment payments file files disk wal checkpoint sqlite log logs
grafana alert alerts metric metrics gateway proxy nginx upstream keepalive circuit breaker cascade
spike spikes traffic burst load latency slow fast size sizing limit exhausted exhaustion config
environment variable variables path launchd cron schedule time timezone date week month day
""".split()
vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + sorted(set(WORDS)) + ["##s", "##ing", "##ed", ".", ",", "?", "!", "-", ":", "/"]
V = len(vocab)
rng = np.random.default_rng(20261129)
word = rng.standard_normal((V, DIM)).astype(np.float32)
typ = (rng.standard_normal((2, DIM)) * 0.1).astype(np.float32)


def base():
    inits = [numpy_helper.from_array(word, "word_emb"), numpy_helper.from_array(typ, "type_emb"),
             numpy_helper.from_array(np.array([-1], np.int64), "axes_last")]
    nodes = [helper.make_node("Gather", ["word_emb", "input_ids"], ["we"], axis=0),
             helper.make_node("Gather", ["type_emb", "token_type_ids"], ["te"], axis=0),
             helper.make_node("Add", ["we", "te"], ["emb"]),
             helper.make_node("Cast", ["attention_mask"], ["mf"], to=TensorProto.FLOAT),
             helper.make_node("Unsqueeze", ["mf", "axes_last"], ["m3"]),
             helper.make_node("Mul", ["emb", "m3"], ["hidden"])]
    ins = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch_size", "sequence_length"])
           for n in ("input_ids", "attention_mask", "token_type_ids")]
    return inits, nodes, ins


def save(nodes, inits, ins, out, d, cfg):
    m = helper.make_model(helper.make_graph(nodes, "g", ins, [out], initializer=inits),
                          opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    os.makedirs(f"{d}/onnx", exist_ok=True)
    onnx.save(m, f"{d}/onnx/model.onnx")
    onnx.save(m, f"{d}/onnx/model_quantized.onnx")
    write_tokenizer(d, vocab, 64, indent=0, config_indent=1)
    json.dump({"model_type": "bert", "hidden_size": DIM, "vocab_size": V, "num_hidden_layers": 0,
               "num_attention_heads": 1, "max_position_embeddings": 64, "type_vocab_size": 2, **cfg},
              open(f"{d}/config.json", "w"), indent=1)


i, n, ins = base()
n.append(helper.make_node("Identity", ["hidden"], ["last_hidden_state"]))
save(n, i, ins, helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch_size", "sequence_length", DIM]),
     f"{OUT}/fixture/tiny-embed", {"architectures": ["BertModel"]})
i, n, ins = base()
i += [numpy_helper.from_array(rng.standard_normal((DIM, 1)).astype(np.float32), "w"),
      numpy_helper.from_array(np.zeros(1, np.float32), "b")]
# Masked mean pooling (sum of unmasked token states / number of tokens), so padding never changes a
# logit — as with a real cross-encoder.
n += [helper.make_node("ReduceSum", ["hidden", "axis1"], ["hs"], keepdims=0),
      helper.make_node("ReduceSum", ["m3", "axis1"], ["cnt"], keepdims=0),
      helper.make_node("Div", ["hs", "cnt"], ["p"]),
      helper.make_node("MatMul", ["p", "w"], ["mm"]), helper.make_node("Add", ["mm", "b"], ["logits"])]
i += [numpy_helper.from_array(np.array([1], np.int64), "axis1")]
save(n, i, ins, helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch_size", 1]), f"{OUT}/fixture/tiny-ce",
     {"architectures": ["BertForSequenceClassification"], "id2label": {"0": "LABEL_0"}, "label2id": {"LABEL_0": 0},
      "num_labels": 1})
# ---------------------------------------------------------------------------------------------
# Expected outputs, computed with numpy from the same weights (the tests' independent oracle).
tok_id = {t: k for k, t in enumerate(vocab)}


def tokens(text):
    return [tok_id.get(w, 1) for w in re.findall(r"[a-z0-9]+|[^\sa-z0-9]", text.lower())]


MAXLEN = 64


def encode_single(text):
    ids = [2] + tokens(text)[: MAXLEN - 2] + [3]
    return ids, [0] * len(ids)


def encode_pair(a, b):
    ta, tb = tokens(a), tokens(b)
    while len(ta) + len(tb) > MAXLEN - 3:  # longest-first truncation
        if len(ta) >= len(tb):
            ta.pop()
        else:
            tb.pop()
    ids = [2] + ta + [3] + tb + [3]
    types = [0] * (len(ta) + 2) + [1] * (len(tb) + 1)
    return ids, types


def embed(text):
    ids, types = encode_single(text)
    h = word[ids] + typ[types]
    v = h.mean(axis=0)
    return (v / np.linalg.norm(v)).tolist(), ids


W = numpy_helper.to_array([x for x in i if x.name == "w"][0])
B = numpy_helper.to_array([x for x in i if x.name == "b"][0])


def ce_logit(q, d):
    ids, types = encode_pair(q, d)
    h = word[ids] + typ[types]
    return float((h.mean(axis=0) @ W + B)[0]), ids, types


long_text = " ".join(["postgres connection pool"] * 40)
cases_embed = ["postgres connection pool", "redis cache", "Postgres, connection pool!", "zebra unknownword pool", long_text]
cases_ce = [("pool sizing", "postgres connection pool"), ("pool sizing", "redis cache"), ("postgres connection pool", "pool sizing"),
            ("deadlock", long_text)]
expected = {
    "embed": [{"text": t, "vector": v, "input_ids": ids} for t in cases_embed for v, ids in [embed(t)]],
    "rerank": [{"query": q, "text": d, "logit": l, "input_ids": ids, "token_type_ids": ty} for q, d in cases_ce for l, ids, ty in [ce_logit(q, d)]],
}
json.dump(expected, open(f"{OUT}/expected.json", "w"), indent=1)
print(f"wrote fixture/tiny-embed and fixture/tiny-ce ({V} tokens, dim {DIM}) under {OUT}")
