#!/usr/bin/env python3
"""The desktop application as a user meets it (issue 29): the real carbon-studio under Xvfb with a
real window manager (openbox), at 1366x768 and at 1920x1080, from a fresh home folder, driven with
xdotool through the README's five-minute tour:
  1. the welcome page: the window with its frame inside the screen;
  2. Open the sample project (Alt+S on the welcome page): the title names its first sequence, the
     project file holds its three sequences, and the editor with its docks still fits the screen;
  3. Load a model: File > Open Model Folder (Ctrl+M), its path typed into the dialog;
  4. Design: Run (F5): the project holds a finished run of the model with its designs; the
     other workspaces (Ctrl+2 Compare Variants, Ctrl+3 Analyse) and back (Ctrl+1);
  5. Export: Ctrl+E, a path typed into the dialog: the FASTA holds every design of the run;
  6. Quit and start again on the project file: the model comes back, and F5 makes a second run.
Each step's state is read back (the window's title, the project file, the exported file) and a
screenshot of the whole screen is kept after it (CARBON_TEST_WORK/gui-tour-WxH/NN-step.png). It
fails when the window and its frame are larger than the screen or leave it."""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

from carbon_testlib import SKIP, Checks, bin_path, run, work_dir

TOOLS = ["Xvfb", "openbox", "xdotool", "xwininfo", "xprop", "xwd", "xwdtopnm", "pnmtopng"]


class Display:
    """An Xvfb screen of the given size with openbox managing it, and the programs started on it."""

    def __init__(self, width, height, home):
        self.width, self.height = width, height
        r, w = os.pipe()
        self.xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", f"{width}x{height}x24",
                                      "-nolisten", "tcp"], pass_fds=(w,), stderr=subprocess.DEVNULL)
        os.close(w)
        with os.fdopen(r) as f:
            self.name = ":" + f.readline().strip()
        self.env = dict(os.environ, DISPLAY=self.name, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
                        XDG_DATA_HOME=os.path.join(home, ".local", "share"), XDG_CACHE_HOME=os.path.join(home, ".cache"),
                        QT_QPA_PLATFORM="xcb")
        self.env.pop("WAYLAND_DISPLAY", None)
        self.procs = [self.xvfb]
        self.start(["openbox"])
        time.sleep(0.5)

    def start(self, cmd, **kw):
        p = subprocess.Popen(cmd, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)
        self.procs.append(p)
        return p

    def x(self, *cmd):
        return subprocess.run(list(cmd), env=self.env, capture_output=True, text=True).stdout

    def close(self):
        for p in reversed(self.procs):
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()

    def window(self, pattern, timeout=30):
        """The visible window whose title matches `pattern` (a regular expression), waited for."""
        deadline = time.time() + timeout
        while True:
            for w in self.x("xdotool", "search", "--onlyvisible", "--name", pattern).split():
                return w
            if time.time() >= deadline:
                return None
            time.sleep(0.2)

    def title(self, win):
        return self.x("xdotool", "getwindowname", win).strip()

    def frame(self, win):
        """(x, y, width, height) of the window with the frame openbox puts around it."""
        info = self.x("xwininfo", "-id", win)
        val = {k.strip(): int(v) for k, v in (line.split(":", 1) for line in info.splitlines()
                                              if line.strip().startswith(("Absolute", "Width", "Height")))}
        ext = self.x("xprop", "-id", win, "_NET_FRAME_EXTENTS").split("=")[-1].split(",")
        left, right, top, bottom = (int(e) for e in ext) if len(ext) == 4 else (0, 0, 0, 0)
        return (val["Absolute upper-left X"] - left, val["Absolute upper-left Y"] - top,
                val["Width"] + left + right, val["Height"] + top + bottom)

    def keys(self, win, *keys):
        self.x("xdotool", "windowactivate", "--sync", win)
        for k in keys:
            self.x("xdotool", "key", "--clearmodifiers", k)
            time.sleep(0.2)

    def type(self, text):
        self.x("xdotool", "type", "--delay", "5", text)

    def shot(self, path):
        xwd = subprocess.run(["xwd", "-root", "-silent"], env=self.env, capture_output=True).stdout
        pnm = subprocess.run(["xwdtopnm"], input=xwd, capture_output=True).stdout
        with open(path, "wb") as f:
            f.write(subprocess.run(["pnmtopng"], input=pnm, capture_output=True).stdout)


def wait_for(predicate, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.25)
    return predicate()


def rows(project, sql):
    if not os.path.exists(project):
        return []
    try:
        con = sqlite3.connect(f"file:{project}?mode=ro", uri=True, timeout=5)
        return con.execute(sql).fetchall()
    except sqlite3.Error:
        return []


