#!/usr/bin/env python3
"""safetensors/config interop with the Python reference: files written by `safetensors.torch` and
transformers' save_pretrained open with the engine; files the engine writes open with
`safetensors.torch.load_file`; config.json RoPE fields match transformers' own resolution.

Drives tests/tools/carbon_safetensors_dump ($CARBON_BIN). Exit 77 (skipped) when the Python
reference is missing and CARBON_ALLOW_NO_PYTHON_REF=1, otherwise 1 with the reason.
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

FAILURES = []


def fail(msg):
    FAILURES.append(msg)
    print("FAIL " + msg, flush=True)


def check(cond, msg):
    if not cond:
        fail(msg)


def close(a, b, tol=1e-9):
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def missing_reference(why):
    if os.environ.get("CARBON_ALLOW_NO_PYTHON_REF") == "1":
        print("SKIP python reference unavailable: " + why)
        sys.exit(77)
    print("ERROR python reference unavailable: " + why +
          " (install torch, safetensors and transformers, or set CARBON_ALLOW_NO_PYTHON_REF=1 to skip)")
    sys.exit(1)


try:
    import torch
    from safetensors.torch import load_file, save_file
except Exception as e:  # noqa: BLE001 - any import failure means no reference
    missing_reference("cannot import torch/safetensors: %s" % e)

try:
    warnings.filterwarnings("ignore")
    import transformers
    from transformers import LlamaConfig, LlamaForCausalLM
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
    transformers.logging.set_verbosity_error()
except Exception as e:  # noqa: BLE001
    missing_reference("cannot import transformers: %s" % e)


def find_tool():
    name = "carbon_safetensors_dump"
    bin_dir = os.environ.get("CARBON_BIN")
    candidates = [os.path.join(bin_dir, name)] if bin_dir else []
    candidates.append(shutil.which(name) or "")
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return c
    print("ERROR cannot find %s (set CARBON_BIN to the build's bin directory; looked in %s)" % (name, candidates))
    sys.exit(1)


TOOL = find_tool()


def run_tool(*args, expect_ok=True):
    p = subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=120)
    try:
        out = json.loads(p.stdout)
    except json.JSONDecodeError:
        fail("%s %s: rc=%d, unparsable output %r, stderr %r" % (TOOL, args, p.returncode, p.stdout, p.stderr))
        return {}
    if expect_ok and p.returncode != 0:
        fail("%s %s failed: %s" % (TOOL, args, out.get("error", p.stderr)))
    return out


def st_dtype(t):
    return {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16"}[t]


def python_to_engine(work):
    """Python writes (torch order, alignment and metadata); the engine must read the same values."""
    g = torch.Generator().manual_seed(1)
    tensors = {
        "a.f32": torch.randn(5, 7, generator=g),
        "b.f16": torch.randn(3, 1, 4, generator=g).half(),
        "c.bf16": torch.randn(11, generator=g).bfloat16(),
        "d.scalar": torch.tensor(2.5),
        "e.empty": torch.zeros(0, 4, dtype=torch.bfloat16),
        "f.odd": torch.randn(3, generator=g).half(),
    }
    path = os.path.join(work, "from_python.safetensors")
    save_file(tensors, path, metadata={"format": "pt", "note": "interop"})
    out = run_tool(path)
    got = out.get("tensors", {})
    check(sorted(got) == sorted(tensors), "engine sees tensors %s, python wrote %s" % (sorted(got), sorted(tensors)))
    for name, t in tensors.items():
        g_t = got.get(name)
        if not g_t:
            continue
        check(g_t["dtype"] == st_dtype(t.dtype), "%s dtype %s vs %s" % (name, g_t["dtype"], t.dtype))
        check(g_t["shape"] == list(t.shape), "%s shape %s vs %s" % (name, g_t["shape"], list(t.shape)))
        check(g_t["nbytes"] == t.numel() * t.element_size(), "%s nbytes %s" % (name, g_t["nbytes"]))
        want = t.double().sum().item()
        check(close(g_t["sum"], want, 1e-6), "%s sum %r vs python %r" % (name, g_t["sum"], want))

    # A unsupported dtype written by Python must be refused with a message naming it.
    bad = os.path.join(work, "int64.safetensors")
    save_file({"ids": torch.arange(4)}, bad)
    out = run_tool(bad, expect_ok=False)
    check("unsupported dtype I64" in out.get("error", "") and bad in out.get("error", ""),
          "I64 tensor: expected an unsupported-dtype error naming the file, got %r" % out)


def value(i, k):
    return float((i * 37 + k * 11) % 101 - 50) / 16.0


def engine_to_python(work):
    """The engine writes; safetensors.torch must load exactly the values the tool put there."""
    d = os.path.join(work, "from_engine")
    shutil.rmtree(d, ignore_errors=True)
    run_tool("--write", d)
    expect = {  # name -> (dtype, shape, k), as in carbon_safetensors_dump.cpp
        "f32.matrix": (torch.float32, [3, 5], 0), "f16.vector": (torch.float16, [7], 1),
        "bf16.cube": (torch.bfloat16, [2, 3, 4], 2), "scalar": (torch.float32, [], 3),
        "empty": (torch.bfloat16, [0, 3], 4), "odd.bf16": (torch.bfloat16, [3], 5),
        "after.odd": (torch.float32, [2], 6),
    }

    def compare(loaded, where):
        check(sorted(loaded) == sorted(expect), "%s: python sees %s" % (where, sorted(loaded)))
        for name, (dt, shape, k) in expect.items():
            t = loaded.get(name)
            if t is None:
                continue
            check(t.dtype == dt and list(t.shape) == shape, "%s: %s is %s %s" % (where, name, t.dtype, list(t.shape)))
            n = t.numel()
            want = torch.tensor([value(i, k) for i in range(n)], dtype=torch.float32).to(dt).reshape(shape)
            check(torch.equal(t, want), "%s: %s values differ: %s vs %s" % (where, name, t, want))

    single = os.path.join(d, "single.safetensors")
    compare(load_file(single), single)
    with open(single, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
    check(n % 8 == 0, "header length %d is not a multiple of 8" % n)
    check(header.get("__metadata__") == {"format": "pt"}, "metadata %r" % header.get("__metadata__"))

    sharded = os.path.join(d, "sharded")
    with open(os.path.join(sharded, "model.safetensors.index.json")) as f:
        index = json.load(f)
    loaded = {}
    for shard in sorted(set(index["weight_map"].values())):
        part = load_file(os.path.join(sharded, shard))
        for name in part:
            check(index["weight_map"].get(name) == shard, "%s is in %s but the index says %s"
                  % (name, shard, index["weight_map"].get(name)))
        loaded.update(part)
    compare(loaded, sharded)
    total = sum(t.numel() * t.element_size() for t in loaded.values())
    check(index["metadata"]["total_size"] == total, "total_size %s vs %d" % (index["metadata"], total))
    # And the engine reads its own shards back.
    out = run_tool(sharded)
    check(len(out.get("files", [])) == len(set(index["weight_map"].values())), "shards opened: %s" % out.get("files"))


TINY = dict(vocab_size=96, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, max_position_embeddings=256)


def transformers_checkpoint(work):
    """save_pretrained output (transformers 5 config keys, shards, tied and untied) opens as a Checkpoint."""
    cases = [
        ("untied_bf16_sharded", dict(tie_word_embeddings=False), torch.bfloat16, "8KB"),
        ("tied_f16", dict(tie_word_embeddings=True), torch.float16, "50MB"),
        ("bias_f32_yarn", dict(attention_bias=True, mlp_bias=True, head_dim=16, rope_theta=5e6,
                               rope_scaling={"rope_type": "yarn", "factor": 4.0,
                                             "original_max_position_embeddings": 64}),
         torch.float32, "50MB"),
    ]
    for name, extra, dtype, shard in cases:
        torch.manual_seed(0)
        cfg = LlamaConfig(**TINY, **extra)
        model = LlamaForCausalLM(cfg).to(dtype)
        d = os.path.join(work, name)
        shutil.rmtree(d, ignore_errors=True)
        model.save_pretrained(d, max_shard_size=shard)
        out = run_tool("--checkpoint", d)
        if not out or "error" in out:
            continue
        want_params = sum(p.numel() for p in model.parameters())  # tied weights counted once
        check(out["parameter_count"] == want_params,
              "%s: parameter_count %s vs torch %d" % (name, out["parameter_count"], want_params))
        check(out["weights_dtype"] == str(dtype).split(".")[-1], "%s: dtype %s" % (name, out["weights_dtype"]))
        check(out["lm_head_is_embedding"] == bool(cfg.tie_word_embeddings), "%s: tying %s" % (name, out))
        check(out["head_dim"] == cfg.head_dim and out["num_key_value_heads"] == cfg.num_key_value_heads,
              "%s: head_dim/kv %s" % (name, out))
        sd = model.state_dict()
        got = out["archive"]["tensors"]
        for key, t in sd.items():
            if cfg.tie_word_embeddings and key == "lm_head.weight":
                continue
            g_t = got.get(key)
            check(g_t is not None, "%s: engine lacks %s" % (name, key))
            if g_t:
                check(close(g_t["sum"], t.double().sum().item(), 1e-6), "%s: %s sum differs" % (name, key))
        if shard == "8KB":
            check(len(out["archive"]["files"]) > 1, "%s: expected shards, got %s" % (name, out["archive"]["files"]))


def rope_reference(cfg_dict, work):
    """What transformers resolves: rope_parameters after standardization, and YaRN's attention factor."""
    d = os.path.join(work, "cfg_ref")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg_dict, f)
    cfg = LlamaConfig.from_pretrained(d)
    rope_type = cfg.rope_parameters["rope_type"]
    attention = None
    if rope_type != "default":
        _, attention = ROPE_INIT_FUNCTIONS[rope_type](cfg)  # also re-standardizes, as at model build
    return cfg, dict(cfg.rope_parameters), attention


