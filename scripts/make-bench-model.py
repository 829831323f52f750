#!/usr/bin/env python3
"""Random-weight BERT models of the real MiniLM-L6 shape, for latency benchmarks only.

Usage: /usr/bin/python3 scripts/make-bench-model.py OUT_DIR
Needs python3-onnx and numpy (Debian: apt-get install python3-onnx). Written at bench time into a
temporary folder and never committed (91 MB each).

Writes, in the transformers.js local layout:
  OUT_DIR/bench/minilm-embed  6 layers, hidden 384, 12 heads, FFN 1536, vocab 30522 (all-MiniLM-L6 shape)
  OUT_DIR/bench/minilm-ce     the same encoder + pooler + 1-logit head (ms-marco-MiniLM-L-6 shape)
The graph is plain ONNX (opset 17): embeddings + LayerNorm, then per layer multi-head attention
with the additive mask, residual + LayerNorm, GELU FFN, residual + LayerNorm. Random weights mean
the outputs are meaningless; the cost of running them is the real one.
"""
import itertools, json, os, string, sys
import numpy as np
import onnx
from onnx import helper, TensorProto, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bert_tokenizer import write_tokenizer  # noqa: E402

OUT = sys.argv[1]
D, H, L, F, V, P = 384, 12, 6, 1536, 30522, 512
DH = D // H
rng = np.random.default_rng(7)

letters = string.ascii_lowercase
vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + list(letters) + list(string.digits) + list(".,;:!?-_/()[]{}'\"@#$%&*+=<>")
vocab += ["##" + c for c in letters + string.digits]
two = ["".join(p) for p in itertools.product(letters, repeat=2)]
vocab += two + ["##" + t for t in two]
for t in ("".join(p) for p in itertools.product(letters, repeat=3)):
    if len(vocab) >= V - 2000:
        break
    vocab.append(t)
for t in ("".join(p) for p in itertools.product(letters, repeat=3)):
    if len(vocab) >= V:
        break
    vocab.append("##" + t)
vocab = vocab[:V]
V = len(vocab)


