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

}  // namespace carbon::storage
