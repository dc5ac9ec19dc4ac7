#!/usr/bin/env python3
"""Carbon GGUF files read as a model (issue 34).

Files made two ways from checkpoints the project generates:
  - by llama.cpp's own converter (convert_hf_to_gguf.py from the llama.cpp source that PyPI's
    llama-cpp-python 0.3.36 sdist vendors, which tests/setup-test-deps.sh keeps in the wheelhouse),
    at --outtype bf16 and q8_0, through tests/bench/convert_carbon_gguf.py (which only supplies the
    HybridDNA tokenizer attributes the real repositories' Python code has);
  - by the `gguf` package's GGUFWriter, with the q/k permutation written here from llama.py's
    LlamaModel.permute and the token list as _set_vocab_hybriddna builds it.
Checked:
  - a bf16 GGUF scores exactly as the checkpoint it was made from: `score --json` (full double
    precision, per-base FNS marginals and full-vocabulary token log-likelihoods) and the per-base
    tracks are byte-identical, for a tied and an untied model with grouped-query attention; the
    GGUF folder (one .gguf and no config.json) loads as the file does;
  - a Q8_0 GGUF runs its blocks as they are: the backend says so, per-base log-likelihoods stay
    within the q8_0 bounds of engine.test_q8_backend of the checkpoint's native scores and
    generation runs; `--weights int8` is refused (it would round twice); `--backend cuda` is refused;
  - hostile files are refused with the file and the reason, nothing else written: another
    architecture, a missing llama.* key, a quantisation the engine does not read (Q4_0), a Q8_0 block
    holding -128 (in q, checked at load, and in an up projection, checked as the backend takes the
    blocks), another tokenizer model, a token list without the 6-mers, RoPE frequency factors,
    head counts that do not match the tensors, a folder holding two GGUF files, a checkpoint's
    safetensors file given for its folder, and a file that is not GGUF.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import Checks, bin_path, require_modules, run, work_dir  # noqa: E402

require_modules("numpy", "torch", "safetensors", "gguf", "transformers")
import numpy as np  # noqa: E402
import torch  # noqa: E402
import gguf  # noqa: E402
from gguf import GGMLQuantizationType as Q  # noqa: E402
from safetensors.torch import load_file  # noqa: E402

T = Checks()
CLI = bin_path("carbon-cli")
WORK = work_dir("gguf-model")
HERE = os.path.dirname(os.path.abspath(__file__))
VERSION = "0.3.36"
COMMON = ["--threads", "2", "--quiet"]


def llama_cpp_source():
    """llama.cpp's converter and its packages, extracted from the sdist in the wheelhouse."""
    src = os.path.join(WORK, f"llama_cpp_python-{VERSION}", "vendor", "llama.cpp")
    if os.path.exists(os.path.join(src, "convert_hf_to_gguf.py")):
        return src
    wheels = os.environ.get("CARBON_WHEELHOUSE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "carbon-studio", "wheels")
    sdist = os.path.join(wheels, f"llama_cpp_python-{VERSION}.tar.gz")
    if not os.path.exists(sdist):
        print(f"FAIL: {sdist} is missing; tests/setup-test-deps.sh downloads it", file=sys.stderr)
        sys.exit(1)
    prefix = f"llama_cpp_python-{VERSION}/vendor/llama.cpp/"
    with tarfile.open(sdist) as tar:
        members = [m for m in tar.getmembers()
                   if m.name == prefix + "convert_hf_to_gguf.py" or m.name.startswith(prefix + "conversion/")
                   or m.name.startswith(prefix + "gguf-py/")]
        tar.extractall(WORK, members=members, filter="data")
    return src


def convert(model, outtype, out):
    if not os.path.exists(out):
        run([sys.executable, os.path.join(HERE, "..", "bench", "convert_carbon_gguf.py"), llama_cpp_source(), model,
             "--outtype", outtype, "--outfile", out])
    return out


def permute(w, n_head):
    """llama.py LlamaModel.permute: per head, the two rotary halves' rows interleaved."""
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


GGUF_NAMES = {"input_layernorm.weight": "attn_norm.weight", "self_attn.q_proj.weight": "attn_q.weight",
              "self_attn.k_proj.weight": "attn_k.weight", "self_attn.v_proj.weight": "attn_v.weight",
              "self_attn.o_proj.weight": "attn_output.weight", "post_attention_layernorm.weight": "ffn_norm.weight",
              "mlp.gate_proj.weight": "ffn_gate.weight", "mlp.up_proj.weight": "ffn_up.weight",
              "mlp.down_proj.weight": "ffn_down.weight"}


def tokens_of(model):
    """The token list, types and merges as llama.cpp's _set_vocab_hybriddna writes them."""
    with open(os.path.join(model, "tokenizer.json")) as f:
        tj = json.load(f)
    with open(os.path.join(model, "config.json")) as f:
        vocab_size = json.load(f)["vocab_size"]
    texts = {i: t for t, i in tj["model"]["vocab"].items()}
    types = {i: 1 for i in texts}
    for a in tj["added_tokens"]:
        texts[a["id"]] = a["content"]
        types[a["id"]] = 3 if a.get("special") else 4
    oov = next(a["id"] for a in tj["added_tokens"] if a["content"] == "<oov>")
    import itertools
    for i, k in enumerate("".join(p) for p in itertools.product("ATCG", repeat=6)):
        texts[oov + 1 + i] = k + "\ue000"
        types[oov + 1 + i] = 1
    tokens = [texts.get(i, f"[PAD{i}]") for i in range(vocab_size)]
    ttypes = [types.get(i, 5) for i in range(vocab_size)]
    merges = [m if isinstance(m, str) else " ".join(m) for m in tj["model"]["merges"]]
    return tokens, ttypes, merges


def write_gguf(model, path, outtype="bf16", mutate=None):
    """The checkpoint as a GGUF file written with the gguf package. `mutate(kv, tensors)` may change
    the metadata (a dict of key -> (kind, value)) or tensors (name -> (array, raw type)) first."""
    with open(os.path.join(model, "config.json")) as f:
        c = json.load(f)
    sd = load_file(os.path.join(model, "model.safetensors"))
    heads, kv_heads = c["num_attention_heads"], c["num_key_value_heads"]
    kv = {"general.architecture": ("string", "llama"), "llama.block_count": ("u32", c["num_hidden_layers"]),
          "llama.context_length": ("u32", c["max_position_embeddings"]), "llama.embedding_length": ("u32", c["hidden_size"]),
          "llama.feed_forward_length": ("u32", c["intermediate_size"]), "llama.attention.head_count": ("u32", heads),
          "llama.attention.head_count_kv": ("u32", kv_heads), "llama.rope.freq_base": ("f32", c["rope_theta"]),
          "llama.attention.layer_norm_rms_epsilon": ("f32", c["rms_norm_eps"]),
          "llama.attention.key_length": ("u32", c["head_dim"]), "llama.attention.value_length": ("u32", c["head_dim"]),
          "llama.rope.dimension_count": ("u32", c["head_dim"]), "llama.vocab_size": ("u32", c["vocab_size"]),
          "tokenizer.ggml.model": ("string", "hybriddna"), "tokenizer.ggml.pre": ("string", "qwen2")}
    tokens, ttypes, merges = tokens_of(model)
    kv["tokenizer.ggml.tokens"] = ("array", tokens)
    kv["tokenizer.ggml.token_type"] = ("i32array", ttypes)
    kv["tokenizer.ggml.merges"] = ("array", merges)
    tensors = {}
    for name, t in sd.items():
        if name == "lm_head.weight" and c.get("tie_word_embeddings"):
            continue
        if name.startswith("model.layers."):
            i, rest = name[len("model.layers."):].split(".", 1)
            gname = f"blk.{i}.{GGUF_NAMES[rest]}"
        else:
            gname = {"model.embed_tokens.weight": "token_embd.weight", "model.norm.weight": "output_norm.weight",
                     "lm_head.weight": "output.weight"}[name]
        if rest_is(name, "q_proj.weight"):
            t = permute(t, heads)
        elif rest_is(name, "k_proj.weight"):
            t = permute(t, kv_heads)
        if t.dim() == 1:
            tensors[gname] = (t.float().numpy(), Q.F32)
        elif outtype == "q8_0":
            tensors[gname] = (gguf.quants.quantize(t.float().numpy(), Q.Q8_0), Q.Q8_0)
        else:
            tensors[gname] = (t.contiguous().view(torch.int16).numpy().view(np.uint8), Q.BF16)
    if mutate:
        mutate(kv, tensors)
    w = gguf.GGUFWriter(path, kv["general.architecture"][1])
    for key, (kind, value) in kv.items():
        if key == "general.architecture":
            continue
        if kind == "string":
            w.add_string(key, value)
        elif kind == "u32":
            w.add_uint32(key, value)
        elif kind == "f32":
            w.add_float32(key, value)
        elif kind == "i32array":
            w.add_key_value(key, value, gguf.GGUFValueType.ARRAY, sub_type=gguf.GGUFValueType.INT32)
        else:
            w.add_array(key, value)
    for name, (a, raw) in tensors.items():
        w.add_tensor(name, a, raw_dtype=raw)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def rest_is(name, suffix):
    return name.startswith("model.layers.") and name.endswith(suffix)


def score(model, seqs, tag, extra=()):
    tracks = os.path.join(WORK, f"tracks-{tag}.tsv")
    p = run([CLI, "score", "--model", model, "--in", seqs, "--json", "--tracks", tracks] + COMMON + list(extra))
    with open(tracks) as f:
        return p.stdout, f.read()


def refused(model, seqs, *needles, extra=()):
    out = os.path.join(WORK, "refused.tsv")
    if os.path.exists(out):
        os.remove(out)
    p = subprocess.run([CLI, "score", "--model", model, "--in", seqs, "--tracks", out] + COMMON + list(extra),
                       capture_output=True, text=True)
    msg = p.stderr.strip()
    ok = p.returncode not in (0,) and p.returncode < 128 and all(n in msg for n in needles) and not os.path.exists(out)
    T.check(ok, f"{os.path.basename(str(model))}: refused naming {needles} (rc {p.returncode}): {msg[-400:]}")
    return msg


def logp(tracks):
    rows = [r.split("\t") for r in tracks.strip().split("\n")]
    i = rows[0].index("logp")
    return np.array([float(r[i]) for r in rows[1:] if r[i] != "NA"])


def main():
    rng = np.random.default_rng(34)
    seqs = os.path.join(WORK, "seqs.fa")
    with open(seqs, "w") as f:
        for i, n in enumerate((1, 5, 6, 7, 95, 300)):
            f.write(f">s{i}\n" + "".join(rng.choice(list("ACGT"), n)) + "\n")
        f.write(">lower_and_n\nacgtNNacgtacgtRYacgtac\n")

    models = {}
    for label, extra in (("tied", []), ("untied", ["--untie"])):
        m = os.path.join(WORK, label)
        if not os.path.exists(os.path.join(m, "config.json")):
            run([CLI, "make-test-model", "--out", m, "--seed", "5", "--kv-heads", "2"] + extra)
        models[label] = m

    for label, m in models.items():
        want = score(m, seqs, f"{label}-st")
        made = {"converter": convert(m, "bf16", os.path.join(WORK, f"{label}-converter-bf16.gguf")),
                "gguf-package": write_gguf(m, os.path.join(WORK, f"{label}-package-bf16.gguf"))}
        for how, path in made.items():
            got = score(path, seqs, f"{label}-{how}")
            T.check(got[0] == want[0], f"{label}, bf16 GGUF from the {how}: score --json equals the checkpoint's "
                                       f"(got {got[0][:300]} want {want[0][:300]})")
            T.check(got[1] == want[1], f"{label}, bf16 GGUF from the {how}: per-base tracks byte-identical")
        # A folder holding one GGUF file and no config.json is that model.
        folder = os.path.join(WORK, f"{label}-gguf-folder")
        os.makedirs(folder, exist_ok=True)
        if not os.path.exists(os.path.join(folder, "model.gguf")):
            os.symlink(made["converter"], os.path.join(folder, "model.gguf"))
        T.check(score(folder, seqs, f"{label}-folder") == want, f"{label}: a folder with one .gguf loads as the file")

        # Q8_0: the file's blocks, as they are.
        q8 = convert(m, "q8_0", os.path.join(WORK, f"{label}-converter-q8_0.gguf"))
        native = logp(want[1])
        for how, path in (("converter", q8), ("gguf-package", write_gguf(m, os.path.join(WORK, f"{label}-package-q8_0.gguf"), "q8_0"))):
            got = logp(score(path, seqs, f"{label}-{how}-q8")[1])
            d = np.abs(got - native)
            print(f"{label}, Q8_0 GGUF from the {how}: per-base |log p - native| mean {d.mean():.4f}, p99 "
                  f"{np.percentile(d, 99):.4f} over {len(d)} bases")
            T.check(len(got) == len(native) and d.mean() <= 0.025 and np.percentile(d, 99) <= 0.15 and d.mean() > 0,
                    f"{label}, Q8_0 GGUF from the {how}: within engine.test_q8_backend's q8_0 bounds (mean 0.025, p99 0.15)")
        p = run([CLI, "generate", "--model", q8, "--length", "30", "--count", "2", "--seed", "3",
                 "--out", os.path.join(WORK, f"{label}-q8.fa"), "--threads", "2", "--backend", "cpu"])
        T.check("Q8_0" in p.stderr, f"{label}: generation with the Q8_0 GGUF says its weights are the file's Q8_0 blocks: "
                                    f"{p.stderr[-300:]}")
        refused(q8, seqs, q8, "Q8_0", "int8", extra=["--weights", "int8"])
        refused(q8, seqs, "CPU", extra=["--backend", "cuda"])

    # Hostile files, each refused by name.
    m = models["untied"]

    def case(name, mutate, *needles):
        path = write_gguf(m, os.path.join(WORK, f"hostile-{name}.gguf"), mutate=mutate)
        refused(path, seqs, path, *needles)

    case("arch", lambda kv, t: kv.update({"general.architecture": ("string", "qwen2")}), "general.architecture", "qwen2")
    case("no-width", lambda kv, t: kv.pop("llama.embedding_length"), "llama.embedding_length", "missing")
    case("q4", lambda kv, t: t.update({"blk.0.ffn_up.weight": (gguf.quants.quantize(
        np.zeros((160, 64), np.float32), Q.Q4_0), Q.Q4_0)}), "blk.0.ffn_up.weight", "Q4_0")

    def minus_128(kv, t):
        a = gguf.quants.quantize(np.ones((64, 64), np.float32), Q.Q8_0).copy()
        a[3, 34 + 2 + 5] = 0x80  # row 3, block 1, value 5
        t["blk.1.attn_q.weight"] = (a, Q.Q8_0)
    case("minus128", minus_128, "blk.1.attn_q.weight", "-128", "row 3", "block 1")

    def minus_128_up(kv, t):  # checked by the CPU backend as it takes the blocks (the file is read once)
        a = gguf.quants.quantize(np.ones((160, 64), np.float32), Q.Q8_0).copy()
        a[3, 34 + 2 + 5] = 0x80
        t["blk.0.ffn_up.weight"] = (a, Q.Q8_0)
    case("minus128-up", minus_128_up, "blk.0.ffn_up.weight", "-128", "row 3", "block 1")
    case("tokenizer", lambda kv, t: kv.update({"tokenizer.ggml.model": ("string", "gpt2")}), "tokenizer.ggml.model", "hybriddna")

    def no_kmers(kv, t):  # the 6-mers' ids left unused
        tokens = kv["tokenizer.ggml.tokens"][1]
        kv["tokenizer.ggml.token_type"] = ("i32array", [5 if "\ue000" in s else y for s, y in
                                                         zip(tokens, kv["tokenizer.ggml.token_type"][1])])
        kv["tokenizer.ggml.tokens"] = ("array", [f"[PAD{i}]" if "\ue000" in s else s for i, s in enumerate(tokens)])
    case("no-kmers", no_kmers, "6-mer")
    case("rope-freqs", lambda kv, t: t.update({"rope_freqs.weight": (np.ones(8, np.float32), Q.F32)}), "rope_freqs.weight")
    case("heads", lambda kv, t: kv.update({"llama.attention.head_count_kv": ("u32", 4)}), "k_proj", "shape")

    two = os.path.join(WORK, "two-ggufs")
    os.makedirs(two, exist_ok=True)
    for n in ("a.gguf", "b.gguf"):
        if not os.path.exists(os.path.join(two, n)):
            shutil.copy(os.path.join(WORK, "untied-package-bf16.gguf"), os.path.join(two, n))
    refused(two, seqs, "a.gguf", "b.gguf", "choose one")
    # A checkpoint's file given instead of its folder, and a file that is not GGUF.
    refused(os.path.join(m, "model.safetensors"), seqs, "model.safetensors", "give the folder")
    refused(os.path.join(m, "merges.txt"), seqs, "merges.txt", "not a GGUF file")
    return T.done()


if __name__ == "__main__":
    sys.exit(main())
