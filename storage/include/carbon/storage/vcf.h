// Reading a VCF panel of single-base substitutions against one reference sequence, streamed
// (plain or gzip) with limits: lines of at most kVcfMaxLine bytes, no binary bytes, linear time
// in the file size. Independent of project files, so that it can be fuzzed on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace carbon::storage {

// The longest VCF line accepted (a data line of 100,000 samples is a few MiB).
constexpr size_t kVcfMaxLine = size_t(64) << 20;

struct VcfSnv {
    int64_t position = 0;  // 0-based
    char ref = 'N', alt = 'N';
    std::string label;  // the ID column, "" for '.'
};

struct VcfPanel {
    std::vector<VcfSnv> snvs;
    std::vector<std::string> skipped;  // "FILE:LINE: why" for each record not taken
};

// SNVs of the VCF on `chrom`, whose bases are `bases`: CHROM must be `chrom`, POS 1-based within
// it, REF its base there; multi-allelic ALTs are split. Indels, symbolic alleles, other CHROMs
// and REF mismatches are reported in `skipped`. Anything that is not VCF is a carbon::Error
// naming file, line and (where it helps) column.
VcfPanel read_vcf_panel(const std::string& path, const std::string& chrom, std::string_view bases);
// The same over text in memory (tests, fuzzing); `display_name` stands for the file in messages.
VcfPanel read_vcf_panel_text(std::string_view text, const std::string& display_name, const std::string& chrom, std::string_view bases);

}  // namespace carbon::storage
