#!/usr/bin/env python3
"""carbon-cluster vep on a real local Ray cluster (a head and two worker nodes on this machine,
every Ray process bound to 127.0.0.1): the sharded output is byte-identical to the single-process
`carbon-cli vep` run; a worker node removed mid-job, or the engine processes under live workers
killed, leaves the output identical and complete; a driver killed with SIGKILL continues with
--resume to the same bytes; the test fails if any socket the cluster opened listens on another
address than the loopback. Bounded in time."""
import os
import random
import signal
import subprocess
import sys
import time

from carbon_testlib import bin_path, check, FAILURES, require_modules, run, work_dir

DEADLINE = time.time() + 600  # the whole test, whatever happens to the cluster


def listening():
    out = subprocess.run(["ss", "-ltnH"], capture_output=True, text=True, check=True).stdout
    return {line.split()[3] for line in out.splitlines() if line.strip()}


def loopback(addr):
    host = addr.rsplit(":", 1)[0].strip("[]")
    return host in ("127.0.0.1", "::1", "::ffff:127.0.0.1", "localhost") or host.startswith("127.")


def wait_state(state, at_least, proc):
    while time.time() < DEADLINE and proc.poll() is None:
        try:
            with open(state) as f:
                import json
                if json.load(f)["done"] >= at_least:
                    return True
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.05)
    return False


