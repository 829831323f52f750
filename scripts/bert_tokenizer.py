"""Tokenizer files of a BERT-style WordPiece model in the transformers.js local layout, shared by
make-fixture-models.py and make-bench-model.py (special tokens [PAD] [UNK] [CLS] [SEP] [MASK] first)."""
import json


def write_tokenizer(d, vocab, max_len, indent=None, config_indent=None):
    sp = lambda t: {"SpecialToken": {"id": t[0], "type_id": t[1]}}
    sq = lambda t: {"Sequence": {"id": t[0], "type_id": t[1]}}
    json.dump({"version": "1.0", "truncation": None, "padding": None,
               "added_tokens": [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                                 "normalized": False, "special": True} for i, t in enumerate(vocab[:5])],
               "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                              "strip_accents": None, "lowercase": True},
               "pre_tokenizer": {"type": "BertPreTokenizer"},
               "post_processor": {"type": "TemplateProcessing",
                                  "single": [sp(("[CLS]", 0)), sq(("A", 0)), sp(("[SEP]", 0))],
                                  "pair": [sp(("[CLS]", 0)), sq(("A", 0)), sp(("[SEP]", 0)), sq(("B", 1)), sp(("[SEP]", 1))],
                                  "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                                                     "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}},
               "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
               "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                         "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(vocab)}}},
              open(f"{d}/tokenizer.json", "w"), indent=indent)
    json.dump({"tokenizer_class": "BertTokenizer", "do_lower_case": True, "model_max_length": max_len,
               "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]",
               "mask_token": "[MASK]"}, open(f"{d}/tokenizer_config.json", "w"), indent=config_indent)
