// Import into and export from a project: FASTA (import: one transaction per file), designs as
// FASTA and TSV/CSV, per-base tracks as bedGraph and WIG fixedStep (IGV, UCSC), VCF panels of
// SNVs against a stored sequence, variant results as TSV, GenBank with regions as features, and
// GenBank / EMBL entries with their feature tables (import, and export of a stored sequence).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "carbon/storage/project.h"

namespace carbon::storage {

struct FastaImportResult {
    std::vector<int64_t> sequence_ids;
    int64_t bases = 0;
    size_t unnamed = 0;  // records with an empty name, stored as "record_N" (N = record number)
};
// Streams `path` (plain or gzip) into the project. Every record or none: a file that fails half
// way stores nothing, and the Error names file, line and column.
FastaImportResult import_fasta(Project& project, const std::string& path);

// Designs as FASTA, `ids` in that order (empty: every design, by run and rank), wrapped at
// `width` (0: one line). Header: ">name key=value ..." with run, rank, scores, length, gc and
// every run setting as run.<key>, values escaped with header_escape; a setting longer than 4,096
// bytes is written as run.<key>.omitted_bytes=N. Returns what it had to change, one line each.
std::vector<std::string> export_designs_fasta(Project& project, std::ostream& out, const std::vector<int64_t>& ids, size_t width);

// One row per design with its scores; `sep` '\t' (TSV) or ',' (CSV, fields quoted as needed).
void export_designs_table(Project& project, std::ostream& out, const std::vector<int64_t>& ids, char sep);

// A track of a design or sequence as bedGraph (0-based half-open, runs of equal values merged, NaN left
// out) or WIG fixedStep (1-based, a new block after every NaN gap). `channel` picks the column
// of a multi-value track (0-based; for 4-way distributions A, C, G, T); chrom is the design's or sequence's name.
// The owner of a track: a design or a stored sequence (exactly one id set).
struct TrackOwner {
    int64_t design_id = 0, sequence_id = 0;
};
void export_track_bedgraph(Project& project, std::ostream& out, const TrackOwner& owner, const std::string& kind, int channel = 0);
void export_track_wig(Project& project, std::ostream& out, const TrackOwner& owner, const std::string& kind, int channel = 0);

// Stored sequences as FASTA (every one, by id), ">name description", wrapped at `width`; a name
// with blanks or control characters is written escaped (header_escape), control characters in a
// description as %XX, so that every record stays one record. Returns what it had to change.
std::vector<std::string> export_sequences_fasta(Project& project, std::ostream& out, size_t width);

struct VcfImportResult {
    size_t imported = 0;
    std::vector<std::string> skipped;  // "FILE:LINE: why" for each record not imported
};
// SNVs of a VCF (plain or gzip, read by read_vcf_panel in vcf.h) on the stored sequence
// `sequence_id`: CHROM must be its name, POS 1-based within it, REF its base there;
// multi-allelic ALTs are split. Indels, symbolic alleles and other CHROMs are reported in
// `skipped`. Malformed lines are an Error naming file and line, and then nothing is stored.
VcfImportResult import_vcf(Project& project, const std::string& path, int64_t sequence_id);
// The same on the sequence named `sequence_name`; an Error when no sequence or several have it.
VcfImportResult import_vcf(Project& project, const std::string& path, const std::string& sequence_name);

// Variants of a sequence with their scores (NA where not computed), positions 1-based.
void export_variants_tsv(Project& project, std::ostream& out, int64_t sequence_id);

// A design as a GenBank flat file; its regions become features (design region -> misc_feature,
// pinned motif -> misc_feature /note="pinned", annotation -> misc_feature /note=label). A region
// that does not fit the design is refused before anything is written; returns what it had to
// change (a LOCUS name with blanks, control characters written as escapes).
std::vector<std::string> export_genbank(Project& project, std::ostream& out, int64_t design_id);

struct FlatImportResult {
    std::vector<int64_t> sequence_ids;
    int64_t bases = 0;
    size_t features = 0;
    std::vector<std::string> notices;  // "FILE:LINE: ..." for what was kept but is unusual
};
// Every record of a GenBank or EMBL file (flatfile.h) as a sequence (named by LOCUS / ID, the
// DEFINITION / DE as its description) with its feature table. The whole file is read before
// anything is stored, then stored in one transaction: a file that fails stores nothing, and the
// Error names file and line.
FlatImportResult import_flat_file(Project& project, const std::string& path);

// A stored sequence as a GenBank flat file with its features (locations and qualifiers as
// stored, long ones wrapped as GenBank does), which import_flat_file reads back to the same
// sequence and features. Returns what it had to change (a LOCUS name with blanks, or none).
std::vector<std::string> export_genbank_sequence(Project& project, std::ostream& out, int64_t sequence_id);

}  // namespace carbon::storage
