// Synthesis rule sets: what a vendor can make, as data files (resources/synthesis/*.rules, one per
// vendor and product, compiled in and also read from any path), and every sequence checked against
// them with each rule it breaks and where.
//
// A rules file is text: '#' starts a comment; the first line is "carbon-synthesis-rules 1"; then
// "name TEXT" and "description TEXT" once each, and one rule per line,
//     rule KIND key=value ... | SOURCE
// the source (the vendor's document and what it says) required on every rule. The kinds, each
// judged exactly as DnaChisel 3.2 judges its counterpart (tests/python/test_synthesis_dnachisel.py
// holds the two equal, verdicts and locations, rule by rule):
//     length min=N max=N            SequenceLengthBounds(min, max)
//     gc min=F max=F                EnforceGCContent(min, max): the whole sequence
//     gc-window window=W min=F max=F  EnforceGCContent(min, max, window=W): every W-base window
//     gc-spread window=W max=F      the highest W-base window's GC minus the lowest's at most F
//                                   (Twist's 50-bp rule; DnaChisel has no counterpart)
//     homopolymer bases=AT|GC|ACGT max=N   AvoidPattern("{N+1}xA") (and C): no run longer than N
//     repeat k=K                    UniquifyAllKmers(K): no K-mer twice, either strand
//     hairpin stem=S window=W       AvoidHairpins(S, W): no S-mer whose reverse complement lies
//                                   within W bases after it
//     forbid sites=NAME,...         AvoidPattern(site) on both strands: enzymes by name (BsaI) or
//                                   IUPAC motifs
// Fractions are written 0.25 or 25%. Bad files are refused with the file, the line and why.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace carbon {

struct DesignConstraints;

enum class SynthesisRuleKind { Length, Gc, GcWindow, GcSpread, Homopolymer, Repeat, Hairpin, Forbid };
const char* synthesis_rule_kind_name(SynthesisRuleKind kind);

struct SynthesisRule {
    SynthesisRuleKind kind = SynthesisRuleKind::Length;
    size_t min_length = 0, max_length = 0;  // Length
    double min = 0.0, max = 1.0;            // Gc, GcWindow (fractions); GcSpread: max only
    size_t window = 0;                      // GcWindow, GcSpread, Hairpin
    std::string bases;                      // Homopolymer: "AT", "GC" or "ACGT"
    size_t max_run = 0;                     // Homopolymer
    size_t k = 0;                           // Repeat: K; Hairpin: the stem
    std::vector<std::string> names;         // Forbid: as written (an enzyme or a motif)
    std::vector<std::string> sites;         // Forbid: their sites, IUPAC
    std::string source;                     // the vendor's document, as the file cites it
    size_t line = 0;                        // where the rule is in its file
    // The rule in the file's own words ("gc-window window=50 min=0.25 max=0.75").
    std::string describe() const;
};

struct SynthesisRuleSet {
    std::string id;           // the file's stem: twist-oligo-pool
    std::string name;         // "Twist Bioscience oligo pools"
    std::string description;
    std::string file;         // where it was read from (builtin:twist-oligo-pool.rules for the compiled-in ones)
    std::vector<SynthesisRule> rules;

    // `text` in the format above; Error "FILE:LINE: reason" for anything else (an unknown kind or
    // key, a value that is not a number, min above max, a stem too long for its window, an
    // enzyme name misspelt, a rule without its source).
    static SynthesisRuleSet parse(std::string_view text, const std::string& file);
    static SynthesisRuleSet load(const std::string& path);
    // The rule sets compiled in (resources/synthesis/*.rules), by id.
    static const std::vector<SynthesisRuleSet>& builtin();
    // A built-in id, or else a path to a rules file; Error listing the built-in ids for neither.
    static SynthesisRuleSet find(const std::string& id_or_path);
};

// [begin, end) in the checked sequence, 0-based.
using SequenceSpan = std::pair<size_t, size_t>;

struct SynthesisBreach {
    size_t rule = 0;                       // index into the set's rules
    std::vector<SequenceSpan> locations;   // as DnaChisel reports them (see synthesis_check.cpp)
    std::string what;                      // for people: "GC 71.2% above 65%", "run of 12 A at 40-51"
};

// Locations joined where they overlap or touch, sorted: how a breach is shown to people (every
// window of a long run, every k-mer of a repeat, as one span).
std::vector<SequenceSpan> merged_locations(std::vector<SequenceSpan> locations);

// Every rule `sequence` breaks (A, C, G, T in either case; Error naming the position for anything
// else), in the order of the rules.
std::vector<SynthesisBreach> check_synthesis(const SynthesisRuleSet& rules, std::string_view sequence);

// The rules as generation constraints (fns_generate.h) added to `c`: global GC narrows the GC
// window, homopolymers the runs, forbidden sites join the forbidden motifs, and the windowed GC,
// the GC spread, repeats and hairpins are enforced while generating on every window that holds a
// design base (reading into the context and the flank); c.synthesis_rules records the set's id.
// Error (file and line) for two rules that cannot be enforced together.
void add_synthesis_constraints(const SynthesisRuleSet& rules, DesignConstraints& c);
// What to tell a user whose design length falls outside the set's length rule (the design may yet
// be part of a longer construct); empty when it fits.
std::string synthesis_length_notice(const SynthesisRuleSet& rules, size_t design_length);

}  // namespace carbon
