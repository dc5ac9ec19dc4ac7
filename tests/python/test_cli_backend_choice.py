"""carbon-cli's backend choice where there is no usable GPU (CI machines): `--backend cuda` is refused
with the reason and nothing is written, `auto` runs on the CPU with one notice that says why, and
a CUDA backend plugin that cannot be loaded (a damaged file, given by CARBON_CUDA_PLUGIN) is
reported by name with the loader's message, never a crash. The programs never link the CUDA
libraries themselves (the backend is the plugin libcarbon-cuda.so), so they start on machines
without them."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import Checks, bin_path, run, work_dir  # noqa: E402

CLI = bin_path("carbon-cli")
W = work_dir("cli_backend_choice")


def generate(model, out, backend, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([CLI, "generate", "--model", model, "--length", "12", "--out", out, "--backend", backend],
                          capture_output=True, text=True, env=e)


def main():
    c = Checks()
    model = os.path.join(W, "tiny")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([CLI, "make-test-model", "--out", model, "--seed", "2"])
    out = os.path.join(W, "d.fa")
    if os.path.exists(out):
        os.remove(out)
    probe = generate(model, out, "cuda")
    if probe.returncode == 0:
        print("SKIP: this machine has a usable GPU (--backend cuda ran); the GPU tests cover it")
        return 77
    c.check(probe.returncode == 1 and probe.stderr.startswith("carbon-cli generate: error: cannot run on the GPU as asked (backend cuda): "),
            f"--backend cuda without a GPU: status {probe.returncode}, {probe.stderr.strip()}")
    c.check("no usable GPU (" in probe.stderr or "no CUDA backend in this build" in probe.stderr,
            f"the refusal does not say why: {probe.stderr.strip()}")
    c.check(not os.path.exists(out), "a refused run left an output file")
    # A machine without any NVIDIA driver is told so, not that its driver is "insufficient".
    if not os.path.exists("/proc/driver/nvidia") and "no usable GPU (" in probe.stderr:
        c.check("no NVIDIA driver is installed on this machine" in probe.stderr and "insufficient" not in probe.stderr,
                f"without a driver the refusal says: {probe.stderr.strip()}")
    auto = generate(model, out, "auto")
    notes = [line for line in auto.stderr.splitlines() if line.startswith("note:")]
    c.check(auto.returncode == 0 and os.path.exists(out), f"auto did not run on the CPU: {auto.stderr.strip()}")
    c.check(len(notes) == 1 and notes[0].endswith("running on the CPU"), f"auto's notice: {notes}")
    print("cuda:", probe.stderr.strip())
    print("auto:", notes[0] if notes else "(none)")

    # A damaged plugin: named, with the loader's reason; auto still runs on the CPU.
    bad = os.path.join(W, "libcarbon-cuda.so")
    with open(bad, "w") as f:
        f.write("not a shared object\n")
    p = generate(model, out, "cuda", {"CARBON_CUDA_PLUGIN": bad})
    c.check(p.returncode == 1 and bad in p.stderr and "cannot be used" in p.stderr,
            f"a damaged plugin: status {p.returncode}, {p.stderr.strip()}")
    p = generate(model, out, "auto", {"CARBON_CUDA_PLUGIN": bad})
    c.check(p.returncode == 0 and "running on the CPU" in p.stderr, f"auto with a damaged plugin: {p.stderr.strip()}")

    # The programs do not need the CUDA libraries to start.
    if shutil.which("ldd"):
        for exe in ("carbon-cli", "carbon-studio"):
            path = bin_path(exe)
            if not os.path.exists(path):
                continue
            libs = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
            c.check("libcudart" not in libs and "libcublas" not in libs, f"{exe} links the CUDA libraries:\n{libs}")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