def tour(c, studio, model, width, height, out):
    home = tempfile.mkdtemp(prefix="carbon-home-")
    d = Display(width, height, home)
    where = f"{width}x{height}"
    try:
        app = d.start([studio])
        win = d.window("Carbon Studio$")
        if not c.check(win is not None, f"{where}: no Carbon Studio window appeared ({app.poll()})"):
            return

        def inside(step):
            x, y, w, h = d.frame(win)
            c.check(x >= 0 and y >= 0 and x + w <= width and y + h <= height,
                    f"{where}, {step}: the window with its frame is {w}x{h} at ({x}, {y}), outside the {width}x{height} screen")

        time.sleep(1)
        d.shot(os.path.join(out, "1-welcome.png"))
        inside("the welcome page")

        # 2. The sample project, from the welcome page's button (Alt+S).
        d.keys(win, "alt+s")
        title = wait_for(lambda: "HSFOS_K00650" in d.title(win) and d.title(win), 30)
        c.check(title == "HSFOS_K00650 \u2014 Carbon Studio", f"{where}: after opening the sample project the title is {d.title(win)!r}")
        project = os.path.join(home, ".local", "share", "Carbon", "Carbon Studio", "sample.carbon")
        names = [r[0] for r in rows(project, "SELECT name FROM sequences ORDER BY id")]
        c.check(names == ["HSFOS_K00650", "HSFERH_X03487", "RNSVF_M11903"], f"{where}: the sample project holds {names}")
        time.sleep(1)
        d.shot(os.path.join(out, "2-sample-project.png"))
        inside("the editor with its docks")

        # 3. A model: File > Open Model Folder (Ctrl+M), the folder typed into the dialog.
        d.keys(win, "ctrl+m")
        dialog = d.window("^Choose a model folder", 20)
        if not c.check(dialog is not None, f"{where}: Ctrl+M opened no model folder dialog"):
            return
        time.sleep(0.5)
        d.keys(dialog, "ctrl+a")
        d.type(model)
        d.keys(dialog, "Return")
        c.check(wait_for(lambda: d.window("^Choose a model folder", 0) is None, 20),
                f"{where}: the model folder dialog did not close")
        d.shot(os.path.join(out, "3-model.png"))

        # 4. A run (F5, at once: a run asked for while the model loads waits for it): stored in
        #    the project with its designs, by this model.
        d.keys(win, "F5")
        stored = wait_for(lambda: rows(project, "SELECT id, status, model_path, (SELECT count(*) FROM designs "
                                                "WHERE run_id = runs.id) FROM runs WHERE kind = 'generate'"), 120)
        ok = c.check(len(stored) == 1 and stored[0][1] == "finished" and stored[0][3] > 0 and
                     os.path.samefile(stored[0][2], model), f"{where}: the runs stored: {stored}")
        time.sleep(1)
        d.shot(os.path.join(out, "4-designs.png"))
        inside("after the run")
        if not ok:
            return

        # 4b. The other workspaces (View > Workspace, Ctrl+2, Ctrl+3) and back to Design (Ctrl+1).
        for key, name in (("ctrl+2", "compare-variants"), ("ctrl+3", "analyse"), ("ctrl+1", None)):
            d.keys(win, key)
            time.sleep(1)
            if name:
                d.shot(os.path.join(out, f"4-workspace-{name}.png"))
                inside(f"the {name} workspace")

        # 5. The designs exported as FASTA (Ctrl+E), the path typed into the dialog.
        exported = os.path.join(home, "designs.fa")
        d.keys(win, "ctrl+e")
        dialog = d.window("^Export$", 20)
        if not c.check(dialog is not None, f"{where}: Ctrl+E opened no export dialog"):
            return
        time.sleep(0.5)
        d.type(exported)
        d.keys(dialog, "Return")
        records = wait_for(lambda: os.path.exists(exported) and open(exported).read().count(">"), 20)
        c.check(records == stored[0][3], f"{where}: the exported FASTA holds {records} designs, the run {stored[0][3]}")
        d.shot(os.path.join(out, "5-exported.png"))
        inside("after the export")

        # 6. Quit (Ctrl+Q) and start again on the project (as a file manager does): the model of
        #    the last session comes back by itself, and F5 at once makes a second run with it.
        d.keys(win, "ctrl+q")
        try:
            app.wait(20)
        except subprocess.TimeoutExpired:
            c.check(False, f"{where}: Ctrl+Q did not quit")
            return
        app = d.start([studio, project])
        win = d.window("^HSFOS_K00650 .* Carbon Studio$")
        if not c.check(win is not None, f"{where}: started on the project, no window named its first sequence ({app.poll()})"):
            return
        time.sleep(0.5)
        d.keys(win, "F5")
        runs = wait_for(lambda: len(r := rows(project, "SELECT model_path FROM runs WHERE kind = 'generate' AND status = 'finished'")) == 2
                        and r, 120)
        c.check(bool(runs) and os.path.samefile(runs[1][0], model),
                f"{where}: after a restart, the runs of the model of the last session: {runs}")
        time.sleep(1)
        d.shot(os.path.join(out, "6-restarted.png"))
        inside("after a restart")
    finally:
        d.close()
        shutil.rmtree(home, ignore_errors=True)


def main():
    studio = bin_path("carbon-studio")
    if not os.path.exists(studio):
        print("SKIP: carbon-studio is not built here (configure with -DCARBON_GUI=ON)")
        return SKIP
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        # tests/setup-test-deps.sh installs them: a CI machine without them is a setup error.
        print("FAIL: the window-manager tour needs " + ", ".join(missing) + " (Debian: xvfb openbox xdotool x11-utils "
              "x11-apps netpbm; tests/setup-test-deps.sh installs them)")
        return 1
    d = work_dir("gui-tour")
    model = os.path.join(d, "tiny")
    if not os.path.exists(os.path.join(model, "config.json")):
        run([bin_path("carbon-cli"), "make-test-model", "--out", model, "--seed", "2"])
    c = Checks()
    for width, height in ((1366, 768), (1920, 1080)):
        out = os.path.join(d, f"gui-tour-{width}x{height}")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        tour(c, studio, model, width, height, out)
        print(f"{width}x{height}: screenshots in {out}")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