def config_parity(work):
    base = dict(model_type="llama", **TINY)
    variants = [
        {},
        {"rope_theta": 5e6, "rope_scaling": {"type": "yarn", "factor": 2.0, "original_max_position_embeddings": 128}},
        {"rope_scaling": {"rope_type": "yarn", "factor": 4.0}},
        {"rope_scaling": {"rope_type": "yarn", "factor": 8.0, "beta_fast": 0, "beta_slow": None, "truncate": False,
                          "original_max_position_embeddings": 32}},
        {"rope_scaling": {"rope_type": "yarn", "factor": 4.0, "mscale": 1.0, "mscale_all_dim": 0.707,
                          "original_max_position_embeddings": 64}},
        {"rope_scaling": {"rope_type": "yarn", "factor": 4.0, "attention_factor": 0.9,
                          "original_max_position_embeddings": 64}},
        {"original_max_position_embeddings": 32,
         "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64}},
        {"rope_parameters": {"rope_type": "yarn", "rope_theta": 1e6, "factor": 2.0,
                             "original_max_position_embeddings": 128}, "rope_theta": 3.0},
        {"rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                          "original_max_position_embeddings": 64}},
        {"rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0}},
        {"rope_scaling": {"type": "linear", "factor": 2.0}, "rope_theta": 500000.0},
        {"rope_parameters": {"rope_type": "default", "rope_theta": 250000.0}},
        {"head_dim": 16, "num_key_value_heads": None, "eos_token_id": [5, 7], "tie_word_embeddings": True},
    ]
    for i, extra in enumerate(variants):
        cfg_dict = {**base, **extra}
        path = os.path.join(work, "config_%d.json" % i)
        with open(path, "w") as f:
            json.dump(cfg_dict, f)
        ours = run_tool("--config", path)
        if not ours or "error" in ours:
            continue
        cfg, rope, attention = rope_reference(cfg_dict, work)
        where = "config %d %s" % (i, json.dumps(extra))
        check(ours["rope"]["rope_type"] == rope["rope_type"], "%s: rope_type %s vs %s"
              % (where, ours["rope"]["rope_type"], rope["rope_type"]))
        check(close(ours["rope_theta"], rope["rope_theta"]), "%s: rope_theta %s vs %s"
              % (where, ours["rope_theta"], rope["rope_theta"]))
        check(ours["head_dim"] == cfg.head_dim and ours["num_key_value_heads"] == cfg.num_key_value_heads,
              "%s: head_dim/kv heads" % where)
        check(ours["tie_word_embeddings"] == cfg.tie_word_embeddings, "%s: tie_word_embeddings" % where)
        # LlamaConfig defaults bos/eos to 1/2; the engine never invents token ids (carbon-spec), so
        # only ids the file states are compared.
        if "eos_token_id" in cfg_dict:
            eos = cfg.eos_token_id[0] if isinstance(cfg.eos_token_id, list) else cfg.eos_token_id
            check(ours["eos_token_id"] == eos, "%s: eos %s vs %s" % (where, ours["eos_token_id"], eos))
        else:
            check(ours["eos_token_id"] is None, "%s: eos %s invented" % (where, ours["eos_token_id"]))
        if rope["rope_type"] in ("yarn", "llama3"):
            got, want = ours["rope"]["original_max_position_embeddings"], rope["original_max_position_embeddings"]
            check(got == want, "%s: original_max_position_embeddings %s vs %s" % (where, got, want))
        if rope["rope_type"] == "yarn":
            factor = rope.get("factor") or cfg.max_position_embeddings / rope["original_max_position_embeddings"]
            check(close(ours["rope"]["factor"], factor),
                  "%s: factor %s vs %s" % (where, ours["rope"]["factor"], factor))
            check(close(ours["rope"]["attention_factor"], attention), "%s: attention_factor %s vs %s"
                  % (where, ours["rope"]["attention_factor"], attention))
            check(ours["rope"]["beta_fast"] == (rope.get("beta_fast") or 32), "%s: beta_fast" % where)
            check(ours["rope"]["beta_slow"] == (rope.get("beta_slow") or 1), "%s: beta_slow" % where)
            check(ours["rope"]["truncate"] == bool(rope.get("truncate", True)), "%s: truncate" % where)
        if rope["rope_type"] in ("linear", "llama3"):
            check(close(ours["rope"]["factor"], rope["factor"]), "%s: factor" % where)
        if rope["rope_type"] == "llama3":
            check(close(ours["rope"]["low_freq_factor"], rope["low_freq_factor"]) and
                  close(ours["rope"]["high_freq_factor"], rope["high_freq_factor"]), "%s: llama3 factors" % where)


def main():
    root = os.environ.get("CARBON_TEST_WORK")
    if root:
        os.makedirs(root, exist_ok=True)
    work = tempfile.mkdtemp(prefix="safetensors_interop_", dir=root)
    try:
        for step in (python_to_engine, engine_to_python, transformers_checkpoint, config_parity):
            before = len(FAILURES)
            step(work)
            print("%s %s" % ("ok  " if len(FAILURES) == before else "FAIL", step.__name__), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if FAILURES:
        print("%d failure(s)" % len(FAILURES))
        return 1
    print("all interop checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
