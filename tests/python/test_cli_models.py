#!/usr/bin/env python3
"""carbon-cli models: a model folder given on the command line and a snapshot in a Hugging Face
cache (HF_HUB_CACHE, snapshot files as links into blobs/, refs/main) are described without being
loaded (parameters, context, DNA ids as the tokenizer files give them); a folder that does not
load says why (its config promises a layer the weights lack); an empty cache is reported as such."""
import json
import os
import shutil
import subprocess
import sys

from carbon_testlib import bin_path, run, work_dir


def main():
    cli = bin_path("carbon-cli")
    d = work_dir("cli-models")
    model = os.path.join(d, "tiny")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([cli, "make-test-model", "--out", model, "--seed", "3"])
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    # A hub cache holding the same model as a snapshot of symlinks, refs/main naming it.
    hub = os.path.join(d, "hub")
    shutil.rmtree(hub, ignore_errors=True)
    repo = os.path.join(hub, "models--HuggingFaceBio--Carbon-500M")
    snap = os.path.join(repo, "snapshots", "abc123")
    os.makedirs(os.path.join(repo, "blobs"))
    os.makedirs(snap)
    os.makedirs(os.path.join(repo, "refs"))
    with open(os.path.join(repo, "refs", "main"), "w") as f:
        f.write("abc123")
    for i, name in enumerate(sorted(os.listdir(model))):
        blob = os.path.join(repo, "blobs", f"b{i}")
        shutil.copy(os.path.join(model, name), blob)
        os.symlink(os.path.join("..", "..", "blobs", f"b{i}"), os.path.join(snap, name))

    # A broken copy: its config promises a layer the weights do not have.
    broken = os.path.join(d, "broken")
    shutil.rmtree(broken, ignore_errors=True)
    shutil.copytree(model, broken)
    with open(os.path.join(broken, "config.json")) as f:
        cfg = json.load(f)
    layers = cfg["num_hidden_layers"]
    cfg["num_hidden_layers"] = layers + 1
    with open(os.path.join(broken, "config.json"), "w") as f:
        json.dump(cfg, f)

    env = dict(os.environ, HF_HUB_CACHE=hub)
    out = run([cli, "models", model, broken], env=env).stdout
    print(out)
    check("1 model snapshot(s)" in out, "the cache's snapshot is counted")
    check("HuggingFaceBio/Carbon-500M @ abc123 (refs/main)" in out, "the snapshot named with its revision and refs/main")
    with open(os.path.join(model, "config.json")) as f:
        real = json.load(f)
    check(out.count(f"context {real['max_position_embeddings']} tokens") == 2, "snapshot and folder show the context")
    check(out.count(f"{real['num_hidden_layers']} layers") == 2, "snapshot and folder show the layers")
    check("does not load" in out and f"num_hidden_layers={layers + 1}" in out and f"hold {layers} layer(s)" in out,
          "the broken folder says its config promises more layers than its weights hold")

    empty = os.path.join(d, "empty-hub")
    os.makedirs(empty, exist_ok=True)
    out = run([cli, "models", "--hub", empty]).stdout
    check("0 model snapshot(s)" in out, "an empty cache says 0 snapshots")
    p = subprocess.run([cli, "models", "--bogus"], capture_output=True, text=True)
    check(p.returncode == 1 and "unknown option '--bogus'" in p.stderr, "an unknown option is refused by name")

    for f in failures:
        print("FAIL:", f)
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
