#!/usr/bin/env python3
# Parity of the engine's tokenizer with the Python `tokenizers` library (byte-level BPE, added
# tokens, NFC), with Python's unicodedata (NFC), and with the DNA rules of carbon-spec.md.
"""Drives tests/tools/carbon_tokenize (found through CARBON_BIN) and compares token for token.

(a) trains small byte-level BPE tokenizers with `tokenizers` (Qwen2 split + ByteLevel, and the
    GPT-2 ByteLevel regex), saves tokenizer.json and a vocab.json + merges.txt export;
(b) encodes metadata tags and a few hundred other strings with both and compares;
(c) does the same for the stand-in tokenizer the engine writes (write_test_tokenizer);
(d) checks DNA encoding against a re-implementation of the spec's rules on random strings;
and compares the engine's NFC with unicodedata.normalize.
Exit 0 only when everything matches; 77 (skipped) when `tokenizers` is missing and
CARBON_ALLOW_NO_PYTHON_REF=1, otherwise 1.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unicodedata

QWEN2_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
                 r"\s*[\r\n]+|\s+(?!\S)|\s+")
METADATA_TAGS = ["<vertebrate_mammalian>", "<vertebrate_other>", "<mammalian_species>", "<mam>", "<fungi>",
                 "<plants>", "<invertebrates>", "<protozoa>", "<protein_coding_region>",
                 "<vertebrate_mammalian><protein_coding_region>", "<fungi><protein_coding_region>"]
SPECIALS = ["<|endoftext|>", "<dna>", "</dna>", "<oov>"]

FRAGMENTS = [
    "hello", "Hello", "HELLO", " world", "Hello world!", "it's", "IT'S", "It'S", "they'll", "THEY'LL",
    "we'RE", "you'Ve", "I'm", "I'M", "she'd", "'", "''", "'s", "'S", "'sx", "don't", "'ll'", "x'", "' s",
    "123", "1,234.56", "2024-05-01", "3.14159", "42nd", "v2", "Ⅻ", "½", "٣", "  ", "\t", "\n", "\r\n", "\r",
    "\n\n\n", " \n ", "   \t  ", " \r\n\r\n  ", "\t\n", "\u00a0", "\u3000", "\u2028", "\u0085", "\u000b",
    "!!!", "...", "?!", "--", "(x)", "[ ]", "{}", "#!/bin", "@user", "a+b=c", ">>>", "<<", "<", ">", "|", "_",
    "_under_score_", "caf\u00e9", "cafe\u0301", "e\u0301\u0323", "e\u0323\u0301", "A\u030a", "\u212b",
    "\u1100\u1161\u11a8", "\u1100\u1161", "\uac00\u11a8", "한국어", "유전체 분석", "日本語テキスト", "中文字符",
    "基因组", "😀", "🧬", "👩‍🔬", "🇫🇷", "Ωmega", "ﬁne", "Ǆemal", "x\u0300\u0301", "\u1e09", "\u0958",
    "\u0344", "\u0f73", "Привет", "Ελληνικά", "עברית", "العربية", "हिन्दी", "ภาษาไทย", "\u0301start",
    "ACGTAC", "CCCCCC", "ATCGATCG", "tataaa", "<dna>", "</dna>", "<oov>", "<|endoftext|>", "<dna", "dna>",
    "<|endoftext|", "<<dna>>", "<mask>", " <mask>", "[R]", "[R]  x", "word", "words", "a word.", "sword",
] + METADATA_TAGS


def make_strings(seed, count):
    rng = random.Random(seed)
    out = list(FRAGMENTS)
    seps = ["", " ", "  ", "\n", "\t", " \n", "\r\n"]
    for _ in range(count):
        n = rng.randint(1, 6)
        out.append("".join(rng.choice(FRAGMENTS) + rng.choice(seps) for _ in range(n)))
    pools = [(0x20, 0x7e), (0xa0, 0x17f), (0x300, 0x36f), (0x370, 0x3ff), (0x400, 0x4ff), (0x900, 0x97f),
             (0x1100, 0x11ff), (0xac00, 0xd7a3), (0x4e00, 0x4fff), (0x3040, 0x30ff), (0x1f300, 0x1f6ff),
             (0x2000, 0x206f)]
    for _ in range(count // 2):
        chars = []
        for _ in range(rng.randint(1, 12)):
            lo, hi = rng.choice(pools)
            chars.append(chr(rng.randint(lo, hi)))
        out.append("".join(chars))
    for _ in range(count // 4):
        out.append("".join(rng.choice("ab '\t\n\r.,!?1 ") for _ in range(rng.randint(1, 16))))
    return out


def nfc_strings(seed, count):
    rng = random.Random(seed)
    decomposable = [c for c in range(0xc0, 0x3000) if unicodedata.decomposition(chr(c))
                    and not unicodedata.decomposition(chr(c)).startswith("<")]
    marks = [c for c in range(0x300, 0x370)] + [0x1dc0, 0x20d0, 0x302a, 0x3099, 0x309a, 0x0f71, 0x0f72, 0x0f74]
    jamo = list(range(0x1100, 0x1113)) + list(range(0x1161, 0x1176)) + list(range(0x11a8, 0x11c3))
    out = []
    for _ in range(count):
        chars = []
        for _ in range(rng.randint(1, 10)):
            r = rng.random()
            if r < 0.3:
                chars.append(chr(rng.choice(decomposable)))
            elif r < 0.55:
                chars.append(chr(rng.choice(marks)))
            elif r < 0.7:
                chars.append(chr(rng.choice(jamo)))
            elif r < 0.8:
                chars.append(chr(rng.randint(0xac00, 0xd7a3)))
            elif r < 0.9:
                chars.append(rng.choice("aeiouAEIOUnNcCsSzZ"))
            else:
                c = rng.randint(0x80, 0x2ffff)
                if not 0xd800 <= c <= 0xdfff:
                    chars.append(chr(c))
        s = "".join(chars)
        out.append(s)
        out.append(unicodedata.normalize("NFD", s))
    return out


class Runner:
    def __init__(self, tool, work):
        self.tool, self.work, self.failures, self.checks = tool, work, [], 0

    def run(self, *args):
        p = subprocess.run([self.tool, *args], capture_output=True, text=True, encoding="utf-8")
        if p.returncode != 0:
            raise RuntimeError("carbon_tokenize %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr.strip()))
        return p.stdout

    def request(self, name, obj):
        path = os.path.join(self.work, name)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(obj, f)
        return path

    def encode(self, tok_dir, vocab_size, texts=(), dna=(), prompts=()):
        path = self.request("request.json", {"text": list(texts), "dna": list(dna), "prompts": list(prompts)})
        return json.loads(self.run("encode", tok_dir, str(vocab_size), path))

    def expect(self, what, got, want):
        self.checks += 1
        if got != want:
            self.failures.append("%s: engine %r, expected %r" % (what, got, want))

    def compare_text(self, label, py_tok, tok_dir, vocab_size, strings):
        want = [py_tok.encode(s, add_special_tokens=False).ids for s in strings]
        got = self.encode(tok_dir, vocab_size, texts=strings)["text"]
        bad = 0
        for s, g, w in zip(strings, got, want):
            self.checks += 1
            if g != w:
                bad += 1
                if bad <= 5:
                    self.failures.append("%s: %r -> engine %r, tokenizers %r" % (label, s, g, w))
        if bad > 5:
            self.failures.append("%s: %d more mismatching strings" % (label, bad - 5))
        print("  %-44s %4d strings, %d mismatches" % (label, len(strings), bad))


def train_tokenizer(kind, corpus):
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
    tok = Tokenizer(models.BPE())
    if kind == "qwen2":
        tok.normalizer = normalizers.NFC()
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(QWEN2_PATTERN), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    elif kind == "gpt2":
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    else:  # GPT-2 regex with the prefix space, behind a normalizer Sequence holding NFC
        tok.normalizer = normalizers.Sequence([normalizers.NFC()])
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1200, special_tokens=["<|endoftext|>"], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(corpus, trainer)
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, special=True, normalized=False)])
    tok.add_tokens([AddedToken("[R]", rstrip=True, normalized=False),
                    AddedToken("caf\u00e9", normalized=True),
                    AddedToken("word", single_word=True, normalized=False)])
    # The DNA tokens come last: the layout rule puts the 6-mers right after <oov>.
    tok.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in SPECIALS[1:]])
    return tok


def write_config(dir_, py_tok):
    decoder = {}
    for tid, t in py_tok.get_added_tokens_decoder().items():
        decoder[str(tid)] = {"content": t.content, "lstrip": t.lstrip, "rstrip": t.rstrip,
                             "single_word": t.single_word, "normalized": t.normalized, "special": t.special}
    with open(os.path.join(dir_, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump({"tokenizer_class": "HybridDNATokenizer", "added_tokens_decoder": decoder}, f)


def ref_dna(s, tok_ids, closed):
    """carbon-spec.md's DNA rules: upper-case, <oov> for any non-ACGT 6-mer, pad with A."""
    open_id, close_id, oov = tok_ids
    up = "".join(c.upper() if "a" <= c <= "z" else c for c in s)
    pad = (6 - len(s) % 6) % 6
    padded = up + "A" * pad
    ids = [open_id]
    for k in range(0, len(padded), 6):
        block = padded[k:k + 6]
        if all(c in "ATCG" for c in block):
            index = 0
            for c in block:
                index = index * 4 + "ATCG".index(c)
            ids.append(oov + 1 + index)
        else:
            ids.append(oov)
    if closed:
        ids.append(close_id)
    notices = []
    lower_run = other_run = None
    for i, c in enumerate(s):
        if "a" <= c <= "z":
            if lower_run is not None and lower_run[1] + lower_run[3] == i:
                lower_run[3] += 1
            else:
                lower_run = ["lowercase", i, ord(c), 1]
                notices.append(lower_run)
        u = up[i]
        if u in "ACGT":
            continue
        if other_run is not None and other_run[1] + other_run[3] == i and chr(other_run[2]).upper() == u:
            other_run[3] += 1
        else:
            other_run = ["non_acgt", i, ord(c), 1]
            notices.append(other_run)
    return ids, pad, notices


