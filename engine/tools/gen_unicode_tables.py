#!/usr/bin/env python3
# Generates engine/src/tokenizer/unicode_tables.inc (Unicode properties and NFC data for the tokenizer) from
# Python's unicodedata. Run by hand: python3 engine/tools/gen_unicode_tables.py [OUTPUT]
r"""Writes the tables the tokenizer's pre-tokenizer and NFC normalizer read.

Everything comes from the running Python's unicodedata (its Unicode version is recorded in the
output). When the `tokenizers` package is importable, \p{L}, \p{N} and \s are also asked of its
regex engine, the reference the pre-tokenizer must match, and code points it classifies
differently follow it: tokenizers 0.23 knows Unicode 16.0 letters (CJK Extension H and I, say)
that Python 3.11's Unicode 14.0 does not. The additions are counted in the output's header.
NFC stays on unicodedata alone. Ranges are inclusive [lo, hi] and sorted, so the C++ side looks
them up with a binary search.
"""
import os
import sys
import unicodedata

MAX_CP = 0x110000
HANGUL_S_BASE, HANGUL_S_COUNT = 0xAC00, 11172

# Unicode's White_Space property (PropList.txt), which is what \s means in Oniguruma and in Rust's
# regex crate; unicodedata has no accessor for it, so it is derived from the general categories
# and checked against the published list.
WHITE_SPACE = [0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680] + list(range(0x2000, 0x200B)) + [
    0x2028, 0x2029, 0x202F, 0x205F, 0x3000]

# Other_Alphabetic code points outside the marks (circled and squared Latin letters): with the
# marks these complete \w (Alphabetic + M + Nd + Pc + Join_Control) as Rust's regex defines it.
OTHER_ALPHABETIC_SYMBOLS = [(0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169), (0x1F170, 0x1F189)]


def ranges(pred):
    out = []
    start = None
    for cp in range(MAX_CP):
        if pred(cp):
            if start is None:
                start = cp
        elif start is not None:
            out.append((start, cp - 1))
            start = None
    if start is not None:
        out.append((start, MAX_CP - 1))
    return out


def cat(cp):
    return unicodedata.category(chr(cp))


def is_surrogate(cp):
    return 0xD800 <= cp <= 0xDFFF


def canonical_decomposition(cp):
    d = unicodedata.decomposition(chr(cp))
    if not d or d.startswith("<"):
        return None
    return [int(x, 16) for x in d.split()]


def reference_classes():
    r"""({name: code points} for \p{L}, \p{N}, \s per tokenizers' regex engine, its version),
    or (None, None) when tokenizers is not importable."""
    try:
        import tokenizers
        from tokenizers import Regex, pre_tokenizers
    except ImportError:
        return None, None
    text = "".join(chr(cp) for cp in range(1, MAX_CP) if not is_surrogate(cp))
    classes = {}
    for name, pattern in (("L", r"\p{L}+"), ("N", r"\p{N}+"), ("s", r"\s+")):
        # invert=True with "removed" keeps exactly the matches.
        split = pre_tokenizers.Split(Regex(pattern), behavior="removed", invert=True)
        classes[name] = {ord(ch) for piece, _ in split.pre_tokenize_str(text) for ch in piece}
    return classes, tokenizers.__version__


