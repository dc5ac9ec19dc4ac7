// From designs to an order: each design as the construct that will be synthesised (an upstream
// flank, the design, a downstream flank: adapters, primers, cloning overhangs), written as the
// files vendors take (a Twist oligo pool CSV, IDT plate sheets as .xlsx with well positions) and as
// whole constructs in FASTA and GenBank (the parts as features).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "carbon/storage/project.h"

namespace carbon::storage {

struct ConstructFlanks {
    std::string upstream, downstream;  // A, C, G, T (any case; upper-cased); empty for none
};
// The flanks upper-cased; Error naming the flank and the 1-based position of a letter that is not
// A, C, G or T (a synthesis order holds exact bases).
ConstructFlanks checked_flanks(const ConstructFlanks& flanks);

struct OrderConstruct {
    int64_t design_id = 0, run_id = 0;
    int rank = 0;
    std::string name;  // unique in the order; letters, digits, '_', '-', '.' only
    std::string upstream, design, downstream;
    std::string sequence() const { return upstream + design + downstream; }
};

struct OrderSelection {
    std::vector<OrderConstruct> constructs;
    std::vector<std::string> notes;  // designs left out, names changed
};
// The constructs of designs `ids`, in that order (empty: every design not discarded, by run and
// rank; a discarded design named in `ids` is kept). Names: the design's, its characters outside
// letters, digits, '_', '-' and '.' as '_' (vendors refuse the rest), "design_ID" when empty, and
// "_ID" appended to a name another construct already has; each change said in `notes`. Error for
// an id with no design, a design with bases other than A, C, G, T (IUPAC codes cannot be ordered),
// or no designs at all.
// `flanks`: every design between these; nullopt: each design in the construct its run was made
// in (run_construct; none for a run made in none), each run's construct said in `notes`. Flanks
// given for designs whose run was made in another construct are noted too.
OrderSelection order_constructs(Project& project, const std::vector<int64_t>& ids, const std::optional<ConstructFlanks>& flanks);

// The settings a generation run made in construct `c` records beside its own (its name and both
// parts, so that later changes to the project's constructs never change what it was made in);
// and the construct a run's settings name (nullopt for a run made in none).
std::vector<std::pair<std::string, std::string>> construct_settings(const ConstructRecord& c);
std::optional<ConstructRecord> run_construct(const Run& run);

// Twist oligo pool: "Name,Sequence", one row per construct.
void write_twist_pool_csv(std::ostream& out, const std::vector<OrderConstruct>& constructs);

enum class PlateFill { Columns, Rows };  // A1, B1, ... H1, A2 (columns) or A1, A2, ... A12, B1 (rows)
// The well of the i-th construct (0-based) on plates of `wells` (96: A-H x 1-12; 384: A-P x 1-24):
// plate number (1-based) and well ("A1").
struct PlateWell {
    size_t plate = 0;
    std::string well;
};
PlateWell plate_well(size_t i, int wells, PlateFill fill);

// IDT plate upload: an .xlsx (through libxlsxwriter) with one sheet per plate ("Plate 1", ...),
// columns "Well Position", "Name", "Sequence". `name` is the output's, for messages. Error for a
// plate size other than 96 or 384.
void write_idt_plates_xlsx(std::ostream& out, const std::string& name, const std::vector<OrderConstruct>& constructs, int wells,
                           PlateFill fill);

// Whole constructs as FASTA: ">name design=ID run=R rank=K upstream=N design_bp=N downstream=N",
// wrapped at `width` (0: one line).
void write_constructs_fasta(std::ostream& out, const std::vector<OrderConstruct>& constructs, size_t width);

// Whole constructs as GenBank, one record each (LOCUS the construct's name), the upstream flank,
// the design and the downstream flank as misc_feature with their /note. Returns what it changed.
std::vector<std::string> write_constructs_genbank(std::ostream& out, const std::vector<OrderConstruct>& constructs);

}  // namespace carbon::storage
