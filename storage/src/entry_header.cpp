// EntryHeader as JSON, and the fields GenBank can write back (see entry_header.h).
#include "carbon/storage/entry_header.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <utility>

#include "carbon/support/common.h"

namespace carbon::storage {

namespace {

using Field = std::pair<const char*, std::string EntryHeader::*>;
constexpr Field kFields[] = {
    {"molecule", &EntryHeader::molecule}, {"topology", &EntryHeader::topology}, {"division", &EntryHeader::division},
    {"date", &EntryHeader::date},         {"accession", &EntryHeader::accession}, {"version", &EntryHeader::version},
    {"keywords", &EntryHeader::keywords}, {"source", &EntryHeader::source},     {"organism", &EntryHeader::organism},
    {"lineage", &EntryHeader::lineage},
};

bool is_word(const std::string& s, size_t max) {
    return !s.empty() && s.size() <= max &&
           std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'; });
}

bool is_date(const std::string& s) {  // DD-MMM-YYYY
    static const char* const kMonths[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
    if (s.size() != 11 || s[2] != '-' || s[6] != '-') return false;
    for (size_t i : {0u, 1u, 7u, 8u, 9u, 10u})
        if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    return std::any_of(std::begin(kMonths), std::end(kMonths), [&](const char* m) { return s.compare(3, 3, m) == 0; });
}

bool is_line(const std::string& s) {
    return s.size() <= 4096 && std::none_of(s.begin(), s.end(), [](char c) { return c == '\n' || c == '\r' || c == '\0'; });
}

}  // namespace

EntryHeader writable_entry_header(EntryHeader h) {
    if (!is_word(h.molecule, 7)) h.molecule.clear();
    if (h.topology != "linear" && h.topology != "circular") h.topology.clear();
    if (!(h.division.size() == 3 && std::all_of(h.division.begin(), h.division.end(), [](char c) { return c >= 'A' && c <= 'Z'; })))
        h.division.clear();
    if (!is_date(h.date)) h.date.clear();
    if (!is_word(h.accession, 64)) h.accession.clear();
    if (!is_word(h.version, 64)) h.version.clear();
    for (std::string* s : {&h.keywords, &h.source, &h.organism, &h.lineage})
        if (!is_line(*s)) s->clear();
    return h;
}

std::string entry_header_json(const EntryHeader& header) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [name, member] : kFields)
        if (!(header.*member).empty()) j[name] = header.*member;
    return j.dump();
}

EntryHeader parse_entry_header_json(const std::string& json, const std::string& where) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(json);
    } catch (const std::exception&) {
        throw Error(where + ": the entry header is not JSON");
    }
    if (!j.is_object()) throw Error(where + ": the entry header is not a JSON object");
    EntryHeader h;
    for (const auto& [name, member] : kFields) {
        const auto it = j.find(name);
        if (it == j.end()) continue;
        if (!it->is_string()) throw Error(where + ": the entry header's " + name + " is not text");
        h.*member = it->get<std::string>();
    }
    return writable_entry_header(std::move(h));
}

}  // namespace carbon::storage
