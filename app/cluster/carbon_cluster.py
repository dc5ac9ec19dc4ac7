#!/usr/bin/env python3
"""carbon-cluster: Carbon Studio's jobs across machines, over Ray.

  carbon-cluster vep --model DIR --reference GENOME.fa[.gz] --vcf VARIANTS.vcf.gz|.bcf --out SCORES.tsv
                     [vep options] [--address ADDR] [--workers N] [--cpus-per-worker C]
                     [--gpus-per-worker G] [--shard-bp BP] [--resume] [--carbon-cli PATH]

Scores a whole VCF as `carbon-cli vep` does, sharded by region over a Ray cluster: one long-lived
worker per GPU (or per group of CPU cores) keeps one `carbon-cli vep --worker` process with the
model loaded, and the driver writes the shards' rows in the VCF's order, so the output is the same
bytes as a single `carbon-cli vep` run of the same build and settings. A worker or node that dies
has its shards run again (Ray restarts the worker elsewhere); the driver keeps OUT.partial and
OUT.partial.state, so a driver that dies continues with --resume. The VCF must be bgzipped and
indexed (tabix -p vcf, or bcftools index for BCF); the model, reference, VCF and carbon-cli must
be at the same paths on every node. docs/vep.md: starting a cluster on a laptop, a lab server
(Ray job submission) and a Slurm allocation.
"""
import argparse
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import time

PROTOCOL = 1
# `carbon-cli vep` options the driver passes through to every worker (value options, then flags).
VEP_VALUES = ("model", "reference", "vcf", "window", "regions", "tags", "yarn", "backend", "chunk")
VEP_FLAGS = ("rc", "no-prefix-sharing", "free-tags")


class Refusal(Exception):
    """Bad input or state: printed as one line, exit status 1."""


def find_carbon_cli(given):
    if given:
        return given
    here = os.path.join(os.path.dirname(os.path.realpath(__file__)), "carbon-cli")
    if os.access(here, os.X_OK):
        return here
    found = shutil.which("carbon-cli")
    if not found:
        raise Refusal("carbon-cli was not found beside carbon-cluster nor on PATH; give --carbon-cli PATH")
    return found


def vep_args(a):
    out = []
    for k in VEP_VALUES:
        v = getattr(a, k.replace("-", "_"))
        if v is not None:
            out += [f"--{k}", str(v)]
    for k in VEP_FLAGS:
        if getattr(a, k.replace("-", "_")):
            out.append(f"--{k}")
    return out