def w(*shape, scale=0.02):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def build(kind):
    inits, nodes = [], []

    def init(name, arr):
        inits.append(numpy_helper.from_array(arr, name))
        return name

    def node(op, ins, out, **kw):
        nodes.append(helper.make_node(op, ins, [out], **kw))
        return out

    init("word", w(V, D)); init("pos", w(P, D)); init("typ", w(2, D))
    init("ln0_g", np.ones(D, np.float32)); init("ln0_b", np.zeros(D, np.float32))
    init("zero", np.array(0, np.int64)); init("one", np.array(1, np.int64))
    init("neg", np.array(-10000.0, np.float32)); init("onef", np.array(1.0, np.float32))
    init("scale", np.array(1.0 / np.sqrt(DH), np.float32)); init("sqrt2", np.array(np.sqrt(2.0), np.float32))
    init("half", np.array(0.5, np.float32)); init("ax12", np.array([1, 2], np.int64))
    init("shape_bshd", np.array([0, 0, H, DH], np.int64)); init("shape_bsd", np.array([0, 0, D], np.int64))
    node("Shape", ["input_ids"], "ishape")
    node("Gather", ["ishape", "one"], "seqlen", axis=0)
    node("Range", ["zero", "seqlen", "one"], "posids")
    node("Gather", ["word", "input_ids"], "we", axis=0)
    node("Gather", ["pos", "posids"], "pe", axis=0)
    node("Gather", ["typ", "token_type_ids"], "te", axis=0)
    node("Add", ["we", "pe"], "e1"); node("Add", ["e1", "te"], "e2")
    x = node("LayerNormalization", ["e2", "ln0_g", "ln0_b"], "x0", axis=-1, epsilon=1e-12)
    node("Cast", ["attention_mask"], "mf", to=TensorProto.FLOAT)
    node("Sub", ["onef", "mf"], "inv"); node("Mul", ["inv", "neg"], "addm")
    node("Unsqueeze", ["addm", "ax12"], "mask4")
    for l in range(L):
        p = f"l{l}_"
        for nm in ("q", "k", "v", "o"):
            init(p + nm + "w", w(D, D)); init(p + nm + "b", np.zeros(D, np.float32))
        init(p + "f1w", w(D, F)); init(p + "f1b", np.zeros(F, np.float32))
        init(p + "f2w", w(F, D)); init(p + "f2b", np.zeros(D, np.float32))
        for nm in ("ln1", "ln2"):
            init(p + nm + "g", np.ones(D, np.float32)); init(p + nm + "b", np.zeros(D, np.float32))
        heads = {}
        for nm in ("q", "k", "v"):
            node("MatMul", [x, p + nm + "w"], p + nm + "m")
            node("Add", [p + nm + "m", p + nm + "b"], p + nm + "a")
            node("Reshape", [p + nm + "a", "shape_bshd"], p + nm + "r")
            perm = [0, 2, 3, 1] if nm == "k" else [0, 2, 1, 3]
            heads[nm] = node("Transpose", [p + nm + "r"], p + nm + "t", perm=perm)
        node("MatMul", [heads["q"], heads["k"]], p + "s")
        node("Mul", [p + "s", "scale"], p + "ss")
        node("Add", [p + "ss", "mask4"], p + "sm")
        node("Softmax", [p + "sm"], p + "pr", axis=-1)
        node("MatMul", [p + "pr", heads["v"]], p + "c")
        node("Transpose", [p + "c"], p + "ct", perm=[0, 2, 1, 3])
        node("Reshape", [p + "ct", "shape_bsd"], p + "cr")
        node("MatMul", [p + "cr", p + "ow"], p + "om"); node("Add", [p + "om", p + "ob"], p + "oa")
        node("Add", [x, p + "oa"], p + "r1")
        x1 = node("LayerNormalization", [p + "r1", p + "ln1g", p + "ln1b"], p + "x1", axis=-1, epsilon=1e-12)
        node("MatMul", [x1, p + "f1w"], p + "f1m"); node("Add", [p + "f1m", p + "f1b"], p + "f1a")
        node("Div", [p + "f1a", "sqrt2"], p + "gd"); node("Erf", [p + "gd"], p + "ge")
        node("Add", [p + "ge", "onef"], p + "gp"); node("Mul", [p + "f1a", p + "gp"], p + "gm")
        node("Mul", [p + "gm", "half"], p + "gelu")
        node("MatMul", [p + "gelu", p + "f2w"], p + "f2m"); node("Add", [p + "f2m", p + "f2b"], p + "f2a")
        node("Add", [x1, p + "f2a"], p + "r2")
        x = node("LayerNormalization", [p + "r2", p + "ln2g", p + "ln2b"], p + "x2", axis=-1, epsilon=1e-12)
    ins = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch_size", "sequence_length"])
           for n in ("input_ids", "attention_mask", "token_type_ids")]
    if kind == "embed":
        node("Identity", [x], "last_hidden_state")
        out = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch_size", "sequence_length", D])
    else:
        init("pw", w(D, D)); init("pb", np.zeros(D, np.float32)); init("cw", w(D, 1)); init("cb", np.zeros(1, np.float32))
        node("Gather", [x, "zero"], "cls", axis=1)
        node("MatMul", ["cls", "pw"], "pm"); node("Add", ["pm", "pb"], "pa"); node("Tanh", ["pa"], "pooled")
        node("MatMul", ["pooled", "cw"], "lm"); node("Add", ["lm", "cb"], "logits")
        out = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch_size", 1])
    m = helper.make_model(helper.make_graph(nodes, "bert", ins, [out], initializer=inits), opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


for kind, name, cfg in (("embed", "minilm-embed", {"architectures": ["BertModel"]}),
                        ("ce", "minilm-ce", {"architectures": ["BertForSequenceClassification"], "id2label": {"0": "LABEL_0"},
                                             "label2id": {"LABEL_0": 0}, "num_labels": 1})):
    d = f"{OUT}/bench/{name}"
    os.makedirs(f"{d}/onnx", exist_ok=True)
    onnx.save(build(kind), f"{d}/onnx/model.onnx")
    write_tokenizer(d, vocab, 512)
    json.dump({"model_type": "bert", "hidden_size": D, "vocab_size": V, "num_hidden_layers": L, "num_attention_heads": H,
               "intermediate_size": F, "max_position_embeddings": P, "type_vocab_size": 2, **cfg}, open(f"{d}/config.json", "w"))
print(f"wrote bench/minilm-embed and bench/minilm-ce ({L} layers, hidden {D}, vocab {V}) under {OUT}")
