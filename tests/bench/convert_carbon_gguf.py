#!/usr/bin/env python3
"""Runs llama.cpp's own convert_hf_to_gguf.py on a checkpoint the project generates.

The real Carbon repositories ship the HybridDNATokenizer as Python code (trust_remote_code); the
converter reads two of its attributes, `kmers` (the 4,096 6-mers) and `dna_token_to_id`. Our
generated checkpoints carry the same files minus that code, so this wrapper gives the tokenizer
transformers loads those two attributes by the layout rule of docs/carbon-spec (6-mer id =
first 6-mer id + the 6-mer read in base 4 with A=0, T=1, C=2, G=3, the first id right after
`<oov>`), checked against the checkpoint's vocab_size, and then runs the converter
unchanged (but for the pre-tokenizer's name, below):
  python convert_carbon_gguf.py LLAMA_CPP_DIR MODEL_DIR [converter arguments...]
"""
import itertools
import json
import os
import runpy
import sys


def main():
    src, model = sys.argv[1], sys.argv[2]
    sys.path[:0] = [src, os.path.join(src, "gguf-py")]
    import transformers

    with open(os.path.join(model, "tokenizer_config.json")) as f:
        decoder = json.load(f).get("added_tokens_decoder", {})
    oov = [int(i) for i, t in decoder.items() if t.get("content") == "<oov>"]
    if len(oov) != 1:
        sys.exit(f"{model}/tokenizer_config.json: no single <oov> token to place the 6-mers after")
    first = oov[0] + 1
    with open(os.path.join(model, "config.json")) as f:
        vocab_size = json.load(f)["vocab_size"]
    if first + 4096 > vocab_size:
        sys.exit(f"{model}: 4096 6-mers from id {first} do not fit vocab_size {vocab_size}")
    kmers = ["".join(p) for p in itertools.product("ATCG", repeat=6)]  # base 4, first base most significant
    ids = {k: first + i for i, k in enumerate(kmers)}

    original = transformers.AutoTokenizer.from_pretrained

    def with_dna(*args, **kwargs):
        tok = original(*args, **kwargs)
        if not hasattr(tok, "kmers"):
            # (set on the instance: the class forwards unknown attributes elsewhere)
            object.__setattr__(tok, "kmers", kmers)
            object.__setattr__(tok, "dna_token_to_id", ids)
        return tok

    transformers.AutoTokenizer.from_pretrained = with_dna

    # The converter recognises the pre-tokenizer by hashing how it splits a test text; the real
    # Carbon tokenizer is Qwen3's byte-level BPE ("qwen2" to llama.cpp), while a generated
    # checkpoint carries a small BPE vocabulary of the same rules, whose hash the list lacks.
    from conversion import base

    recognise = base.TextModel.get_vocab_base_pre

    def pre_tokenizer(self, tokenizer):
        try:
            return recognise(self, tokenizer)
        except NotImplementedError:
            return "qwen2"

    base.TextModel.get_vocab_base_pre = pre_tokenizer
    sys.argv = [os.path.join(src, "convert_hf_to_gguf.py"), model] + sys.argv[3:]
    runpy.run_path(sys.argv[0], run_name="__main__")


if __name__ == "__main__":
    main()