class WorkerProcess:
    """One `carbon-cli vep --worker`: length-prefixed frames over its standard input and output;
    its messages go to a file, quoted when it stops."""

    def __init__(self, cli, args, cwd):
        import tempfile
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([cli, "vep", "--worker", "--quiet", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log, cwd=cwd)
        self.hello = self._receive_json()
        if self.hello.get("protocol") != PROTOCOL:
            raise RuntimeError(f"carbon-cli speaks worker protocol {self.hello.get('protocol')}, this driver {PROTOCOL}")

    def _read(self, n):
        data = self.proc.stdout.read(n)
        if data is None or len(data) != n:
            code = self.proc.wait()
            self.log.seek(0)
            said = self.log.read()[-2000:].strip()
            raise RuntimeError(f"carbon-cli vep --worker stopped (exit status {code}) on {os.uname().nodename}: {said}")
        return data

    def _receive(self):
        (n,) = struct.unpack("<I", self._read(4))
        return self._read(n)

    def _receive_json(self):
        return json.loads(self._receive().decode("utf-8"))

    def _send_json(self, obj):
        b = json.dumps(obj).encode("utf-8")
        self.proc.stdin.write(struct.pack("<I", len(b)) + b)
        self.proc.stdin.flush()

    def run(self, shard, regions):
        self._send_json({"shard": shard, "regions": regions})
        meta = self._receive_json()
        if "error" in meta:
            return meta, b""
        rows = self._receive()
        if len(rows) != meta["bytes"]:
            raise RuntimeError(f"shard {shard}: {len(rows)} bytes of rows, the worker announced {meta['bytes']}")
        return meta, rows

    def close(self):
        try:
            self._send_json({"quit": True})
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except Exception:  # noqa: BLE001 - the process may be gone already
            self.proc.kill()


def worker_error(e):
    """The line that says why a worker failed, out of Ray's exception (its traceback included)."""
    text = str(getattr(e, "cause", None) or e)
    lines = [l.strip() for l in text.splitlines() if "RuntimeError:" in l or "carbon-cli vep: error:" in l]
    return lines[-1].split("RuntimeError: ", 1)[-1] if lines else text.splitlines()[0]


def make_actor_class(ray):
    # Restarted where a node is lost, and its calls retried there (the driver also replaces a
    # worker that stays dead): a shard's rows are a function of the shard, so running one twice
    # cannot change the output.
    @ray.remote(max_restarts=3, max_task_retries=3)
    class VepWorker:
        def __init__(self, cli, args, cwd):
            self.worker = WorkerProcess(cli, args, cwd)

        def hello(self):
            return self.worker.hello

        def run(self, shard, regions):
            return self.worker.run(shard, regions)

        def close(self):
            self.worker.close()

    return VepWorker


class Output:
    """OUT.partial grows shard by shard in order; OUT.partial.state records how far it is valid."""

    def __init__(self, out, header, n_shards, resume):
        self.out, self.partial, self.state = out, out + ".partial", out + ".partial.state"
        self.header_sha = hashlib.sha256(header.encode()).hexdigest()
        self.n_shards = n_shards
        self.done = 0
        if os.path.isdir(out):
            raise Refusal(f"--out must be a file, not the folder '{out}'")
        if os.path.exists(self.partial) or os.path.exists(self.state):
            if not resume:
                raise Refusal(f"{self.partial} holds a run that did not finish: add --resume to continue it, or remove it "
                              f"(and {self.state}) to start over")
            if not os.path.exists(self.state):  # killed before its header was committed: start again
                self._start(header)
                return
            with open(self.state) as f:
                st = json.load(f)
            if st.get("header_sha256") != self.header_sha or st.get("shards") != n_shards:
                raise Refusal(f"--resume: {self.partial} was made with other settings or shards; run again with the same "
                              "options, or remove it and its .state to start over")
            self.done = st["done"]
            os.truncate(self.partial, st["bytes"])
            self.f = open(self.partial, "ab")
        else:
            if resume and os.path.exists(out):
                self.f = None
                return
            self._start(header)

    def _start(self, header):
        self.f = open(self.partial, "wb")
        self.f.write(header.encode())
        self._commit()

    def _commit(self):
        self.f.flush()
        os.fsync(self.f.fileno())
        tmp = self.state + ".tmp"
        with open(tmp, "w") as s:
            json.dump({"header_sha256": self.header_sha, "shards": self.n_shards, "done": self.done,
                       "bytes": self.f.tell()}, s)
            s.flush()
            os.fsync(s.fileno())
        os.replace(tmp, self.state)

    def append(self, rows):
        self.f.write(rows)
        self.done += 1
        self._commit()

    def finish(self):
        self.f.close()
        os.replace(self.partial, self.out)
        os.remove(self.state)


def cmd_vep(argv):
    p = argparse.ArgumentParser(prog="carbon-cluster vep", description="Whole-VCF variant effects over a Ray cluster.")
    p.add_argument("--model", required=True)
    p.add_argument("--reference", required=True)
    p.add_argument("--vcf", required=True)
    p.add_argument("--out", required=True)
    for k in ("window", "regions", "tags", "yarn", "backend", "chunk"):
        p.add_argument(f"--{k}")
    for k in VEP_FLAGS:
        p.add_argument(f"--{k}", action="store_true")
    p.add_argument("--address", help="Ray cluster address (default: RAY_ADDRESS, else a Ray instance on this machine)")
    p.add_argument("--workers", type=int, help="engine workers (default: the cluster's GPUs / --gpus-per-worker, else CPUs / --cpus-per-worker)")
    p.add_argument("--cpus-per-worker", type=int, default=1)
    p.add_argument("--gpus-per-worker", type=float, default=0)
    p.add_argument("--shard-bp", type=int, default=2000000, help="bases of the genome per shard (default 2,000,000)")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--project", help="also store the complete result in this project as a vep run")
    p.add_argument("--project-wait", type=float, help="seconds to wait for another program writing to the project")
    p.add_argument("--carbon-cli")
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(argv)
    cli = find_carbon_cli(a.carbon_cli)
    args = vep_args(a)
    if a.project:  # checked before any work, as carbon-cli vep --project does
        if os.path.exists(a.project):
            check = subprocess.run([cli, "project", "list", a.project], capture_output=True, text=True)
            if check.returncode != 0:
                raise Refusal(check.stderr.strip().replace("carbon-cli project: error: ", "--project "))
        elif not os.path.isdir(os.path.dirname(os.path.abspath(a.project))):
            raise Refusal(f"--project {a.project}: the folder {os.path.dirname(a.project) or '.'} does not exist")

    listing = subprocess.run([cli, "vep", "--list-shards", "--shard-bp", str(a.shard_bp), "--quiet", *args],
                             capture_output=True, text=True)
    if listing.returncode != 0:
        raise Refusal(listing.stderr.strip().replace("carbon-cli vep: error: ", ""))
    plan = json.loads(listing.stdout)
    if plan["protocol"] != PROTOCOL:
        raise Refusal(f"{cli} speaks worker protocol {plan['protocol']}, this driver {PROTOCOL}: use the carbon-cluster of the same build")
    header, shards = plan["header"], plan["shards"]
    out = Output(a.out, header, len(shards), a.resume)
    if out.f is None:
        print(f"carbon-cluster: {a.out} is complete; nothing to resume", file=sys.stderr)
        if a.project:
            print(f"carbon-cluster: if it is not in {a.project} yet, store it with:\n"
                  f"  carbon-cli project import {a.project} --vep {a.out} --model {a.model}", file=sys.stderr)
        return 0

    import ray  # only the distributed run needs it

    address = a.address or os.environ.get("RAY_ADDRESS") or None
    if address and address.rsplit(":", 1)[0].strip("[]") in ("127.0.0.1", "localhost", "::1"):
        # A cluster on this machine's loopback (nodes started with --node-ip-address=127.0.0.1):
        # Ray would rewrite the address to the host's external IP, where nothing listens.
        import ray._private.services as services
        if hasattr(services, "node_ip_address_from_perspective"):
            services.node_ip_address_from_perspective = lambda address=None: "127.0.0.1"
    ray.init(address=address, log_to_driver=not a.quiet, include_dashboard=False if not address else None)
    res = ray.cluster_resources()
    if a.workers:
        n = a.workers
    elif a.gpus_per_worker > 0:
        n = int(res.get("GPU", 0) // a.gpus_per_worker)
    else:
        n = int(res.get("CPU", 1) // a.cpus_per_worker)
    n = max(1, min(n, len(shards) - out.done or 1))
    threads = ["--threads", str(a.cpus_per_worker)]
    VepWorker = make_actor_class(ray)
    cwd = os.getcwd()  # relative paths mean the same on every node (a shared filesystem)

    def start_worker():
        return VepWorker.options(num_cpus=a.cpus_per_worker, num_gpus=a.gpus_per_worker,
                                 scheduling_strategy="SPREAD").remote(cli, args + threads, cwd)

    actors = [start_worker() for _ in range(n)]
    try:
        hellos = ray.get([w.hello.remote() for w in actors])
    except ray.exceptions.RayError as e:
        raise Refusal(f"a worker could not start: {worker_error(e)}") from None
    for h in hellos:
        if h["header"] != header:
            raise Refusal("a worker's carbon-cli makes another header than the driver's (a different build or paths on that node):\n"
                          + h["header"])

    t0 = time.time()
    todo = list(range(out.done, len(shards)))
    inflight = {}  # ObjectRef -> (shard index, worker slot, the worker it went to)
    ready = {}
    per_actor = {i: 0 for i in range(n)}
    replacements = 0

    def submit(idx, who):
        ref = actors[who].run.remote(idx, shards[idx])
        inflight[ref] = (idx, who, actors[who])
        per_actor[who] += 1

    while todo or inflight:
        for who in range(n):  # two shards per worker in flight: the next is queued while one runs
            while todo and per_actor[who] < 2:
                submit(todo.pop(0), who)
        done_refs, _ = ray.wait(list(inflight), num_returns=1)
        for ref in done_refs:
            idx, who, actor = inflight.pop(ref)
            per_actor[who] -= 1
            try:
                meta, rows = ray.get(ref)
            except ray.exceptions.RayError as e:
                # The worker died past Ray's own restarts (its node is gone), or its carbon-cli
                # did (the actor lives on, useless): a new worker takes the slot and the shard
                # runs again; workers that keep dying stop the run.
                replacements += 1
                if replacements > 4 * n + 8:
                    raise Refusal(f"workers keep failing; the last: {worker_error(e)}") from None
                print(f"\ncarbon-cluster: shard {idx} ({shards[idx]}) lost with its worker ({worker_error(e)}); "
                      "running it again", file=sys.stderr)
                if actors[who] is actor:  # not yet replaced for another of its shards
                    try:
                        ray.kill(actor, no_restart=True)
                    except Exception:  # noqa: BLE001 - already gone
                        pass
                    actors[who] = start_worker()
                todo.insert(0, idx)
                continue
            if "error" in meta:
                raise Refusal(f"shard {shards[idx]}: {meta['error']}")
            ready[idx] = rows
        while out.done in ready:
            out.append(ready.pop(out.done))
            if not a.quiet:
                print(f"\rcarbon-cluster: {out.done}/{len(shards)} shards ({time.time() - t0:.1f} s)", end="", file=sys.stderr)
    out.finish()
    for w in actors:
        w.close.remote()
    if not a.quiet:
        print(f"\rcarbon-cluster: {len(shards)} shards on {n} worker(s) in {time.time() - t0:.1f} s -> {a.out}", file=sys.stderr)
    if a.project:
        store = [cli, "project", "import", a.project, "--vep", a.out, "--model", a.model]
        if a.project_wait is not None:
            store += ["--wait", str(a.project_wait)]
        stored = subprocess.run(store, capture_output=True, text=True)
        if stored.returncode != 0:
            raise Refusal(f"the result is complete in {a.out} but could not be stored in {a.project}: "
                          + stored.stderr.strip().replace("carbon-cli project: error: ", ""))
        if not a.quiet:
            print(stored.stderr.strip(), file=sys.stderr)
    return 0


def main(argv):
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(__doc__)
        return 0 if argv else 1
    if argv[0] != "vep":
        print(f"carbon-cluster: unknown command '{argv[0]}' (carbon-cluster vep ...)", file=sys.stderr)
        return 1
    try:
        return cmd_vep(argv[1:])
    except Refusal as e:
        print(f"carbon-cluster vep: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
