// Prints what the GenBank / EMBL reader makes of a file, as JSON on standard output (records,
// sequences, features with their parsed parts and qualifiers, notices), for
// tests/python/test_flatfile_biopython.py to compare with Biopython. A test tool, not installed.
// Exit status 1 with the reader's message on standard error when the file is refused.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "carbon/storage/flatfile.h"
#include "carbon/support/common.h"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: carbon_flatfile_dump FILE\n");
        return 2;
    }
    try {
        const carbon::storage::FlatFile f = carbon::storage::read_flat_file(argv[1]);
        nlohmann::json out = {{"records", nlohmann::json::array()}, {"notices", f.notices}};
        for (const auto& r : f.records) {
            nlohmann::json rec = {{"format", r.format}, {"name", r.name}, {"accession", r.accession},
                                  {"description", r.description}, {"circular", r.circular}, {"bases", r.bases},
                                  {"features", nlohmann::json::array()}};
            for (const auto& ft : r.features) {
                nlohmann::json parts = nlohmann::json::array(), quals = nlohmann::json::array();
                for (const auto& p : ft.parts) parts.push_back({p.start, p.end, p.reverse ? -1 : 1, p.before_start, p.after_end});
                for (const auto& [k, v] : ft.qualifiers) quals.push_back({k, v ? nlohmann::json(*v) : nlohmann::json(nullptr)});
                rec["features"].push_back({{"key", ft.key}, {"location", ft.location}, {"remote", ft.remote}, {"line", ft.line},
                                           {"parts", parts}, {"qualifiers", quals}});
            }
            out["records"].push_back(std::move(rec));
        }
        std::cout << out.dump() << "\n";
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