def check_dna(r, tok_dir, vocab_size, label):
    rng = random.Random(77)
    alphabet = "ACGTACGTACGTacgtNnRYKMSWBDHVryn-"
    strings = ["", "A", "ATCGAT", "ATCGA", "ATCGATCG", "ATCGAN", "atcgat", "nnNN", "NNNNNNN", "acgtRYacgt"]
    strings += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(500)]
    res = r.encode(tok_dir, vocab_size, dna=strings,
                   prompts=[[rng.choice(METADATA_TAGS + [""]), s] for s in strings[:60]])
    ids3 = (res["info"]["dna_open_id"], res["info"]["dna_close_id"], res["info"]["oov_id"])
    bad = 0
    for s, o, c in zip(strings, res["dna_open"], res["dna_closed"]):
        for closed, got in ((False, o), (True, c)):
            want_ids, pad, notices = ref_dna(s, ids3, closed)
            ok = got["ids"] == want_ids and got["n_padding"] == pad and got["n_bases"] == len(s) \
                and got["notices"] == notices and got["first_dna_token"] == 1
            r.checks += 1
            if not ok:
                bad += 1
                if bad <= 5:
                    r.failures.append("%s DNA %r closed=%s: engine %r, expected ids %r pad %d notices %r"
                                      % (label, s, closed, got, want_ids, pad, notices))
    print("  %-44s %4d strings, %d mismatches" % (label + " DNA (spec rules)", len(strings), bad))
    return res


