"""Shared helpers of the Python tests: locating the built tools, the skip convention, running
the engine's executables with their errors shown."""
import json
import os
import subprocess
import sys

SKIP = 77  # CTest's SKIP_RETURN_CODE for these tests


# The failures a test collects: check() records and prints each; the test ends with
# `return 1 if FAILURES else 0` after saying how many.
FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what, file=sys.stderr)
    return cond


def bin_path(name):
    d = os.environ.get("CARBON_BIN")
    if not d:
        print("CARBON_BIN is not set: run this test through ctest", file=sys.stderr)
        sys.exit(1)
    return os.path.join(d, name)


def work_dir(sub):
    d = os.path.join(os.environ.get("CARBON_TEST_WORK", "/tmp/carbon-test-work"), sub)
    os.makedirs(d, exist_ok=True)
    return d


def require_modules(*names):
    """Imports the reference packages; without them the test fails, or with
    CARBON_ALLOW_NO_PYTHON_REF=1 reports itself skipped and says why."""
    missing = []
    for n in names:
        try:
            __import__(n)
        except ImportError as e:  # noqa: PERF203
            missing.append(f"{n} ({e})")
    if missing:
        msg = "reference Python packages missing: " + ", ".join(missing)
        if os.environ.get("CARBON_ALLOW_NO_PYTHON_REF") == "1":
            print(f"SKIP: {msg} (CARBON_ALLOW_NO_PYTHON_REF=1)")
            sys.exit(SKIP)
        print(f"FAIL: {msg}; install them with tests/setup-test-deps.sh", file=sys.stderr)
        sys.exit(1)


def run(cmd, **kw):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError(f"command failed ({p.returncode}): {' '.join(map(str, cmd))}\n{p.stdout}\n{p.stderr}")
    return p


def tiny_model(folder, seed=11):
    """`carbon-cli make-test-model` (the tiny preset) in folder/tiny, written once and reused."""
    model = os.path.join(folder, "tiny")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([bin_path("carbon-cli"), "make-test-model", "--out", model, "--seed", str(seed)])
    return model


def dna_ids(model_dir):
    """(<dna>, </dna>, <oov>, first 6-mer id) from the checkpoint's tokenizer_config.json, by the
    HybridDNATokenizer layout rule (the test models are written that way)."""
    with open(os.path.join(model_dir, "tokenizer_config.json")) as f:
        cfg = json.load(f)
    by_content = {v["content"]: int(k) for k, v in cfg["added_tokens_decoder"].items()}
    return by_content["<dna>"], by_content["</dna>"], by_content["<oov>"], by_content["<oov>"] + 1


def dna_sequence_ids(model_dir, seq):
    """<dna>SEQUENCE</dna> as the HybridDNATokenizer encodes it, written independently of the engine
    for reference runs: upper-cased, 6-mers in A, T, C, G order (carbon-spec: <dna>ATCGA pads to
    ATCGAA = first 6-mer + 432), a 6-mer holding any other character is <oov>, the last block
    right-padded with A."""
    dna, close, oov, first = dna_ids(model_dir)
    seq = seq.strip().upper()
    seq += "A" * (-len(seq) % 6)
    out = [dna]
    for i in range(0, len(seq), 6):
        six = seq[i:i + 6]
        if any(c not in "ATCG" for c in six):
            out.append(oov)
        else:
            index = 0
            for c in six:
                index = index * 4 + "ATCG".index(c)
            out.append(first + index)
    return out + [close]


def padded_batch(model_dir, seqs, pad):
    """<dna>SEQ</dna> ids of `seqs` as transformers takes a right-padded batch: (input_ids,
    attention_mask, per-row token counts), torch tensors."""
    import torch
    rows = [dna_sequence_ids(model_dir, s) for s in seqs]
    width = max(len(x) for x in rows)
    ids = torch.tensor([x + [pad] * (width - len(x)) for x in rows])
    mask = torch.tensor([[1] * len(x) + [0] * (width - len(x)) for x in rows])
    return ids, mask, [len(x) for x in rows]


def bench_arguments(**defaults):
    """The arguments every tests/bench script takes (--cli, --work, --preset, --threads, --batch);
    `defaults` adds more, each as name=(type, default)."""
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--preset", default="carbon-500m")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--batch", type=int, default=16)
    for name, (kind, default) in defaults.items():
        ap.add_argument("--" + name, type=kind, default=default)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    return a


def bench_model(a):
    """`carbon-cli make-test-model --preset` (random bf16 weights, the real shape) in the bench's
    work folder, written once and reused."""
    lm = os.path.join(a.work, a.preset)
    if not os.path.exists(os.path.join(lm, "config.json")):
        subprocess.run([a.cli, "make-test-model", "--preset", a.preset, "--out", lm], check=True)
    return lm


