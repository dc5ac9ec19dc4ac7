// design_constraints_from_args (cli_constraints.h).
#include "cli_constraints.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "carbon/generation/fns_generate.h"
#include "carbon/generation/synthesis_rules.h"
#include "carbon/motifs/motif.h"
#include "carbon/support/common.h"

namespace carbon::cli {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string part;
    while (std::getline(ss, part, sep))
        if (!part.empty()) out.push_back(part);
    return out;
}

}  // namespace

DesignConstraints design_constraints_from_args(const Args& a) {
    DesignConstraints c;
    c.max_homopolymer = int(a.integer("max-homopolymer", 0, 0, 1000000));
    c.forbidden_motifs = split(a.get_or("forbid", ""), ',');
    if (auto sites = a.get("require-site")) {
        try {
            c.required_sites = parse_required_sites(*sites);
        } catch (const Error& e) {
            throw Error(std::string("--require-site: ") + e.what());
        }
    }
    if (a.get("forbid-pvalue") && !a.get("forbid-matrices")) throw Error("--forbid-pvalue needs --forbid-matrices FILE");
    if (auto f = a.get("forbid-matrices")) {
        const double p = a.number("forbid-pvalue", 1e-4, 1e-300, 1.0);
        if (p >= 1.0) throw Error("--forbid-pvalue must be below 1: at 1 every window of every matrix is a match");
        for (const Motif& m : read_motifs(*f))
            c.forbidden_matrices.push_back(
                {make_pssm(m, uniform_background(), 0.5), -1e300, m.id + " (" + m.name + ")", p});
    }
    if ((a.get("require-pvalue") || a.get("require-within")) && !a.get("require-matrices"))
        throw Error("--require-pvalue and --require-within need --require-matrices FILE");
    if (auto f = a.get("require-matrices")) {
        const double p = a.number("require-pvalue", 1e-4, 1e-300, 1.0);
        size_t from = 0, to = 0;
        if (auto w = a.get("require-within")) {
            const auto dash = w->find('-');
            char* end = nullptr;
            const std::string lo = dash == std::string::npos ? "" : w->substr(0, dash),
                              hi = dash == std::string::npos ? "" : w->substr(dash + 1);
            const long long l = std::strtoll(lo.c_str(), &end, 10);
            const bool lo_ok = !lo.empty() && !*end;
            const long long h = std::strtoll(hi.c_str(), &end, 10);
            if (!lo_ok || hi.empty() || *end || l < 1 || h < l)
                throw Error("--require-within must be FROM-TO, 1-based design positions with FROM <= TO, e.g. 20-80 (got '" +
                            *w + "')");
            from = size_t(l - 1);
            to = size_t(h);
        }
        for (const Motif& m : read_motifs(*f))
            c.required_matrices.push_back(
                {make_pssm(m, uniform_background(), 0.5), -1e300, m.id + " (" + m.name + ")", from, to, p});
    }
    if (auto gc = a.get("gc")) {
        // Fractions (0.4-0.6) or percentages (40%-60%); 40-60 is refused with both spellings shown.
        auto dash = gc->find('-');
        if (dash == std::string::npos) throw Error("--gc must be MIN-MAX, e.g. 0.4-0.6 or 40%-60%");
        std::string lo = gc->substr(0, dash), hi = gc->substr(dash + 1);
        const bool lo_pct = !lo.empty() && lo.back() == '%', hi_pct = !hi.empty() && hi.back() == '%';
        if (lo_pct != hi_pct)
            throw Error("--gc " + *gc + ": write both bounds as fractions (0.4-0.6) or both as percentages (40%-60%)");
        if (lo_pct) {
            lo.pop_back();
            hi.pop_back();
        }
        auto bound = [&](const std::string& text) {
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            if (text.empty() || *end || !std::isfinite(v)) throw Error("--gc: '" + text + "' is not a number");
            return lo_pct ? v / 100.0 : v;
        };
        c.gc_min = bound(lo);
        c.gc_max = bound(hi);
        if (!lo_pct && (c.gc_min > 1.0 || c.gc_max > 1.0))
            throw Error("--gc " + *gc + ": GC content is a fraction from 0 to 1; for percentages write " + lo + "%-" + hi +
                        "%");
    }
    if (auto rules = a.get("rules")) {
        try {
            add_synthesis_constraints(SynthesisRuleSet::find(*rules), c);
        } catch (const Error& e) {
            throw Error(std::string("--rules: ") + e.what());
        }
    }
    return c;
}

void say_synthesis_length(const Args& a, size_t design_length) {
    if (auto rules = a.get("rules")) {
        const std::string notice = synthesis_length_notice(SynthesisRuleSet::find(*rules), design_length);
        if (!notice.empty()) std::fprintf(stderr, "note: %s\n", notice.c_str());
    }
}

}  // namespace carbon::cli
