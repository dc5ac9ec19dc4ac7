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
import math
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

PROTOCOL = 1
# `carbon-cli vep` options the driver passes through to every worker (value options, then flags).
VEP_VALUES = ("model", "reference", "vcf", "window", "regions", "tags", "yarn", "backend", "chunk")
VEP_FLAGS = ("rc", "no-prefix-sharing", "free-tags")


# How long a Ray head has to answer before the address is called not one (CARBON_CLUSTER_CONNECT_TIMEOUT).
CONNECT_TIMEOUT_S = float(os.environ.get("CARBON_CLUSTER_CONNECT_TIMEOUT", "30"))


class Refusal(Exception):
    """Bad input or state: printed as one line, exit status 1."""


class Stopped(Exception):
    """SIGTERM or Ctrl-C: the run stops where it is, resumable."""


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a bad option or value as one line (Refusal), not the usage and a second line."""

    def error(self, message):
        raise Refusal(message + " (carbon-cluster vep --help lists the options)")


def number(kind, low, high=None):
    """An argparse type: a finite number of `kind` within [low, high], else a one-line refusal."""
    def parse(text):
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not {'a whole number' if kind is int else 'a number'}") from None
        if isinstance(v, float) and not math.isfinite(v):
            raise argparse.ArgumentTypeError(f"'{text}' is not a finite number")
        if v < low or (high is not None and v > high):
            raise argparse.ArgumentTypeError(f"{text} is outside [{low}, {high if high is not None else 'any'}]")
        return v
    return parse


def utf8_path(option, path):
    """Paths travel to the workers inside JSON: a path whose bytes are not UTF-8 is refused here,
    with its name, rather than breaking --list-shards and every worker."""
    try:
        os.fsencode(path).decode("utf-8")
    except UnicodeDecodeError:
        raise Refusal(f"--{option} {path!r}: the path holds bytes that are not UTF-8, which the workers' protocol (JSON) "
                      "cannot carry; rename it or link it under a UTF-8 name") from None
    return path


def find_carbon_cli(given):
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise Refusal(f"--carbon-cli {given}: not an executable file")
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
    """OUT.partial grows shard by shard in order; OUT.partial.state records how far it is valid.
    Checked on construction (before any cluster is reached); written from open() on, so that a
    run that cannot reach its cluster leaves nothing behind."""

    def __init__(self, out, header, n_shards, resume):
        self.out, self.partial, self.state = out, out + ".partial", out + ".partial.state"
        self.header = header
        self.header_sha = hashlib.sha256(header.encode()).hexdigest()
        self.n_shards = n_shards
        self.done = 0
        self.f = None
        self.complete = False
        self.resume_bytes = None  # resuming: the verified length of OUT.partial
        if os.path.isdir(out):
            raise Refusal(f"--out must be a file, not the folder '{out}'")
        folder = os.path.dirname(os.path.abspath(out))
        if not os.path.isdir(folder):
            raise Refusal(f"--out {out}: the folder {folder} does not exist")
        for path in (self.partial, self.state):
            if os.path.islink(path) or (os.path.lexists(path) and not os.path.isfile(path)):
                raise Refusal(f"{path} is not a regular file (a pipe, a device, a link or a folder): remove it")
        if os.path.exists(self.partial) or os.path.exists(self.state):
            if not resume:
                raise Refusal(f"{self.partial} holds a run that did not finish: add --resume to continue it, or remove it "
                              f"(and {self.state}) to start over")
            if os.path.exists(self.state):
                self._verify_state()
        elif resume and os.path.exists(out):
            self.complete = True

    def _verify_state(self):
        """The state file and OUT.partial, checked against each other before either is trusted."""
        def damaged(why):
            return Refusal(f"--resume: {self.state} does not describe {self.partial} ({why}); remove both to start over")
        try:
            with open(self.state) as f:
                st = json.load(f)
        except (ValueError, UnicodeDecodeError) as e:
            raise damaged(f"not the JSON this driver writes: {e}") from None
        if not isinstance(st, dict) or not all(isinstance(st.get(k), int) and not isinstance(st.get(k), bool)
                                               for k in ("shards", "done", "bytes")) or not isinstance(st.get("header_sha256"), str):
            raise damaged("its fields are not header_sha256, shards, done and bytes")
        if st["header_sha256"] != self.header_sha or st["shards"] != self.n_shards:
            raise Refusal(f"--resume: {self.partial} was made with other settings or shards; run again with the same "
                          "options, or remove it and its .state to start over")
        if not 0 <= st["done"] <= self.n_shards:
            raise damaged(f"{st['done']} of {self.n_shards} shards done")
        if not os.path.exists(self.partial):
            raise damaged("OUT.partial is missing")
        size = os.path.getsize(self.partial)
        head = self.header.encode()
        if not len(head) <= st["bytes"] <= size:
            raise damaged(f"it says {st['bytes']} bytes are valid, the file has {size} and its header {len(head)}")
        with open(self.partial, "rb") as f:
            if f.read(len(head)) != head:
                raise damaged("its first lines are not this run's header")
            line_no, left, carry = self.header.count("\n"), st["bytes"] - len(head), b""
            while left > 0:
                chunk = f.read(min(left, 1 << 20))
                if not chunk:
                    raise damaged("it ends early")
                left -= len(chunk)
                lines = (carry + chunk).split(b"\n")
                carry = lines.pop()
                for row in lines:
                    line_no += 1
                    if b"\0" in row or row.count(b"\t") != 11:
                        raise damaged(f"line {line_no} is not a vep row")
            if carry:
                raise damaged(f"line {line_no + 1} is cut short")
        self.done, self.resume_bytes = st["done"], st["bytes"]

    def open(self):
        if self.resume_bytes is not None:
            os.truncate(self.partial, self.resume_bytes)
            self.f = open(self.partial, "ab")
        else:
            self.f = open(self.partial, "wb")
            self.f.write(self.header.encode())
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


def check_address(address):
    """A Ray address must at least be a HOST:PORT where something listens (a closed or impossible
    port fails here at once, instead of Ray's endless 'Failed to connect to GCS')."""
    host, sep, port = address.rpartition(":")
    if address.startswith(("ray://", "http://", "https://")):
        return  # Ray Client / job server addresses: Ray checks them
    if not sep or not host or not port.isdigit():
        raise Refusal(f"--address {address!r} is not HOST:PORT (the Ray head's GCS address, as 'ray start --head' prints)")
    if not 1 <= int(port) <= 65535:
        raise Refusal(f"--address {address}: port {port} is outside 1-65535")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except OSError as e:
        raise Refusal(f"--address {address}: nothing answers there ({e.strerror or e}); is the Ray head started "
                      "('ray start --head')?") from None


PROBE = """
import sys
import ray
if sys.argv[2] == "loopback":
    import ray._private.services as services
    if hasattr(services, "node_ip_address_from_perspective"):
        services.node_ip_address_from_perspective = lambda address=None: "127.0.0.1"
ray.init(address=sys.argv[1], log_to_driver=False)
print("ray-head-ok", flush=True)
"""


def probe_head(address, loopback):
    """Whether `address` answers as a Ray head within CONNECT_TIMEOUT_S: a throwaway ray.init in a
    child process, killed at the deadline (Ray itself retries for minutes, and a ray.init started in
    a thread of this process leaves Ray unusable here). The main thread waits in short steps, so
    SIGTERM and Ctrl-C stop it at once."""
    p = subprocess.Popen([sys.executable, "-c", PROBE, address, "loopback" if loopback else "-"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.time() + CONNECT_TIMEOUT_S
        while p.poll() is None and time.time() < deadline:
            time.sleep(0.2)
        if p.poll() is None:
            raise Refusal(f"{address} did not answer as a Ray head within {CONNECT_TIMEOUT_S:.0f} s "
                          "(is it a Ray head's GCS port? 'ray status' on the head prints the address)")
        out, err = p.communicate()
        if p.returncode != 0 or "ray-head-ok" not in out:
            lines = [l for l in err.strip().splitlines() if l.strip() and not l.startswith("[")]
            raise Refusal(f"cannot connect to the Ray cluster at {address}: {lines[-1] if lines else f'exit {p.returncode}'}")
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def check_resources(ray, cpus, gpus):
    """A worker needs one node with `cpus` CPUs and `gpus` GPUs; Ray would wait for one forever."""
    nodes = [n.get("Resources", {}) for n in ray.nodes() if n.get("Alive")]
    if any(r.get("CPU", 0) >= cpus and r.get("GPU", 0) >= gpus for r in nodes):
        return
    have = ", ".join(f"{int(r.get('CPU', 0))} CPUs and {r.get('GPU', 0):g} GPUs" for r in nodes) or "no live node"
    raise Refusal(f"no node of the cluster has {cpus} CPUs and {gpus:g} GPUs for one worker (--cpus-per-worker, "
                  f"--gpus-per-worker); its nodes have: {have}")


def cmd_vep(argv):
    p = OneLineParser(prog="carbon-cluster vep", description="Whole-VCF variant effects over a Ray cluster.")
    p.add_argument("--model", required=True)
    p.add_argument("--reference", required=True)
    p.add_argument("--vcf", required=True)
    p.add_argument("--out", required=True)
    for k in ("window", "regions", "tags", "yarn", "backend", "chunk"):
        p.add_argument(f"--{k}")
    for k in VEP_FLAGS:
        p.add_argument(f"--{k}", action="store_true")
    p.add_argument("--address", help="Ray cluster address (default: RAY_ADDRESS, else a Ray instance on this machine)")
    p.add_argument("--workers", type=number(int, 1, 100000), help="engine workers (default: the cluster's GPUs / --gpus-per-worker, else CPUs / --cpus-per-worker)")
    p.add_argument("--cpus-per-worker", type=number(int, 1, 4096), default=1)
    p.add_argument("--gpus-per-worker", type=number(float, 0, 64), default=0)
    p.add_argument("--shard-bp", type=number(int, 100, 1 << 40), default=2000000, help="bases of the genome per shard (default 2,000,000)")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--project", help="also store the complete result in this project as a vep run")
    p.add_argument("--project-wait", type=number(float, 0, 86400), help="seconds to wait for another program writing to the project")
    p.add_argument("--carbon-cli")
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(argv)
    for option in ("model", "reference", "vcf", "out", "project", "carbon-cli"):
        if getattr(a, option.replace("-", "_")) is not None:
            utf8_path(option, getattr(a, option.replace("-", "_")))
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
    for line in listing.stderr.splitlines():  # what the plan was made with (an index not used, and why)
        if line.startswith("note: "):
            print(f"carbon-cluster: {line}", file=sys.stderr)
    try:
        plan = json.loads(listing.stdout)
    except ValueError:
        raise Refusal(f"{cli} vep --list-shards did not print a shard plan (a carbon-cli of another build?)") from None
    if plan["protocol"] != PROTOCOL:
        raise Refusal(f"{cli} speaks worker protocol {plan['protocol']}, this driver {PROTOCOL}: use the carbon-cluster of the same build")
    header, shards = plan["header"], plan["shards"]
    out = Output(a.out, header, len(shards), a.resume)
    if out.complete:
        print(f"carbon-cluster: {a.out} is complete; nothing to resume", file=sys.stderr)
        if a.project:
            print(f"carbon-cluster: if it is not in {a.project} yet, store it with:\n"
                  f"  carbon-cli project import {a.project} --vep {a.out} --model {a.model}", file=sys.stderr)
        return 0

    import ray  # only the distributed run needs it

    address = a.address or os.environ.get("RAY_ADDRESS") or None
    if address:
        check_address(address)
    if address and address.rsplit(":", 1)[0].strip("[]") in ("127.0.0.1", "localhost", "::1"):
        # A cluster on this machine's loopback (nodes started with --node-ip-address=127.0.0.1):
        # Ray would rewrite the address to the host's external IP, where nothing listens.
        import ray._private.services as services
        if hasattr(services, "node_ip_address_from_perspective"):
            services.node_ip_address_from_perspective = lambda address=None: "127.0.0.1"
    if address:
        probe_head(address, address.rsplit(":", 1)[0].strip("[]") in ("127.0.0.1", "localhost", "::1"))
    ray.init(address=address, log_to_driver=not a.quiet, include_dashboard=False if not address else None)
    check_resources(ray, a.cpus_per_worker, a.gpus_per_worker)
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
    out.open()  # the cluster answered: from here on, OUT.partial and its state are written

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
        # Waits a second at a time, so that SIGTERM and Ctrl-C are taken between waits.
        done_refs, _ = ray.wait(list(inflight), num_returns=1, timeout=1.0)
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
    def stop(signum, frame):
        raise Stopped(signal.Signals(signum).name)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    code = 1
    try:
        code = cmd_vep(argv[1:])
    except Refusal as e:
        print(f"carbon-cluster vep: error: {e}", file=sys.stderr)
    except Stopped as e:
        print(f"\ncarbon-cluster vep: stopped ({e}): the shards done so far are kept in OUT.partial; run the same command "
              "with --resume to continue", file=sys.stderr)
        code = 143 if str(e) == "SIGTERM" else 130
    except (OSError, ValueError, UnicodeError) as e:  # a path or value nothing above named: one line, no traceback
        if os.environ.get("CARBON_DEBUG"):
            raise
        print(f"carbon-cluster vep: error: {e}", file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    if "ray" in sys.modules:  # give the cluster its workers back, within a bound, then leave without Ray's exit hooks
        t = threading.Thread(target=sys.modules["ray"].shutdown, daemon=True)
        t.start()
        t.join(10)
        os._exit(code)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