def main():
    try:
        from tokenizers import Tokenizer
    except ImportError as e:
        if os.environ.get("CARBON_ALLOW_NO_PYTHON_REF") == "1":
            print("SKIPPED: the Python package 'tokenizers' cannot be imported (%s), so there is no reference "
                  "to compare the engine's tokenizer with" % e)
            return 77
        print("FAILED: the Python package 'tokenizers' cannot be imported (%s). Install it (pip install tokenizers) "
              "or set CARBON_ALLOW_NO_PYTHON_REF=1 to report this test as skipped." % e)
        return 1
    bin_dir = os.environ.get("CARBON_BIN", "")
    tool = os.path.join(bin_dir, "carbon_tokenize")
    if not bin_dir or not os.access(tool, os.X_OK):
        print("FAILED: carbon_tokenize not found: set CARBON_BIN to the folder with the built test tools (got %r)"
              % bin_dir)
        return 1
    base = os.environ.get("CARBON_TEST_WORK") or tempfile.gettempdir()
    os.makedirs(base, exist_ok=True)
    work = tempfile.mkdtemp(prefix="tokenizer_parity_", dir=base)
    r = Runner(tool, work)
    try:
        run_all(r, Tokenizer)
    except Exception as e:  # a crash of the tool is a failure with its message, not a traceback
        r.failures.append("error: %s" % e)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d checks, %d failures" % (r.checks, len(r.failures)))
    for f in r.failures:
        print("  FAIL " + f)
    return 0 if not r.failures and r.checks > 0 else 1


