"""Regression checkpoints in the layout of Carbon's fine-tuning recipes, written by transformers
itself (LlamaForSequenceClassification.save_pretrained from a language model's backbone, beside a
malinois-style run_config.json), and the recipe's own evaluation of them: shared by the
predictor's parity test and the evolution test."""
import json
import os
import shutil

import numpy as np
import torch
from transformers import LlamaConfig, LlamaForCausalLM, LlamaForSequenceClassification

from carbon_testlib import padded_batch

TARGETS = ["K562", "HepG2", "SKNSH"]
TRANSFORM = {"K562": (0.31, 1.7), "HepG2": (-0.2, 0.9), "SKNSH": (1.1, 2.3)}


def reverse_complement(seq):
    return seq.strip().translate(str.maketrans("ACGTacgt", "TGCAtgca"))[::-1]


def make_predictor(d, name, lm, dtype, pad=None, problem_type="regression", edit=None):
    """A regression checkpoint written by transformers from the language model `lm`'s backbone."""
    out = os.path.join(d, name)
    shutil.rmtree(out, ignore_errors=True)
    best = os.path.join(out, "best_model")
    cfg = LlamaConfig.from_pretrained(lm)
    cfg.architectures = ["LlamaForSequenceClassification"]
    cfg.num_labels = len(TARGETS)
    cfg.id2label = {i: f"{t}_scaled" for i, t in enumerate(TARGETS)}
    cfg.label2id = {f"{t}_scaled": i for i, t in enumerate(TARGETS)}
    cfg.problem_type = problem_type
    cfg.pad_token_id = pad if pad is not None else cfg.eos_token_id
    model = LlamaForSequenceClassification(cfg)
    base = LlamaForCausalLM.from_pretrained(lm, dtype=torch.float32)
    model.model.load_state_dict(base.model.state_dict())
    torch.manual_seed(7)
    with torch.no_grad():
        model.score.weight.normal_(0.0, 0.5)
    model = model.to(torch.bfloat16 if dtype == "bf16" else torch.float32)
    model.save_pretrained(best)
    for f in os.listdir(lm):
        if f.startswith("tokenizer") or f == "special_tokens_map.json":
            shutil.copy(os.path.join(lm, f), best)
    with open(os.path.join(out, "run_config.json"), "w") as f:
        json.dump({"dna_mode": "auto_dna_tags", "rc_eval_average": True, "max_length": 512,
                   "label_transform": {t: {"column": f"{t}_log2FC", "center": c, "scale": s} for t, (c, s) in TRANSFORM.items()}},
                  f, indent=2)
    if edit:
        edit(best)
    return best


def reference(best, seqs, dtype):
    """The recipe's evaluation: padded batches of 5, forward and reverse complement, unscaled."""
    model = LlamaForSequenceClassification.from_pretrained(best, dtype=torch.float32 if dtype != "bf16-native" else torch.bfloat16)
    model.eval()
    pad = model.config.pad_token_id

    def predict(texts):
        rows = []
        for b in range(0, len(texts), 5):
            ids, mask, _ = padded_batch(best, texts[b:b + 5], pad)
            with torch.no_grad():
                rows.append(model(input_ids=ids, attention_mask=mask).logits.float().numpy())
        return np.concatenate(rows).astype(np.float64)

    values = 0.5 * (predict(seqs) + predict([reverse_complement(s) for s in seqs]))
    for j, t in enumerate(TARGETS):
        c, s = TRANSFORM[t]
        values[:, j] = values[:, j] * s + c
    return values
