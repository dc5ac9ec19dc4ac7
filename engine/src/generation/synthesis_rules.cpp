// Synthesis rule files read and checked (carbon/generation/synthesis_rules.h); the checks themselves
// are synthesis_check.cpp.
#include "carbon/generation/synthesis_rules.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "carbon/generation/fns_generate.h"
#include "carbon/motifs/enzymes.h"
#include "carbon/support/common.h"
#include "carbon/support/input_file.h"
#include "carbon/support/visible_text.h"
#include "synthesis_rules_table.h"

namespace carbon {

namespace {

std::string trim(std::string_view s) {
    size_t a = 0, b = s.size();
    while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r')) ++a;
    while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r')) --b;
    return std::string(s.substr(a, b - a));
}

std::vector<std::string> words(std::string_view s) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
        size_t j = i;
        while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
        if (j > i) out.emplace_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

// One rule line's key=value pairs, each taken once; what is left unread is refused by done().
class RuleArgs {
public:
    RuleArgs(const std::vector<std::string>& items, const std::string& where) : where_(where) {
        for (size_t i = 2; i < items.size(); ++i) {
            const size_t eq = items[i].find('=');
            if (eq == std::string::npos || eq == 0 || eq + 1 == items[i].size())
                throw Error(where_ + "'" + visible_text(items[i], 40) + "' is not key=value");
            const std::string key = items[i].substr(0, eq);
            if (values_.count(key)) throw Error(where_ + visible_text(key, 40) + "= is given twice");
            values_[key] = items[i].substr(eq + 1);
        }
    }
    std::string text(const std::string& key) {
        auto it = values_.find(key);
        if (it == values_.end()) throw Error(where_ + "this rule needs " + key + "=");
        std::string v = it->second;
        values_.erase(it);
        return v;
    }
    size_t count(const std::string& key, size_t lo, size_t hi) {
        const std::string v = text(key);
        if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
            throw Error(where_ + key + "=" + visible_text(v, 30) + " is not a whole number");
        const size_t n = v.size() > 12 ? SIZE_MAX : size_t(std::stoull(v));  // more digits than any limit: out of range
        if (n < lo || n > hi)
            throw Error(where_ + key + "=" + visible_text(v, 30) + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
        return n;
    }
    // A fraction written 0.25 or 25%.
    double fraction(const std::string& key) {
        std::string v = text(key);
        const bool percent = !v.empty() && v.back() == '%';
        if (percent) v.pop_back();
        char* end = nullptr;
        const double x = v.empty() ? NAN : std::strtod(v.c_str(), &end);
        if (v.empty() || *end || !std::isfinite(x))
            throw Error(where_ + key + "=" + visible_text(v, 30) + " is not a number (a fraction such as 0.25, or 25%)");
        const double f = percent ? x / 100.0 : x;
        if (f < 0.0 || f > 1.0) throw Error(where_ + key + "=" + v + (percent ? "%" : "") + " is not a fraction between 0 and 1 (0% and 100%)");
        return f;
    }
    void done() const {
        if (!values_.empty()) throw Error(where_ + "unknown key " + visible_text(values_.begin()->first, 40) + "= for this rule");
    }

private:
    std::map<std::string, std::string> values_;
    std::string where_;
};

std::string percent(double f) {
    char b[32];
    std::snprintf(b, sizeof b, "%g%%", f * 100.0);
    return b;
}

SynthesisRule parse_rule(const std::vector<std::string>& items, const std::string& where) {
    if (items.size() < 2) throw Error(where + "a rule needs its kind (length, gc, gc-window, gc-spread, homopolymer, repeat, hairpin, forbid)");
    SynthesisRule r;
    RuleArgs a(items, where);
    const std::string& kind = items[1];
    if (kind == "length") {
        r.kind = SynthesisRuleKind::Length;
        r.min_length = a.count("min", 0, 1000000000);
        r.max_length = a.count("max", 1, 1000000000);
        if (r.min_length > r.max_length) throw Error(where + "min=" + std::to_string(r.min_length) + " is above max=" + std::to_string(r.max_length));
    } else if (kind == "gc" || kind == "gc-window") {
        r.kind = kind == "gc" ? SynthesisRuleKind::Gc : SynthesisRuleKind::GcWindow;
        if (r.kind == SynthesisRuleKind::GcWindow) r.window = a.count("window", 2, 100000);
        r.min = a.fraction("min");
        r.max = a.fraction("max");
        if (r.min > r.max) throw Error(where + "min=" + percent(r.min) + " is above max=" + percent(r.max));
    } else if (kind == "gc-spread") {
        r.kind = SynthesisRuleKind::GcSpread;
        r.window = a.count("window", 2, 100000);
        r.max = a.fraction("max");
    } else if (kind == "homopolymer") {
        r.kind = SynthesisRuleKind::Homopolymer;
        r.bases = a.text("bases");
        for (char& c : r.bases) c = char(std::toupper(static_cast<unsigned char>(c)));
        if (r.bases == "TA") r.bases = "AT";
        if (r.bases == "CG") r.bases = "GC";
        if (r.bases != "AT" && r.bases != "GC" && r.bases != "ACGT")
            throw Error(where + "bases=" + visible_text(r.bases, 20) + ": give AT, GC or ACGT (a run on one strand is its complement's on the other)");
        r.max_run = a.count("max", 1, 100000);
    } else if (kind == "repeat") {
        r.kind = SynthesisRuleKind::Repeat;
        r.k = a.count("k", 4, 10000);
    } else if (kind == "hairpin") {
        r.kind = SynthesisRuleKind::Hairpin;
        r.k = a.count("stem", 4, 10000);
        r.window = a.count("window", 8, 100000);
        if (2 * r.k > r.window)
            throw Error(where + "a stem of " + std::to_string(r.k) + " and its reverse complement do not fit in a window of " +
                        std::to_string(r.window) + " (the window must be at least twice the stem)");
    } else if (kind == "forbid") {
        r.kind = SynthesisRuleKind::Forbid;
        const std::string list = a.text("sites");
        for (size_t i = 0; i <= list.size();) {
            const size_t j = std::min(list.find(',', i), list.size());
            const std::string item = list.substr(i, j - i);
            if (item.empty()) throw Error(where + "sites= has an empty item");
            try {
                r.sites.push_back(EnzymeTable::builtin().site_or_motif(item));
            } catch (const Error& e) {
                throw Error(where + "sites=: " + e.what());
            }
            r.names.push_back(item);
            i = j + 1;
            if (j == list.size()) break;
        }
    } else {
        throw Error(where + "unknown rule kind '" + visible_text(kind, 40) +
                    "' (length, gc, gc-window, gc-spread, homopolymer, repeat, hairpin, forbid)");
    }
    a.done();
    return r;
}

std::string file_stem(const std::string& file) {
    std::string stem = std::filesystem::path(file).filename().string();
    if (stem.size() > 6 && stem.compare(stem.size() - 6, 6, ".rules") == 0) stem.resize(stem.size() - 6);
    return stem;
}

}  // namespace

const char* synthesis_rule_kind_name(SynthesisRuleKind kind) {
    switch (kind) {
        case SynthesisRuleKind::Length: return "length";
        case SynthesisRuleKind::Gc: return "gc";
        case SynthesisRuleKind::GcWindow: return "gc-window";
        case SynthesisRuleKind::GcSpread: return "gc-spread";
        case SynthesisRuleKind::Homopolymer: return "homopolymer";
        case SynthesisRuleKind::Repeat: return "repeat";
        case SynthesisRuleKind::Hairpin: return "hairpin";
        case SynthesisRuleKind::Forbid: return "forbid";
    }
    return "?";
}

std::string SynthesisRule::describe() const {
    std::string s = synthesis_rule_kind_name(kind);
    switch (kind) {
        case SynthesisRuleKind::Length: return s + " min=" + std::to_string(min_length) + " max=" + std::to_string(max_length);
        case SynthesisRuleKind::Gc: return s + " min=" + percent(min) + " max=" + percent(max);
        case SynthesisRuleKind::GcWindow: return s + " window=" + std::to_string(window) + " min=" + percent(min) + " max=" + percent(max);
        case SynthesisRuleKind::GcSpread: return s + " window=" + std::to_string(window) + " max=" + percent(max);
        case SynthesisRuleKind::Homopolymer: return s + " bases=" + bases + " max=" + std::to_string(max_run);
        case SynthesisRuleKind::Repeat: return s + " k=" + std::to_string(k);
        case SynthesisRuleKind::Hairpin: return s + " stem=" + std::to_string(k) + " window=" + std::to_string(window);
        case SynthesisRuleKind::Forbid: {
            s += " sites=";
            for (size_t i = 0; i < names.size(); ++i) s += (i ? "," : "") + names[i];
            return s;
        }
    }
    return s;
}

SynthesisRuleSet SynthesisRuleSet::parse(std::string_view text, const std::string& file) {
    SynthesisRuleSet set;
    set.file = file;
    set.id = file_stem(file);
    bool header = false, have_name = false, have_description = false;
    size_t line_no = 0;
    for (size_t pos = 0; pos < text.size();) {
        const size_t nl = std::min(text.find('\n', pos), text.size());
        std::string_view raw = text.substr(pos, nl - pos);
        pos = nl + 1;
        ++line_no;
        const std::string where = file + ":" + std::to_string(line_no) + ": ";
        if (raw.find('\0') != std::string_view::npos) throw Error(where + "holds a NUL byte: not a rules file");
        std::string line = trim(raw);
        if (line.empty() || line[0] == '#') continue;
        if (!header) {
            if (words(line) != std::vector<std::string>{"carbon-synthesis-rules", "1"})
                throw Error(where + "expected 'carbon-synthesis-rules 1' as the first line of a rules file, found '" +
                            visible_text(line, 60) + "'");
            header = true;
            continue;
        }
        const std::vector<std::string> w = words(line);
        if (w[0] == "name" || w[0] == "description") {
            bool& have = w[0] == "name" ? have_name : have_description;
            if (have) throw Error(where + w[0] + " is given twice");
            const std::string value = trim(std::string_view(line).substr(w[0].size()));
            if (value.empty()) throw Error(where + w[0] + " needs its text");
            (w[0] == "name" ? set.name : set.description) = value;
            have = true;
        } else if (w[0] == "rule") {
            const size_t bar = line.find('|');
            const std::string source = bar == std::string::npos ? std::string() : trim(std::string_view(line).substr(bar + 1));
            if (source.empty())
                throw Error(where + "the rule has no source: end it with '| DOCUMENT: what it says' (the vendor's rule it stands for)");
            SynthesisRule r = parse_rule(words(std::string_view(line).substr(0, bar)), where);
            r.source = source;
            r.line = line_no;
            set.rules.push_back(std::move(r));
        } else {
            throw Error(where + "unknown line '" + visible_text(w[0], 40) + "' (name, description or rule)");
        }
    }
    const std::string where = file + ": ";
    if (!header) throw Error(where + "empty: not a rules file (the first line is 'carbon-synthesis-rules 1')");
    if (!have_name) throw Error(where + "has no 'name' line");
    if (set.rules.empty()) throw Error(where + "has no rules");
    // Two length rules (or two global GC rules) that no sequence can meet together are a contradiction.
    size_t lo = 0, hi = SIZE_MAX;
    double glo = 0, ghi = 1;
    for (const SynthesisRule& r : set.rules) {
        if (r.kind == SynthesisRuleKind::Length) {
            lo = std::max(lo, r.min_length);
            hi = std::min(hi, r.max_length);
            if (lo > hi) throw Error(file + ":" + std::to_string(r.line) + ": this length rule and an earlier one allow no length together");
        }
        if (r.kind == SynthesisRuleKind::Gc) {
            glo = std::max(glo, r.min);
            ghi = std::min(ghi, r.max);
            if (glo > ghi) throw Error(file + ":" + std::to_string(r.line) + ": this GC rule and an earlier one allow no GC content together");
        }
    }
    return set;
}

SynthesisRuleSet SynthesisRuleSet::load(const std::string& path) {
    return parse(read_regular_file(path, "rules file", 16u << 20), path);
}

const std::vector<SynthesisRuleSet>& SynthesisRuleSet::builtin() {
    static const std::vector<SynthesisRuleSet> sets = [] {
        std::vector<SynthesisRuleSet> v;
        for (const BuiltinRulesFile& f : kBuiltinRulesFiles) {
            SynthesisRuleSet s = parse(f.text, std::string("builtin:") + f.file);
            s.id = file_stem(f.file);
            v.push_back(std::move(s));
        }
        return v;
    }();
    return sets;
}

SynthesisRuleSet SynthesisRuleSet::find(const std::string& id_or_path) {
    for (const SynthesisRuleSet& s : builtin())
        if (s.id == id_or_path) return s;
    std::error_code ec;
    if (id_or_path.find('/') != std::string::npos || id_or_path.find(".rules") != std::string::npos ||
        std::filesystem::exists(id_or_path, ec))
        return load(id_or_path);
    std::string ids;
    for (const SynthesisRuleSet& s : builtin()) ids += (ids.empty() ? "" : ", ") + s.id;
    throw Error("'" + visible_text(id_or_path, 60) + "' is neither a built-in rule set (" + ids + ") nor a rules file");
}

std::string synthesis_length_notice(const SynthesisRuleSet& rules, size_t design_length) {
    for (const SynthesisRule& r : rules.rules)
        if (r.kind == SynthesisRuleKind::Length && (design_length < r.min_length || design_length > r.max_length))
            return rules.name + " makes " + std::to_string(r.min_length) + "-" + std::to_string(r.max_length) + " bases; the design is " +
                   std::to_string(design_length) + ": only as part of a construct of that length can it be ordered (" + rules.file + ":" +
                   std::to_string(r.line) + ")";
    return {};
}

void add_synthesis_constraints(const SynthesisRuleSet& rules, DesignConstraints& c) {
    auto tighter = [](auto& limit, auto value) { limit = limit ? std::min(limit, decltype(limit)(value)) : decltype(limit)(value); };
    c.synthesis_rules = rules.file.rfind("builtin:", 0) == 0 ? rules.id : rules.file;
    for (const SynthesisRule& r : rules.rules) {
        switch (r.kind) {
            case SynthesisRuleKind::Length: break;  // synthesis_length_notice
            case SynthesisRuleKind::Gc:
                c.gc_min = std::max(c.gc_min, r.min);
                c.gc_max = std::min(c.gc_max, r.max);
                if (c.gc_min > c.gc_max)
                    throw Error(rules.file + ":" + std::to_string(r.line) + ": the GC rule leaves no GC content together with the GC asked for");
                break;
            case SynthesisRuleKind::GcWindow: c.gc_windows.push_back({r.window, r.min, r.max}); break;
            case SynthesisRuleKind::GcSpread:
                if (c.gc_spread_window && c.gc_spread_window != r.window)
                    throw Error(rules.file + ":" + std::to_string(r.line) + ": a second GC spread rule with another window (" +
                                std::to_string(c.gc_spread_window) + " and " + std::to_string(r.window) +
                                " bases) cannot be enforced while generating: keep one");
                c.gc_spread_window = r.window;
                c.gc_spread_max = std::min(c.gc_spread_max, r.max);
                break;
            case SynthesisRuleKind::Homopolymer:
                if (r.bases.find('A') != std::string::npos) tighter(c.max_run_at, int(r.max_run));
                if (r.bases.find('G') != std::string::npos) tighter(c.max_run_gc, int(r.max_run));
                break;
            case SynthesisRuleKind::Repeat: tighter(c.unique_kmer, r.k); break;
            case SynthesisRuleKind::Hairpin:
                // Two hairpin rules: the shorter stem within the longer window keeps both.
                tighter(c.hairpin_stem, r.k);
                c.hairpin_window = std::max(c.hairpin_window, r.window);
                break;
            case SynthesisRuleKind::Forbid:
                for (const std::string& n : r.names)
                    if (std::find(c.forbidden_motifs.begin(), c.forbidden_motifs.end(), n) == c.forbidden_motifs.end())
                        c.forbidden_motifs.push_back(n);
                break;
        }
    }
}

}  // namespace carbon