def run_all(r, Tokenizer):
    strings = make_strings(2024, 300)
    corpus = [s for s in make_strings(7, 400)] * 3 + [
        "The quick brown fox jumps over the lazy dog. DNA is transcribed into RNA.",
        "It's what they'll say; we're sure you've heard I'm done and he'd agree.",
    ] * 20 + METADATA_TAGS * 10

    # NFC against unicodedata.
    samples = nfc_strings(99, 1500) + strings
    got = json.loads(r.run("nfc", r.request("nfc.json", samples)))
    bad = [(s, g) for s, g in zip(samples, got) if g != unicodedata.normalize("NFC", s)]
    r.checks += len(samples)
    for s, g in bad[:5]:
        r.failures.append("NFC of %r: engine %r, unicodedata %r" % (s, g, unicodedata.normalize("NFC", s)))
    print("  %-44s %4d strings, %d mismatches (Unicode %s)" % ("NFC vs unicodedata", len(samples), len(bad),
                                                               unicodedata.unidata_version))

    # (a) + (b): tokenizers trained here.
    for kind in ("qwen2", "gpt2", "gpt2-prefix"):
        py_tok = train_tokenizer(kind, corpus)
        d = os.path.join(r.work, kind)
        os.makedirs(d)
        py_tok.save(os.path.join(d, "tokenizer.json"))
        write_config(d, py_tok)
        vocab_size = py_tok.token_to_id("<oov>") + 1 + 4096 + 8
        r.compare_text("trained %s tokenizer.json" % kind, py_tok, d, vocab_size, strings)
        if kind == "qwen2":
            d2 = os.path.join(r.work, kind + "-files")
            os.makedirs(d2)
            py_tok.model.save(d2)
            write_config(d2, py_tok)
            res = r.encode(d2, vocab_size, texts=["x"])
            r.expect("vocab.json + merges.txt source", res["info"]["bpe_from"].startswith("vocab.json"), True)
            r.compare_text("trained qwen2 vocab.json + merges.txt", py_tok, d2, vocab_size, strings)
            check_dna(r, d, vocab_size, "trained qwen2")

    # (c): the stand-in tokenizer the engine writes, real and compact layouts.
    for label, args, vocab_size in (("real layout", [], 155776),
                                    ("compact layout, listed 6-mers", ["--dna-open-id", "2400", "--vocab-size",
                                                                       "6600", "--list-kmers"], 6600)):
        d = os.path.join(r.work, "written-" + label.split()[0])
        r.run("write-test-tokenizer", d, *args)
        py_tok = Tokenizer.from_file(os.path.join(d, "tokenizer.json"))
        r.compare_text("written (%s) tokenizer.json" % label, py_tok, d, vocab_size, strings)
        res = check_dna(r, d, vocab_size, "written (%s)" % label)
        if label == "real layout":
            r.expect("<|endoftext|> id in Python", py_tok.token_to_id("<|endoftext|>"), 151643)
            r.expect("<dna> id in Python", py_tok.token_to_id("<dna>"), 151669)
            r.expect("kmer ids from", res["info"]["kmer_ids_from"].startswith("HybridDNATokenizer layout"), True)
            spec = r.encode(d, vocab_size, dna=["ATCGAT", "CGTACG", "ATGCGC", "GGGCTA", "ATCGA", "ATCGATCG",
                                                "ATCGAN", "atcgat"])
            r.expect("spec examples", [e["ids"] for e in spec["dna_open"]],
                     [[151669, 152105], [151669, 154563], [151669, 152166], [151669, 155740], [151669, 152104],
                      [151669, 152105, 154488], [151669, 151671], [151669, 152105]])
            # Metadata tags are plain text tokens of the stand-in BPE, never added tokens.
            tags = METADATA_TAGS[-2]
            ids = py_tok.encode(tags, add_special_tokens=False).ids
            r.expect("tags are plain BPE", all(i < res["info"]["bpe_vocab_size"] for i in ids) and len(ids) > 2, True)
            prompt = r.encode(d, vocab_size, prompts=[[tags, "ATCGATcg"]])["prompts"][0]
            r.expect("prompt ids", prompt["ids"], ids + [151669, 152105, 154488, 151670])
            r.expect("prompt decode", prompt["decoded"], "ATCGATCGAAAA")
        else:
            r.expect("kmer ids from", res["info"]["kmer_ids_from"].startswith("listed in"), True)
            # The same files without tokenizer.json: vocab.json + merges.txt + tokenizer_config.json.
            d2 = d + "-files"
            shutil.copytree(d, d2)
            os.remove(os.path.join(d2, "tokenizer.json"))
            r.compare_text("written (%s) vocab.json + merges.txt" % label.split(",")[0], py_tok, d2, vocab_size,
                           strings)


if __name__ == "__main__":
    sys.exit(main())
