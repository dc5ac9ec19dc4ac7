// Restriction enzymes by name: the commercially available enzymes of REBASE (resources/enzymes.tsv,
// compiled in; made from Biopython's copy of REBASE by resources/make_enzymes_tsv.py) with their
// recognition sites (IUPAC) and cut positions, and where an enzyme recognises and cuts a sequence,
// on both strands, exactly as Biopython's Bio.Restriction reports it (the reference the tests hold
// it to). Used wherever a site is asked for: `--forbid EcoRI,BsaI` is the enzymes' sites.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace carbon {

struct Enzyme {
    std::string name;   // as REBASE spells it: EcoRI, BsaI
    std::string site;   // recognition site, IUPAC, 5' to 3' on the top strand
    // Cuts in Bio.Restriction's convention: with the site starting at 1-based position s, the first
    // base after the top-strand cut is s + fst5; a site on the bottom strand (non-palindromic
    // enzymes) cuts at s - fst3. scd5/scd3: a second cut (enzymes such as BaeI cut on both sides).
    int fst5 = 0, fst3 = 0;
    std::optional<int> scd5, scd3;
    int ovhg = 0;           // overhang: negative 5', positive 3', 0 blunt
    std::string suppliers;  // REBASE supplier codes (N: New England Biolabs, ...)
    bool palindromic = false;  // the site is its own reverse complement
};

class EnzymeTable {
public:
    // Reads a table in the layout of resources/enzymes.tsv ('#' comment lines, a header line, then
    // name, site, fst5, fst3, scd5, scd3, ovhg, suppliers, tab-separated). Throws Error naming
    // `source`, the line and the column for anything else (unknown letters in a site, a number
    // that is not one, a name twice, a second cut on one strand only).
    static EnzymeTable parse(std::string_view text, const std::string& source);
    // The table compiled into the program.
    static const EnzymeTable& builtin();

    const std::vector<Enzyme>& enzymes() const { return enzymes_; }
    const Enzyme* find(std::string_view name) const;  // exact name; null when absent
    // An enzyme's site, or a motif given as IUPAC letters (upper-cased), whichever `item` is; throws
    // Error saying it is neither, with the enzymes whose names differ only in case as suggestions.
    std::string site_or_motif(const std::string& item) const;
    const std::string& source() const { return source_; }

private:
    std::vector<Enzyme> enzymes_;  // sorted by name
    std::string source_;
};

// Where `enzyme` cuts `sequence` (a linear molecule; letters A C G T N in either case; anything
// else matches only an N of the site): as Bio.Restriction's search(seq, linear=True) reports it,
// 1-based positions of the first base after each top-strand cut, from the sites on both strands,
// cuts that would fall outside the molecule left out; sorted.
std::vector<int64_t> enzyme_cuts(const Enzyme& enzyme, std::string_view sequence);

// Where the site occurs: 0-based starts on the top strand, and whether it was read on the bottom
// strand (a non-palindromic site's reverse complement). Every occurrence, cut inside the molecule
// or not (what a forbidden site means).
struct EnzymeSite {
    size_t start;
    bool reverse;
};
std::vector<EnzymeSite> enzyme_sites(const Enzyme& enzyme, std::string_view sequence);

}  // namespace carbon