def main():
    require_modules("ray")
    import ray._private.services as services
    # This machine's Ray nodes announce and bind to the loopback address, not the host's.
    services.node_ip_address_from_perspective = lambda address=None: "127.0.0.1"
    from ray.cluster_utils import Cluster

    cli = bin_path("carbon-cli")
    driver = [sys.executable, bin_path("carbon-cluster"), "vep"]
    d = work_dir("cluster-vep")
    model = os.path.join(d, "tiny")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([cli, "make-test-model", "--out", model, "--seed", "13"])
    rng = random.Random(3)
    contigs = {"chr1": 6000, "chr2": 3000, "chr3": 1500}
    seqs = {k: "".join(rng.choice("ACGT") for _ in range(n)) for k, n in contigs.items()}
    ref = os.path.join(d, "ref.fa")
    with open(ref, "w") as f:
        for k, s in seqs.items():
            f.write(f">{k}\n" + "\n".join(s[i:i + 70] for i in range(0, len(s), 70)) + "\n")
    vcf = os.path.join(d, "v.vcf")
    with open(vcf, "w") as f:
        f.write("##fileformat=VCFv4.2\n")
        for k, n in contigs.items():
            f.write(f"##contig=<ID={k},length={n}>\n")
        f.write("#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n")
        for k, s in seqs.items():
            for p in range(7, len(s), 23):
                b = s[p - 1]
                alts = [x for x in "ACGT" if x != b]
                alt = ",".join(alts[:2]) if p % 3 == 0 else (b + "TG" if p % 7 == 0 else alts[0])
                f.write(f"{k}\t{p}\t.\t{b}\t{alt}\t.\t.\t.\n")
    vcf_gz = vcf + ".gz"
    with open(vcf_gz, "wb") as f:
        subprocess.run(["bgzip", "-c", vcf], stdout=f, check=True)
    run(["tabix", "-f", "-p", "vcf", vcf_gz])
    common = ["--model", model, "--reference", ref, "--vcf", vcf_gz, "--window", "1200"]
    single = os.path.join(d, "single.tsv")
    if os.path.exists(single):
        os.remove(single)
    t0 = time.time()
    run([cli, "vep", *common, "--out", single, "--quiet", "--threads", "1"])
    t_single = time.time() - t0
    want = open(single, "rb").read()

    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    before = listening()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    try:
        w1 = cluster.add_node(num_cpus=2)
        cluster.add_node(num_cpus=2)
        cluster.wait_for_nodes()
        env["RAY_ADDRESS"] = cluster.address
        args = [*common, "--workers", "2", "--cpus-per-worker", "1", "--shard-bp", "600", "--quiet"]

        def fresh(name):
            out = os.path.join(d, name)
            for f in (out, out + ".partial", out + ".partial.state"):
                if os.path.exists(f):
                    os.remove(f)
            return out

        # 1. Sharded over two worker nodes: the same bytes, in the TSV and in the project.
        out = fresh("sharded.tsv")
        project = fresh("sharded.carbon")
        t0 = time.time()
        p = subprocess.run(driver + args + ["--out", out, "--project", project], env=env, capture_output=True, text=True, timeout=300)
        t_sharded = time.time() - t0
        check(p.returncode == 0, f"sharded run failed: {p.stderr[-2000:]}")
        check(os.path.exists(out) and open(out, "rb").read() == want, "the sharded output differs from the single run")
        exported = fresh("sharded_exported.tsv")
        e = subprocess.run([cli, "project", "export", project, "--format", "vep", "--run", "1", "--out", exported],
                           capture_output=True, text=True)
        check(e.returncode == 0 and open(exported, "rb").read() == want, f"the project's copy differs from the single run: {e.stderr}")
        opened = listening() - before
        bad = sorted(a for a in opened if not loopback(a))
        check(not bad, f"Ray listens beyond the loopback: {bad}")
        print(f"sharded: {t_sharded:.1f} s (single process {t_single:.1f} s); {len(opened)} new listening sockets, all loopback")

        # 2. A worker node removed mid-job: its shards run again elsewhere.
        out = fresh("node_lost.tsv")
        proc = subprocess.Popen(driver + args + ["--out", out], env=env, stderr=subprocess.PIPE, text=True)
        reached = wait_state(out + ".partial.state", 2, proc)
        check(reached, "the job finished or stalled before a node could be removed")
        opened = listening() - before
        bad = sorted(a for a in opened if not loopback(a))
        check(not bad, f"Ray listens beyond the loopback while the job runs: {bad}")
        # The node to remove holds one of the two workers (they are spread over the nodes).
        import ray
        import ray._private.state as ray_state  # the GCS's actor table (no dashboard here)
        ray.init(address=cluster.address, log_to_driver=False)

        def workers():
            return [x for x in ray_state.actors().values() if x["ActorClassName"].endswith("VepWorker")]

        alive = [x for x in workers() if x["State"] == "ALIVE"]
        on_w1 = [x for x in alive if x["Address"]["NodeID"] == w1.node_id]
        check(len(on_w1) == 1, f"{len(on_w1)} workers on the node to remove, expected 1 ({len(alive)} alive)")
        cluster.remove_node(w1)
        try:
            proc.wait(timeout=max(10, DEADLINE - time.time()))
        except subprocess.TimeoutExpired:
            proc.kill()
        check(proc.returncode == 0, f"the run that lost a node failed: {proc.stderr.read()[-2000:]}")
        check(os.path.exists(out) and open(out, "rb").read() == want, "after losing a node the output differs from the single run")
        moved = [x for x in workers() if x["ActorID"] in {y["ActorID"] for y in on_w1}]
        check(bool(moved) and (moved[0]["NumRestarts"] >= 1 or moved[0]["State"] == "DEAD"),
              f"the worker on the removed node was neither restarted nor replaced: {moved}")
        if moved:
            print(f"node removed mid-job: its worker restarted {moved[0]['NumRestarts']} time(s) on the other node, "
                  "output identical")
        ray.shutdown()
        cluster.add_node(num_cpus=2)
        cluster.wait_for_nodes()

        # 2b. The engine processes killed under live workers (the actors survive, their carbon-cli
        # does not): the driver replaces the workers and runs their shards again.
        out = fresh("engine_killed.tsv")
        proc = subprocess.Popen(driver + args + ["--out", out], env=env, stderr=subprocess.PIPE, text=True)
        check(wait_state(out + ".partial.state", 2, proc), "the job finished or stalled before its engines could be killed")
        killed = subprocess.run(["pkill", "-9", "-f", "vep --worker"], capture_output=True).returncode == 0
        check(killed, "no carbon-cli worker process was found to kill")
        try:
            proc.wait(timeout=max(10, DEADLINE - time.time()))
        except subprocess.TimeoutExpired:
            proc.kill()
        said = proc.stderr.read()
        check(proc.returncode == 0, f"the run whose engines were killed failed: {said[-2000:]}")
        check("running it again" in said, "the driver did not say it ran a lost shard again")
        check(os.path.exists(out) and open(out, "rb").read() == want, "after the engines were killed the output differs")
        print("engine processes killed mid-job: workers replaced, output identical")

        # 3. The driver killed mid-job, then --resume: the same bytes.
        out = fresh("driver_killed.tsv")
        kills = 0
        for _ in range(3):
            proc = subprocess.Popen(driver + args + ["--out", out, "--resume"], env=env, stderr=subprocess.DEVNULL)
            if wait_state(out + ".partial.state", 1 + 2 * kills, proc) and proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                kills += 1
            proc.wait()
        p = subprocess.run(driver + args + ["--out", out, "--resume"], env=env, capture_output=True, text=True, timeout=300)
        check(p.returncode == 0, f"the resumed run failed: {p.stderr[-2000:]}")
        check(kills >= 1, "the driver finished before it could be killed")
        check(os.path.exists(out) and open(out, "rb").read() == want, f"after {kills} driver kills and --resume the output differs")
        print(f"driver killed {kills} time(s) and resumed: identical")
    finally:
        cluster.shutdown()

    if FAILURES:
        print(f"{len(FAILURES)} failure(s)", file=sys.stderr)
        return 1
    print("carbon-cluster: sharded, node-lost and driver-resumed runs all equal the single run, Ray on loopback only")
    return 0


if __name__ == "__main__":
    sys.exit(main())
