#!/usr/bin/env python3
"""Issue 31, class 6: the Ray driver fails fast and cleanly. Each case runs carbon-cluster vep under
a timeout and expects exit 1 with one line that names what is wrong (never a traceback), and no
OUT.partial or state left by a run that never reached a cluster: bad values and paths (zero
workers, NaN GPUs, a missing --carbon-cli, a folder that does not exist, a reference path that is
not UTF-8); addresses that are not a Ray head (a closed port, port 70000, a TCP server that says
nothing, an HTTP server) refused within the stated connect time; SIGTERM while it waits stops it
at once; damaged state files (not JSON, more valid bytes than the file, NUL bytes, another header)
refused before resuming; and resources no node has (64 CPUs, a GPU) refused with what the
cluster has, on a local Ray instance."""
import http.server
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

from carbon_testlib import Checks, bin_path, require_modules, run, tiny_model, work_dir

W = work_dir("hostile_cluster")
CONNECT_S = 5


def main():
    require_modules("ray")
    c = Checks()
    cli = bin_path("carbon-cli")
    model = tiny_model(W)
    rng = random.Random(6)
    seq = "".join(rng.choice("ACGT") for _ in range(3000))
    ref = os.path.join(W, "ref.fa")
    with open(ref, "w") as f:
        f.write(">chr1\n" + "".join(seq[i:i + 60] + "\n" for i in range(0, len(seq), 60)))
    vcf = os.path.join(W, "v.vcf")
    with open(vcf, "w") as f:
        f.write("##fileformat=VCFv4.2\n##contig=<ID=chr1,length=3000>\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n")
        for p in (500, 1500, 2500):
            f.write(f"chr1\t{p}\t.\t{seq[p - 1]}\t{'C' if seq[p - 1] != 'C' else 'G'}\t.\t.\t.\n")
    subprocess.run(["bgzip", "-f", vcf], check=True)
    subprocess.run(["tabix", "-f", "-p", "vcf", vcf + ".gz"], check=True)
    vcf += ".gz"
    out = os.path.join(W, "out.tsv")
    # A Ray temp folder of its own: a local instance is started here, never joined to one found in /tmp/ray.
    ray_tmp = os.path.join("/tmp", f"carbon-ray-{os.getpid()}")
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", CARBON_CLUSTER_CONNECT_TIMEOUT=str(CONNECT_S), RAY_TMPDIR=ray_tmp)
    env.pop("RAY_ADDRESS", None)
    base = [sys.executable, bin_path("carbon-cluster"), "vep", "--model", model, "--reference", ref, "--vcf", vcf,
            "--carbon-cli", cli, "--window", "60", "--quiet"]

    def clean():
        for suffix in ("", ".partial", ".partial.state"):
            if os.path.lexists(out + suffix):
                os.remove(out + suffix)

    def driver(*extra, timeout=60, argv=None, out_path=None):
        t0 = time.time()
        try:
            p = subprocess.run(argv or [*base, "--out", out_path or out, *extra], capture_output=True, text=True, env=env,
                               timeout=timeout)
            return p.returncode, p.stderr, time.time() - t0
        except subprocess.TimeoutExpired:
            return None, f"no answer within {timeout} s", time.time() - t0

    def refused(label, result, *needles, within=None):
        rc, err, secs = result
        errors = [l for l in err.splitlines() if l.startswith("carbon-cluster vep: error: ")]
        last = errors[-1] if errors else ""
        c.check(len(errors) == 1, f"{label}: {len(errors)} error lines: {err[-300:]}")
        c.check(rc == 1, f"{label}: exit {rc}: {err[-300:]}")
        c.check("Traceback" not in err, f"{label}: a traceback: {err[-300:]}")
        c.check(all(n in last for n in needles), f"{label}: the last line lacks {needles}: {last!r}")
        if within is not None:
            c.check(secs < within, f"{label}: took {secs:.1f} s (at most {within})")
        c.check(not os.path.exists(out + ".partial") and not os.path.exists(out + ".partial.state"), f"{label}: state left behind")

    # Bad values and paths: one line each, before anything runs.
    clean()
    for extra, needles in [(["--workers", "0"], ["--workers", "outside"]), (["--cpus-per-worker", "0"], ["--cpus-per-worker"]),
                           (["--gpus-per-worker", "nan"], ["not a finite number"]), (["--gpus-per-worker", "-1"], ["outside"]),
                           (["--shard-bp", "abc"], ["'abc' is not a whole number"]), (["--project-wait", "-5"], ["outside"])]:
        refused(" ".join(extra), driver(*extra), *needles, within=20)
    argv = [*base, "--out", out]
    argv[argv.index(cli)] = os.path.join(W, "nope")
    refused("--carbon-cli missing", driver(argv=argv),
            "--carbon-cli", "not an executable file", within=20)
    refused("--out in a missing folder", driver(out_path=os.path.join(W, "no", "such", "out.tsv")), "does not exist", within=20)
    latin = os.fsdecode(os.path.join(W, "r\xe9f.fa").encode("latin-1"))
    shutil.copyfile(ref, os.fsencode(latin))
    argv = [*base, "--out", out]
    argv[argv.index(ref)] = latin
    refused("a reference path that is not UTF-8", driver(argv=argv), "--reference", "not UTF-8", within=20)

    # Addresses that are not a Ray head.
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    closed = s.getsockname()[1]
    s.close()
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)  # accepts connections (the kernel does), never says a word
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    http_server = http.server.HTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=http_server.serve_forever, daemon=True).start()
    for label, address, needles, within in [
        ("a closed port", f"127.0.0.1:{closed}", ["nothing answers there"], 20),
        ("port 70000", "127.0.0.1:70000", ["outside 1-65535"], 20),
        ("not HOST:PORT", "somewhere", ["is not HOST:PORT"], 20),
        ("a silent TCP server", f"127.0.0.1:{silent.getsockname()[1]}", ["did not answer as a Ray head within 5 s"], 40),
        ("an HTTP server", f"127.0.0.1:{http_server.server_address[1]}", ["127.0.0.1:"], 40),
    ]:
        refused(label, driver("--address", address, timeout=90), *needles, within=within)

    # SIGTERM while the driver waits for a head that never answers: it stops at once.
    clean()
    p = subprocess.Popen([*base, "--out", out, "--address", f"127.0.0.1:{silent.getsockname()[1]}"], stderr=subprocess.PIPE,
                         text=True, env=dict(env, CARBON_CLUSTER_CONNECT_TIMEOUT="120"))
    time.sleep(3)
    t0 = time.time()
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
    err = p.stderr.read()
    c.check(p.returncode == 143 and time.time() - t0 < 20 and "stopped (SIGTERM)" in err, f"SIGTERM: exit {p.returncode} {err[-300:]}")
    c.check(not os.path.exists(out + ".partial"), "SIGTERM: OUT.partial left by a run that never started")
    silent.close()
    http_server.shutdown()

    # Damaged state files: refused before resuming, with what is wrong.
    plan = json.loads(run([cli, "vep", "--list-shards", "--model", model, "--reference", ref, "--vcf", vcf, "--window", "60",
                           "--quiet"]).stdout)
    header = plan["header"]
    import hashlib
    sha = hashlib.sha256(header.encode()).hexdigest()
    row = "chr1\t500\t.\tA\tC\tok\t470\t529\t0.1\t0.2\tNA\tNA\n"
    for label, body, state, needle in [
        ("state not JSON", header + row, "{not json", "not the JSON this driver writes"),
        ("more valid bytes than the file", header + row, {"header_sha256": sha, "shards": len(plan["shards"]), "done": 1,
                                                          "bytes": len(header) + len(row) + 4096}, "bytes are valid"),
        ("NUL bytes as rows", header + "\0" * 40 + "\n", {"header_sha256": sha, "shards": len(plan["shards"]), "done": 1,
                                                          "bytes": len(header) + 41}, "is not a vep row"),
        ("another header", "##other\n" + row, {"header_sha256": sha, "shards": len(plan["shards"]), "done": 1,
                                               "bytes": len("##other\n") + len(row)}, "bytes are valid"),
        ("a field of the wrong type", header + row, {"header_sha256": sha, "shards": len(plan["shards"]), "done": "1",
                                                     "bytes": len(header) + len(row)}, "its fields are not"),
    ]:
        clean()
        with open(out + ".partial", "w") as f:
            f.write(body)
        with open(out + ".partial.state", "w") as f:
            f.write(state if isinstance(state, str) else json.dumps(state))
        before = (open(out + ".partial").read(), open(out + ".partial.state").read())
        rc, err, _ = driver("--resume", "--address", "127.0.0.1:1")
        last = next((l for l in err.splitlines() if l.startswith("carbon-cluster vep: error: ")), "")
        c.check(rc == 1 and needle in last and "Traceback" not in err, f"{label}: exit {rc} {last!r}")
        c.check((open(out + ".partial").read(), open(out + ".partial.state").read()) == before, f"{label}: the files changed")
    clean()

    # Resources no node has: refused with what the cluster has (a local Ray instance, 2 CPUs here).
    for extra, needle in [(["--cpus-per-worker", "64"], "no node of the cluster has 64 CPUs"),
                          (["--gpus-per-worker", "1"], "and 1 GPUs for one worker")]:
        refused(" ".join(extra), driver(*extra, timeout=150), needle, "its nodes have", within=140)
    shutil.rmtree(ray_tmp, ignore_errors=True)
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