def main():
    out_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "src", "unicode_tables.inc")

    derived_ws = [cp for cp in range(MAX_CP) if cp in (0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x85)
                  or cat(cp) in ("Zs", "Zl", "Zp")]
    if derived_ws != WHITE_SPACE:
        sys.exit("White_Space derived from categories differs from PropList: %r" % derived_ws)

    letter_set = {cp for cp in range(MAX_CP) if cat(cp)[0] == "L"}
    number_set = {cp for cp in range(MAX_CP) if cat(cp)[0] == "N"}
    white_set = set(WHITE_SPACE)
    reference, tokenizers_version = reference_classes()
    provenance = "Python %s's unicodedata (Unicode %s)" % (sys.version.split()[0], unicodedata.unidata_version)
    if reference is None:
        print("tokenizers is not importable: \\p{L}, \\p{N}, \\s from unicodedata alone")
        class_note = "\\p{L}, \\p{N}, \\s: unicodedata only (tokenizers was not importable)."
    else:
        if reference["s"] != white_set:
            sys.exit("tokenizers' \\s differs from White_Space: %r" % sorted(reference["s"] ^ white_set))
        notes = []
        for name, mine in (("L", letter_set), ("N", number_set)):
            added, dropped = reference[name] - mine, mine - reference[name]
            notes.append("\\p{%s} +%d -%d" % (name, len(added), len(dropped)))
            mine |= added
            mine -= dropped
        class_note = ("\\p{L}, \\p{N}, \\s follow tokenizers %s's regex engine where it differs: %s code points."
                      % (tokenizers_version, ", ".join(notes)))
        print(class_note)
    letters = ranges(lambda cp: cp in letter_set)
    numbers = ranges(lambda cp: cp in number_set)
    extra = set()
    for lo, hi in OTHER_ALPHABETIC_SYMBOLS:
        extra.update(range(lo, hi + 1))
    word = ranges(lambda cp: cp in letter_set or cat(cp)[0] == "M" or cat(cp) in ("Nd", "Nl", "Pc")
                  or cp in (0x200C, 0x200D) or cp in extra)
    white = ranges(lambda cp: cp in white_set)

    ccc = []  # (lo, hi, class) runs of equal non-zero class
    for cp in range(MAX_CP):
        c = unicodedata.combining(chr(cp))
        if c == 0:
            continue
        if ccc and ccc[-1][1] == cp - 1 and ccc[-1][2] == c:
            ccc[-1] = (ccc[-1][0], cp, c)
        else:
            ccc.append((cp, cp, c))

    # Full canonical decompositions (Hangul syllables are algorithmic and left out).
    decomp = []
    data = []
    for cp in range(MAX_CP):
        if is_surrogate(cp) or HANGUL_S_BASE <= cp < HANGUL_S_BASE + HANGUL_S_COUNT:
            continue
        if canonical_decomposition(cp) is None:
            continue
        full = [ord(ch) for ch in unicodedata.normalize("NFD", chr(cp))]
        decomp.append((cp, len(data), len(full)))
        data.extend(full)

    # Primary composites: a two-code-point canonical decomposition that NFC keeps (this leaves
    # out the composition exclusions, singletons and non-starter decompositions).
    compose = []
    for cp in range(MAX_CP):
        if is_surrogate(cp) or HANGUL_S_BASE <= cp < HANGUL_S_BASE + HANGUL_S_COUNT:
            continue
        d = canonical_decomposition(cp)
        if d is None or len(d) != 2:
            continue
        if unicodedata.normalize("NFC", chr(cp)) != chr(cp):
            continue
        compose.append((d[0], d[1], cp))
    compose.sort()

    lines = []
    w = lines.append
    w("// Generated by engine/tools/gen_unicode_tables.py from %s." % provenance)
    w("// Do not edit: re-run the generator. Included by unicode.cpp only.")
    w("// " + class_note)
    w("")
    w('inline constexpr const char* kUnicodeTablesVersion = "%s";' % unicodedata.unidata_version)
    w("")

    def emit_ranges(name, rs, comment):
        w("// " + comment)
        w("inline constexpr CodepointRange %s[] = {" % name)
        for i in range(0, len(rs), 6):
            w("    " + " ".join("{0x%X, 0x%X}," % r for r in rs[i:i + 6]))
        w("};")
        w("")

    emit_ranges("kLetterRanges", letters, "\\p{L}: general categories Lu Ll Lt Lm Lo.")
    emit_ranges("kNumberRanges", numbers, "\\p{N}: general categories Nd Nl No.")
    emit_ranges("kWhiteSpaceRanges", white, "\\s: the White_Space property.")
    emit_ranges("kWordRanges", word,
                "\\w as Rust's regex crate defines it: Alphabetic, M, Nd, Pc, Join_Control.")

    w("// Canonical combining classes (non-zero only).")
    w("inline constexpr CombiningClassRange kCombiningClassRanges[] = {")
    for i in range(0, len(ccc), 5):
        w("    " + " ".join("{0x%X, 0x%X, %d}," % r for r in ccc[i:i + 5]))
    w("};")
    w("")
    w("// Full canonical decompositions: kDecompositionData[offset, offset + length).")
    w("inline constexpr Decomposition kDecompositions[] = {")
    for i in range(0, len(decomp), 5):
        w("    " + " ".join("{0x%X, %d, %d}," % r for r in decomp[i:i + 5]))
    w("};")
    w("inline constexpr char32_t kDecompositionData[] = {")
    for i in range(0, len(data), 10):
        w("    " + " ".join("0x%X," % c for c in data[i:i + 10]))
    w("};")
    w("")
    w("// Canonical composition pairs (first, second) -> composite, sorted by (first, second).")
    w("inline constexpr Composition kCompositions[] = {")
    for i in range(0, len(compose), 4):
        w("    " + " ".join("{0x%X, 0x%X, 0x%X}," % r for r in compose[i:i + 4]))
    w("};")

    with open(out_path, "w", encoding="ascii") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %s: %d letter, %d number, %d word ranges, %d ccc runs, %d decompositions, %d compositions"
          % (out_path, len(letters), len(numbers), len(word), len(ccc), len(decomp), len(compose)))


if __name__ == "__main__":
    main()