def bench_regression_checkpoint(a, lm):
    """`lm` turned into a 3-output regression checkpoint by transformers (save_pretrained, a random
    head, bf16) with a malinois-style run_config.json (reverse-complement averaged, an identity label
    transform), in the bench's work folder, written once; returns its best_model folder."""
    import shutil
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM, LlamaForSequenceClassification
    run_dir = os.path.join(a.work, f"{a.preset}-predictor")
    best = os.path.join(run_dir, "best_model")
    if os.path.exists(os.path.join(best, "config.json")):
        return best
    cfg = LlamaConfig.from_pretrained(lm)
    cfg.architectures = ["LlamaForSequenceClassification"]
    cfg.num_labels = 3
    cfg.id2label = {0: "K562_scaled", 1: "HepG2_scaled", 2: "SKNSH_scaled"}
    cfg.label2id = {v: k for k, v in cfg.id2label.items()}
    cfg.problem_type = "regression"
    cfg.pad_token_id = cfg.eos_token_id
    model = LlamaForSequenceClassification(cfg).to(torch.bfloat16)
    model.model.load_state_dict(LlamaForCausalLM.from_pretrained(lm, dtype=torch.bfloat16).model.state_dict())
    model.save_pretrained(best)
    for f in os.listdir(lm):
        if f.startswith("tokenizer") or f == "special_tokens_map.json":
            shutil.copy(os.path.join(lm, f), best)
    with open(os.path.join(run_dir, "run_config.json"), "w") as f:
        json.dump({"dna_mode": "auto_dna_tags", "rc_eval_average": True, "max_length": 1024,
                   "label_transform": {t: {"center": 0.0, "scale": 1.0} for t in ("K562", "HepG2", "SKNSH")}}, f)
    return best


def cpu_flags():
    """The CPU flags a benchmark figure is recorded with (the vector and matrix extensions)."""
    flags = set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    keep = ["avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile",
            "amx_bf16", "amx_int8"]
    return " ".join(k for k in keep if k in flags)


def run_limited(cmd, timeout=60, mem_mb=2048, **kw):
    """Runs a command under an address-space limit and a timeout (the adversarial corpora: no
    case may hang or take all memory); returns the CompletedProcess whatever its status. A case
    that runs out of time is killed and comes back with returncode None and the stderr
    "timed out after N s", which no check accepts."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (mem_mb << 20, mem_mb << 20))

    try:
        return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, preexec_fn=limit, **kw)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, None, "", f"timed out after {timeout} s")


def fresh_project(folder, name):
    """folder/name with no project there yet: the file, its -wal, -shm and -journal removed (folders too)."""
    import shutil
    p = os.path.join(folder, name)
    for ext in ("", "-wal", "-shm", "-journal"):
        if os.path.isdir(p + ext):
            shutil.rmtree(p + ext)
        elif os.path.exists(p + ext):
            os.remove(p + ext)
    return p


def write_file(folder, name, data):
    """Writes data (str or bytes) to folder/name and returns the path."""
    p = os.path.join(folder, name)
    with open(p, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return p


def sha256(path):
    """The file's SHA-256, or None when it does not exist (before/after: nothing stored changed)."""
    import hashlib
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class Checks:
    """Collects failures so that every case of a corpus runs; `done()` prints the summary line
    and returns the exit status."""

    def __init__(self):
        self.failures = []
        self.passed = 0

    def check(self, cond, what):
        """Records cond's verdict; returns it, for a case whose next steps need it."""
        if cond:
            self.passed += 1
        else:
            self.failures.append(what)
            print("FAIL:", what)
        return bool(cond)

    def done(self):
        print(f"{self.passed} passed, {len(self.failures)} failed")
        return 1 if self.failures else 0


def open_dir(sub):
    """A fresh folder in the system's temporary directory that every user can reach (0755 under a
    world-traversable /tmp): the files of the cases run as 'nobody' go there, because a build tree
    (under /root, say) need not be reachable by other users. The caller removes it."""
    import tempfile
    d = tempfile.mkdtemp(prefix=f"carbon-{sub}-")
    os.chmod(d, 0o755)
    return d


def as_nobody(probe=None):
    """A prefix that runs a command as the unprivileged user 'nobody' when this process is root
    (permission bits do not stop root), or [] when it is not root; None when that cannot be done
    (no setpriv, or `probe`, a command such as [CLI, "--help"], does not run as nobody: a build
    tree that only root can read)."""
    import shutil
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if not setpriv:
        return None
    prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    if probe and subprocess.run(prefix + [str(c) for c in probe], capture_output=True).returncode != 0:
        return None
    return prefix
