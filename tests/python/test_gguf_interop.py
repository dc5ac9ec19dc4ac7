#!/usr/bin/env python3
"""GGUF files written by llama.cpp's own Python package (`gguf`, GGUFWriter) read with the engine's
reader exactly as `gguf.GGUFReader` reads them: every metadata key with its type and value
(integers of every width, floats, bools, strings, arrays of strings and numbers), every tensor's
ggml type, dimensions, data offset, size and bytes (F32, F16, BF16, Q8_0 quantised by the package
itself), at the default alignment and at 64. Then the package's file cut short, and with its
first tensor's offset pointing past the end: refused with the file and the reason, never a crash.

Drives tests/tools/carbon_gguf_dump ($CARBON_BIN)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from carbon_testlib import Checks, bin_path, require_modules, run, work_dir  # noqa: E402

require_modules("numpy", "gguf")
import numpy as np  # noqa: E402
import gguf  # noqa: E402
from gguf import GGMLQuantizationType as Q  # noqa: E402

T = Checks()
DUMP = bin_path("carbon_gguf_dump")
WORK = work_dir("gguf-interop")

TYPE_NAMES = {  # gguf.GGUFValueType -> the engine's names
    gguf.GGUFValueType.UINT8: "uint8", gguf.GGUFValueType.INT8: "int8", gguf.GGUFValueType.UINT16: "uint16",
    gguf.GGUFValueType.INT16: "int16", gguf.GGUFValueType.UINT32: "uint32", gguf.GGUFValueType.INT32: "int32",
    gguf.GGUFValueType.FLOAT32: "float32", gguf.GGUFValueType.BOOL: "bool", gguf.GGUFValueType.STRING: "string",
    gguf.GGUFValueType.ARRAY: "array", gguf.GGUFValueType.UINT64: "uint64", gguf.GGUFValueType.INT64: "int64",
    gguf.GGUFValueType.FLOAT64: "float64",
}


def dump(path):
    return json.loads(run([DUMP, path]).stdout)


def write_file(path, alignment):
    rng = np.random.default_rng(7)
    w = gguf.GGUFWriter(path, "llama")
    if alignment != 32:
        w.add_custom_alignment(alignment)
    w.add_uint8("t.u8", 250)
    w.add_int8("t.i8", -7)
    w.add_uint16("t.u16", 65000)
    w.add_int16("t.i16", -32000)
    w.add_uint32("t.u32", 4_000_000_000)
    w.add_int32("t.i32", -2_000_000_000)
    w.add_uint64("t.u64", 1 << 62)
    w.add_int64("t.i64", -(1 << 62))
    w.add_float32("t.f32", 0.1)
    w.add_float64("t.f64", 1e-300)
    w.add_bool("t.bool", True)
    w.add_string("t.str", "<dna>ACGTAC</dna> ünïcode")
    w.add_array("tokenizer.ggml.tokens", ["<dna>", "</dna>", "<oov>", "AAAAAA", "ACGTAC"])
    w.add_array("tokenizer.ggml.token_type", [3, 3, 3, 1, 1])
    w.add_array("t.floats", [0.5, -2.0, 1e10])
    w.add_tensor("token_embd.weight", rng.standard_normal((6, 64)).astype(np.float32))
    w.add_tensor("output_norm.weight", rng.standard_normal(64).astype(np.float16))
    bf = (rng.standard_normal((3, 64)).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    w.add_tensor("blk.0.attn_q.weight", bf.view(np.uint8).reshape(3, 128), raw_dtype=Q.BF16)
    q8 = gguf.quants.quantize(rng.standard_normal((5, 96)).astype(np.float32), Q.Q8_0)
    w.add_tensor("blk.0.ffn_up.weight", q8, raw_dtype=Q.Q8_0)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def same_value(a, b):
    if isinstance(b, float):
        return isinstance(a, (int, float)) and (a == b or abs(a - b) <= 1e-12 * max(1.0, abs(b)))
    if isinstance(b, list):
        return isinstance(a, list) and len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    return a == b


def reference_value(field):
    t = field.types[0]
    if t == gguf.GGUFValueType.ARRAY:
        et = field.types[-1]
        if et == gguf.GGUFValueType.STRING:
            return [bytes(field.parts[i]).decode("utf-8") for i in field.data]
        return [field.parts[i].tolist()[0] for i in field.data]
    if t == gguf.GGUFValueType.STRING:
        return bytes(field.parts[field.data[0]]).decode("utf-8")
    v = field.parts[field.data[0]].tolist()[0]
    return bool(v) if t == gguf.GGUFValueType.BOOL else v


for alignment in (32, 64):
    path = os.path.join(WORK, f"written-by-gguf-{alignment}.gguf")
    write_file(path, alignment)
    ours = dump(path)
    if not T.check("error" not in ours, f"alignment {alignment}: the engine refuses the gguf package's file: {ours.get('error')}"):
        continue
    ref = gguf.GGUFReader(path)
    T.check(ours["alignment"] == alignment, f"alignment {ours['alignment']} vs {alignment}")
    T.check(ours["data_offset"] == ref.data_offset, f"data offset {ours['data_offset']} vs {ref.data_offset}")
    keys = [k for k in ref.fields if not k.startswith("GGUF.")]
    T.check(sorted(keys) == sorted(ours["metadata"]), f"keys {sorted(ours['metadata'])} vs {sorted(keys)}")
    for k in keys:
        f = ref.fields[k]
        m = ours["metadata"].get(k)
        if not T.check(m is not None, f"{k} missing"):
            continue
        T.check(m["type"] == TYPE_NAMES[f.types[0]], f"{k}: type {m['type']} vs {TYPE_NAMES[f.types[0]]}")
        want = reference_value(f)
        T.check(same_value(m["value"], want), f"{k}: {m['value']!r} vs {want!r}")
    T.check(len(ours["tensors"]) == len(ref.tensors), f"{len(ours['tensors'])} tensors vs {len(ref.tensors)}")
    for mine, t in zip(ours["tensors"], ref.tensors):
        T.check(mine["name"] == t.name, f"tensor order: {mine['name']} vs {t.name}")
        T.check(mine["type"] == t.tensor_type.name, f"{t.name}: type {mine['type']} vs {t.tensor_type.name}")
        T.check(mine["dims"] == [int(d) for d in t.shape], f"{t.name}: dims {mine['dims']} vs {list(t.shape)}")
        T.check(mine["offset"] == t.data_offset - ref.data_offset, f"{t.name}: offset {mine['offset']} vs {t.data_offset - ref.data_offset}")
        T.check(mine["nbytes"] == t.n_bytes, f"{t.name}: {mine['nbytes']} bytes vs {t.n_bytes}")
        raw = np.frombuffer(ref.data[t.data_offset:t.data_offset + t.n_bytes].tobytes(), dtype=np.uint8)
        T.check(mine["byte_sum"] == int(raw.astype(np.uint64).sum()), f"{t.name}: its bytes differ")
    print(f"alignment {alignment}: {len(keys)} keys and {len(ref.tensors)} tensors as gguf.GGUFReader reads them")

# The package's file cut short, and with a tensor offset past the end: refusals naming the file.
whole = open(os.path.join(WORK, "written-by-gguf-32.gguf"), "rb").read()
for cut in (10, 100, len(whole) // 2, len(whole) - 40):
    p = os.path.join(WORK, f"cut-{cut}.gguf")
    open(p, "wb").write(whole[:cut])
    r = dump(p)
    T.check("error" in r and p in r["error"], f"cut at {cut}: {r}")
ref = gguf.GGUFReader(os.path.join(WORK, "written-by-gguf-32.gguf"))
first = ref.tensors[0]
off_field = first.field.parts[-1]  # the tensor info's offset, where the file holds it
at = int(off_field.ctypes.data - ref.data.ctypes.data) if hasattr(off_field, "ctypes") else None
if T.check(at is not None and 0 < at < len(whole), "the first tensor's offset field located"):
    lie = bytearray(whole)
    lie[at:at + 8] = (1 << 40).to_bytes(8, "little")
    p = os.path.join(WORK, "offset-past-end.gguf")
    open(p, "wb").write(bytes(lie))
    r = dump(p)
    T.check("error" in r and "token_embd.weight" in r["error"] and "past the end" in r["error"], f"offset past the end: {r}")
sys.exit(T.done())
