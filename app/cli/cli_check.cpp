// carbon-cli check: designs (or whole constructs: the design between its flanks) checked against a
// vendor's synthesis rule set (carbon/generation/synthesis_rules.h), each rule broken and where.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "carbon/generation/synthesis_rules.h"
#include "carbon/support/output_file.h"
#include "carbon/support/visible_text.h"
#include "cli_args.h"
#include "cli_common.h"
#include "cli_fasta.h"
#include "commands.h"

namespace carbon::cli {

namespace {

const char* kCheckUsage = R"(usage: carbon-cli check --rules SET|FILE.rules --in DESIGNS.fasta [--upstream SEQ] [--downstream SEQ]
             [--out FILE] [--json]
       carbon-cli check --list-rules [--rules SET|FILE.rules]
  Checks every sequence of DESIGNS.fasta against a synthesis rule set: the built-in ones
  (twist-oligo-pool, twist-gene-fragment, idt-gblock, idt-opool; --list-rules shows their rules and
  the vendor documents they come from) or a rules file of your own in the same format. With
  --upstream/--downstream each design is checked as the construct that will be made (upstream +
  design + downstream), so a rule broken only across a junction counts; positions are the
  construct's. Writes one line per rule broken (tab-separated: name, length, rule, file:line,
  positions 1-based, what), or with --json every breach with the locations as DnaChisel reports
  them (0-based, end exclusive); stderr says how many designs pass. Exit status 0 either way.
)";

std::string upper_bases(const std::string& what, const std::string& s) {
    std::string u = s;
    for (size_t i = 0; i < u.size(); ++i) {
        u[i] = char(std::toupper(static_cast<unsigned char>(u[i])));
        if (u[i] != 'A' && u[i] != 'C' && u[i] != 'G' && u[i] != 'T')
            throw Error(what + " holds '" + visible_text(s.substr(i, 1)) + "' at position " + std::to_string(i + 1) +
                        ": flanks are A, C, G and T only");
    }
    return u;
}

// Locations merged where they overlap or touch, 1-based: "12-31,40-59".
std::string merged_spans(const std::vector<SequenceSpan>& spans) {
    std::string out;
    for (const SequenceSpan& s : merged_locations(spans))
        out += (out.empty() ? "" : ",") + std::to_string(s.first + 1) + "-" + std::to_string(s.second);
    return out;
}

void list_rules(const std::vector<SynthesisRuleSet>& sets) {
    for (const SynthesisRuleSet& s : sets) {
        std::printf("%s\t%s\t%s\n", s.id.c_str(), s.name.c_str(), s.file.c_str());
        for (const SynthesisRule& r : s.rules) std::printf("  %s\t%s\n", r.describe().c_str(), r.source.c_str());
    }
}

}  // namespace

int cmd_check(const std::vector<std::string>& argv) {
    if (wants_help(argv, kCheckUsage)) return 0;
    Args a(argv, {"rules", "in", "upstream", "downstream", "out"}, {"json", "list-rules"});
    if (a.flag("list-rules")) {
        list_rules(a.get("rules") ? std::vector<SynthesisRuleSet>{SynthesisRuleSet::find(*a.get("rules"))} : SynthesisRuleSet::builtin());
        return 0;
    }
    const SynthesisRuleSet rules = SynthesisRuleSet::find(a.required("rules"));
    const std::string in = a.required("in");
    const std::string up = upper_bases("--upstream", a.get_or("upstream", "")), down = upper_bases("--downstream", a.get_or("downstream", ""));
    std::optional<OutputFile> out;
    if (a.get("out")) out.emplace(*a.get("out"));  // a wrong --out is refused before the work

    const std::vector<FastaRecord> recs = read_fasta(in);
    std::ostringstream os;
    nlohmann::json js = nlohmann::json::array();
    if (!a.flag("json")) os << "name\tlength\trule\twhere\tpositions\twhat\n";
    size_t pass = 0;
    for (const FastaRecord& r : recs) {
        const std::string construct = up + r.sequence + down;
        std::vector<SynthesisBreach> breaches;
        try {
            breaches = check_synthesis(rules, construct);
        } catch (const Error& e) {
            throw Error(in + ":" + std::to_string(r.line) + ": " + visible_text(r.name, 80) + ": " + e.what());
        }
        pass += breaches.empty();
        if (a.flag("json")) {
            nlohmann::json rec = nlohmann::json::object();
            rec["name"] = r.name;
            rec["length"] = construct.size();
            rec["breaches"] = nlohmann::json::array();
            for (const SynthesisBreach& b : breaches) {
                const SynthesisRule& rule = rules.rules[b.rule];
                nlohmann::json locs = nlohmann::json::array();
                for (const SequenceSpan& l : b.locations) {
                    nlohmann::json pair = nlohmann::json::array();
                    pair.push_back(l.first);
                    pair.push_back(l.second);
                    locs.push_back(std::move(pair));
                }
                nlohmann::json one = nlohmann::json::object();
                one["rule"] = rule.describe();
                one["kind"] = synthesis_rule_kind_name(rule.kind);
                one["line"] = rule.line;
                one["locations"] = std::move(locs);
                one["what"] = b.what;
                rec["breaches"].push_back(std::move(one));
            }
            js.push_back(std::move(rec));
            continue;
        }
        for (const SynthesisBreach& b : breaches) {
            const SynthesisRule& rule = rules.rules[b.rule];
            os << r.name << '\t' << construct.size() << '\t' << rule.describe() << '\t' << rules.file << ':' << rule.line << '\t'
               << merged_spans(b.locations) << '\t' << b.what << '\n';
        }
    }
    const std::string text = a.flag("json") ? js.dump() + "\n" : os.str();
    if (out) {
        out->stream() << text;
        out->commit();
    } else {
        std::fwrite(text.data(), 1, text.size(), stdout);
    }
    std::fprintf(stderr, "%zu of %zu %s pass %s (%s)\n", pass, recs.size(), up.empty() && down.empty() ? "sequences" : "constructs",
                 rules.name.c_str(), rules.file.c_str());
    return 0;
}

}  // namespace carbon::cli
