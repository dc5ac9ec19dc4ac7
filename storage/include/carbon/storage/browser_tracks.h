// Files for genome browsers: tracks as bigWig, through libBigWig (the indexed, zoomable binary
// format UCSC and IGV read a window at a time; bedGraph, which browsers load whole, stays for
// small tracks: formats.h), and IGV session files that open a reference with its tracks and VCFs.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "carbon/storage/formats.h"
#include "carbon/storage/project.h"
#include "carbon/storage/reference.h"

namespace carbon::storage {

// A value over bases [start, end) of a chromosome (0-based, half-open).
struct TrackInterval {
    int64_t start = 0, end = 0;
    float value = 0;
};
struct TrackChrom {
    std::string name;
    int64_t length = 0;
    std::vector<TrackInterval> intervals;  // by start, not overlapping, within [0, length)
};

// Writes the chromosomes, in their order, as a bigWig (with zoom levels, for browsing) to `out`:
// libBigWig writes a file, so it is made in the temporary folder, read back whole, then copied
// into `out` (an OutputFile's stream: nothing appears under the user's name until it is complete).
// Refused before anything is written, with an Error naming `name` (the output, for messages) and
// the chromosome: an empty, repeated or blank-containing name, a length of 0 or over 2^32 - 1,
// intervals out of order, overlapping, empty, past the chromosome's end, or with a value that is
// not finite.
void write_bigwig(std::ostream& out, const std::string& name, const std::vector<TrackChrom>& chroms);

// A design's or stored sequence's track as export_track_bedgraph (formats.h) writes it: runs of
// equal values merged, NaN left out, the chromosome named after the design or sequence.
TrackChrom track_intervals(Project& project, const TrackOwner& owner, const std::string& kind, int channel = 0);

// The same track as a bigWig: write_bigwig(out, name, {track_intervals(...)}).
void export_track_bigwig(Project& project, std::ostream& out, const std::string& name, const TrackOwner& owner,
                         const std::string& kind, int channel = 0);

// Which number of a vep row a track shows (vep_result.h's columns).
enum class VepValue { WindowDeltaMean, WindowDelta, WindowDeltaRc, SiteLogOdds };
// "window_delta_mean", ... ; parse_vep_value throws an Error listing the names for another.
const char* vep_value_name(VepValue v);
VepValue parse_vep_value(const std::string& name);

struct VepTrackSummary {
    size_t rows = 0;       // rows of the run
    size_t positions = 0;  // bases written
    size_t without_value = 0;  // rows not scored, or whose value is NA (not written)
};
// A vep run's scores as a bigWig: at each VCF position with a value, one base whose value is the
// row's `value`; where several rows share a position (alternative alleles, overlapping records)
// the one of largest magnitude, the first of equals in the run's order. Chromosomes: `contigs`
// (the reference's faidx index, ReferenceGenome::contigs()), in their order. A row on a contig
// the reference lacks, or past its end, is an Error naming the row (the run was scored against
// another reference).
VepTrackSummary export_vep_bigwig(Project& project, std::ostream& out, const std::string& name, int64_t run_id,
                                  const std::vector<ReferenceContig>& contigs, VepValue value = VepValue::WindowDeltaMean);

// An IGV session: the genome (a FASTA, indexed beside itself or not: IGV indexes it) and the
// resources (bigWig, bedGraph, VCF, BED...) loaded over it, in order.
struct IgvSession {
    std::string genome;
    std::vector<std::string> resources;
    std::string locus;  // where IGV opens ("chr1:1000-2000"); empty: the whole genome
};
// Writes the session XML to `out`, the file `session_path` (an OutputFile's stream). Paths are
// written relative to the session's folder, so that the folder can be moved or shared whole.
// Error naming the file for a genome or resource that does not exist, before anything is written.
void write_igv_session(std::ostream& out, const std::string& session_path, const IgvSession& session);

// The contigs a vep run's scores lie on: those of `reference` (a genome FASTA) when given, else of
// the run's ##reference, through its faidx index (built into `index_dir` when the FASTA has no
// current one; a note then); for a run scored against the project's own sequences
// ("project:FILE"), those sequences (each one-word name once). `genome` gets the FASTA's path, or
// is left empty for the project's sequences.
std::vector<ReferenceContig> vep_run_contigs(Project& project, const Run& run, const std::string& reference,
                                             const std::string& index_dir, std::string& genome, std::vector<std::string>& notes);

// A vep run for a genome browser: its scores as a bigWig beside the session (the session's name
// + ".vep-runID.bw"), and the IGV session that opens the genome with them, the VCF and `tracks`.
// This is what `carbon-cli project export --format igv --run ID` and the window's Variant Effects
// dock both do.
struct VepBrowserExport {
    int64_t run_id = 0;
    std::string session_path;
    // The genome: empty takes the run's (its ##reference). A run scored against the project's own
    // sequences ("project:FILE") gets them written as FASTA beside the session (its name + ".fa").
    std::string reference;
    // The VCF: empty takes the run's (##vcf) when that file is still there (else left out, said in
    // `notes`); one given here must exist.
    std::string vcf;
    std::vector<std::string> tracks;
    std::string locus;
    VepValue value = VepValue::WindowDeltaMean;
    std::string index_dir;  // where reference indexes are built (ReferenceGenome::default_index_dir())
};
struct VepBrowserFiles {
    std::string bigwig, genome;
    VepTrackSummary summary;
    size_t resources = 0;            // in the session
    std::vector<std::string> notes;  // what was left out or built, for the user
};
// Writes the session to `session_out` (an OutputFile of request.session_path) after the bigWig
// (and genome FASTA) beside it, each through an OutputFile of its own. Every file the session
// names is checked to exist before anything is written; errors as write_bigwig's and
// write_igv_session's.
VepBrowserFiles export_vep_for_igv(Project& project, std::ostream& session_out, const VepBrowserExport& request);

}  // namespace carbon::storage
