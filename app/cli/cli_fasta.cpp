// carbon-cli FASTA (cli_fasta.h): storage::FastaReader, the one reader, with the alphabet the
// scoring commands take and their rules (a name on every header, bases in every record, half the
// memory available for all of them).
#include "cli_fasta.h"

#include <cstdint>
#include <fstream>

#include "carbon/storage/fasta.h"
#include "carbon/support/common.h"

namespace carbon::cli {

namespace {

// Half the memory available now: the records are held whole, and the engine needs the rest.
size_t sequence_budget() {
    std::ifstream meminfo("/proc/meminfo");
    for (std::string key; meminfo >> key;) {
        size_t kib = 0;
        meminfo >> kib;
        if (key == "MemAvailable:") return kib * 1024 / 2;
        meminfo.ignore(64, '\n');
    }
    return SIZE_MAX;
}

}  // namespace

std::vector<FastaRecord> read_fasta(const std::string& path) {
    storage::FastaReader reader(path);
    reader.set_alphabet(storage::FastaReader::Alphabet::Letters);
    const size_t budget = sequence_budget();
    const std::string why = "more than half the memory this machine has available (" + std::to_string(budget >> 20) + " MiB)";
    reader.limit_record_bases(budget, why);
    std::vector<FastaRecord> out;
    size_t total = 0;
    for (storage::FastaEntry e; reader.next(e);) {
        if (e.name.empty()) throw Error(path + ":" + std::to_string(e.line) + ": FASTA header has no name after '>'");
        if (e.bases.empty())
            throw Error(path + ":" + std::to_string(e.line) + ": record '" + e.name + "' has no bases (a header line without sequence)");
        total += e.bases.size();
        if (total > budget) throw Error(path + ":" + std::to_string(e.line) + ": the records hold " + why);
        out.push_back({std::move(e.name), std::move(e.description), std::move(e.bases), e.line});
    }
    return out;
}

}  // namespace carbon::cli
