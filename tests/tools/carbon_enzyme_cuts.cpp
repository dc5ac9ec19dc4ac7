// Test tool for tests/python/test_enzymes_biopython.py: the compiled-in enzyme table and where each
// enzyme cuts each sequence of a file (one sequence per line), as JSON.
//   carbon_enzyme_cuts --table        [{"name", "site", "fst5", "fst3", "scd5", "scd3", "ovhg", "suppliers", "palindromic"}]
//   carbon_enzyme_cuts FILE           {"ENZYME": [[cuts of sequence 1], ...], ...} (enzyme_cuts)
//   carbon_enzyme_cuts --sites FILE   {"ENZYME": [[[start, reverse], ...] of sequence 1, ...], ...} (enzyme_sites)
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "carbon/motifs/enzymes.h"

using nlohmann::ordered_json;

int main(int argc, char** argv) {
    const auto& table = carbon::EnzymeTable::builtin();
    const std::string first = argc > 1 ? argv[1] : "";
    if (first == "--table") {
        ordered_json out = ordered_json::array();
        for (const carbon::Enzyme& e : table.enzymes())
            out.push_back({{"name", e.name}, {"site", e.site}, {"fst5", e.fst5}, {"fst3", e.fst3},
                           {"scd5", e.scd5 ? ordered_json(*e.scd5) : ordered_json(nullptr)},
                           {"scd3", e.scd3 ? ordered_json(*e.scd3) : ordered_json(nullptr)}, {"ovhg", e.ovhg},
                           {"suppliers", e.suppliers}, {"palindromic", e.palindromic}});
        std::cout << out.dump() << "\n";
        return 0;
    }
    const bool sites = first == "--sites";
    const std::string path = sites ? (argc > 2 ? argv[2] : "") : first;
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "usage: %s --table | [--sites] FILE (one sequence per line)\n", argv[0]);
        return 2;
    }
    std::vector<std::string> seqs;
    for (std::string line; std::getline(in, line);) seqs.push_back(line);
    ordered_json out = ordered_json::object();
    for (const carbon::Enzyme& e : table.enzymes()) {
        ordered_json per = ordered_json::array();
        for (const std::string& s : seqs) {
            if (sites) {
                ordered_json list = ordered_json::array();
                for (const carbon::EnzymeSite& x : carbon::enzyme_sites(e, s)) list.push_back({x.start, x.reverse});
                per.push_back(list);
            } else {
                per.push_back(carbon::enzyme_cuts(e, s));
            }
        }
        out[e.name] = per;
    }
    std::cout << out.dump() << "\n";
    return 0;
}
