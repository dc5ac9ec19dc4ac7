"""The synthesis rules of a carbon rules file as DnaChisel 3.2 specifications, for the tests and the
benchmark that hold `carbon-cli check` and `generate --rules` to DnaChisel.

A rule is its line as `carbon-cli check --list-rules` writes it ("gc-window window=50 min=25%
max=75%"). gc-spread (the highest window's GC minus the lowest's) has no DnaChisel counterpart: it
is computed here with numpy, as the engine defines it."""
import dnachisel as dc
import numpy as np


def frac(text):
    """A fraction as a rules file writes it: 0.25 or 25%."""
    return float(text[:-1]) / 100.0 if text.endswith("%") else float(text)


def parse_rule(line):
    """("kind", {key: value}) from a rule's line."""
    words = line.split()
    return words[0], dict(w.split("=", 1) for w in words[1:])


def chisel_specs(rule):
    """DnaChisel's specifications for a rule (kind, params); [] for gc-spread."""
    kind, kv = rule
    if kind == "length":
        return [dc.SequenceLengthBounds(int(kv["min"]), int(kv["max"]))]
    if kind == "gc":
        return [dc.EnforceGCContent(frac(kv["min"]), frac(kv["max"]))]
    if kind == "gc-window":
        return [dc.EnforceGCContent(frac(kv["min"]), frac(kv["max"]), window=int(kv["window"]))]
    if kind == "homopolymer":
        n = int(kv["max"]) + 1  # "10xA" is a run of 10 A, and of 10 T on the other strand
        return [dc.AvoidPattern(f"{n}x{b}") for b in {"AT": "A", "GC": "C", "ACGT": "AC"}[kv["bases"]]]
    if kind == "repeat":
        return [dc.UniquifyAllKmers(int(kv["k"]))]
    if kind == "hairpin":
        return [dc.AvoidHairpins(int(kv["stem"]), int(kv["window"]))]
    if kind == "forbid":
        return [dc.AvoidPattern(x if set(x) <= set("ACGTRYSWKMBDHVN") else f"{x}_site") for x in kv["sites"].split(",")]
    if kind == "gc-spread":
        return []
    raise ValueError(f"unknown rule kind {kind}")


def spread_locations(seq, w, mx):
    """gc-spread as the engine reports it: [] or [(start of the first lowest/highest window, end of the later)]."""
    if len(seq) < w:
        return []
    arr = np.frombuffer(seq.encode(), dtype=np.uint8)
    cs = np.cumsum((arr == 71) | (arr == 67))
    counts = cs[w - 1:] - np.hstack([[0], cs[:-w]])
    lo, hi = int(np.argmin(counts)), int(np.argmax(counts))
    if not (1.0 * counts[hi] / w - 1.0 * counts[lo] / w > mx):
        return []
    return [(min(lo, hi), max(lo, hi) + w)]


def chisel_locations(seq, rule):
    """The locations DnaChisel (numpy for gc-spread) reports for one rule, sorted; [] when it passes."""
    if rule[0] == "gc-spread":
        return spread_locations(seq, int(rule[1]["window"]), frac(rule[1]["max"]))
    p = dc.DnaOptimizationProblem(seq, constraints=chisel_specs(rule), logger=None)
    locs = []
    for e in p.constraints_evaluations().evaluations:
        if not e.passes:
            locs += [(int(loc.start), int(loc.end)) for loc in (e.locations or [])] or [(0, len(seq))]
    return sorted(locs)
