"""The Carbon article's scores of a sequence computed with transformers, written independently of
the engine: the token-level score() and the base-level (FNS) track and mean S, the 4,096 DNA logits
softmaxed and marginalised per base position. Shared by the scoring parity test and the
plausibility term of the evolution test."""
import math

import torch
import torch.nn.functional as F

from carbon_testlib import dna_ids

CODE = {"A": 0, "T": 1, "C": 2, "G": 3}


def dna_token_ids(model_dir, seq):
    """<dna> 6-mers </dna> by the HybridDNATokenizer rule: upper-case, pad the last block with A,
    any non-ACGT base makes its 6-mer <oov>."""
    dna, close, oov, first = dna_ids(model_dir)
    s = seq.upper()
    ids = [dna]
    for i in range(0, len(s), 6):
        block = s[i:i + 6].ljust(6, "A")
        if all(c in CODE for c in block):
            idx = 0
            for c in block:
                idx = idx * 4 + CODE[c]
            ids.append(first + idx)
        else:
            ids.append(oov)
    ids.append(close)
    return ids, first


def fns_reference(model, model_dir, tag_ids, seq):
    """(token-level mean, base-level mean S, per-base log p track) of `seq` after `tag_ids` by a
    transformers LlamaForCausalLM: the reference score() and the FNS marginals (docs/fns.md)."""
    ids, first = dna_token_ids(model_dir, seq)
    ids = tag_ids + ids
    p = len(tag_ids) + 1  # index of the first 6-mer
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([ids])).logits[0].float()
    logp = F.log_softmax(logits[:-1], dim=-1)
    targets = torch.tensor(ids[1:])
    token = logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)[p - 1:]
    token_mean = float(token.mean())
    # Base level: the 6-mer distribution over the DNA rows only, marginalized per position.
    k = len(ids) - p - 1
    dna_logits = logits[p - 1:p - 1 + k, first:first + 4096].double()
    probs = torch.softmax(dna_logits, dim=-1).reshape(k, 4, 4, 4, 4, 4, 4)
    track = []
    s = seq.upper()
    for i, c in enumerate(s):
        t, j = divmod(i, 6)
        dims = tuple(d for d in range(1, 7) if d != j + 1)
        marg = probs[t].sum(dim=tuple(d - 1 for d in dims))
        track.append(math.log(max(float(marg[CODE[c]]), 1e-12)) if c in CODE else float("nan"))
    scored = [v for v in track if not math.isnan(v)]
    base_mean = sum(scored) / len(scored) if scored else float("nan")
    return token_mean, base_mean, track
