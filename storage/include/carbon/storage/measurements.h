// A table of lab measurements (MPRA activity and the like) that a user imports to fit an activity
// predictor: one row per construct, a name and/or a sequence column, one column per condition,
// optional standard-error columns. The file is someone else's: every refusal is a carbon::Error
// "FILE:LINE: what, and what to do" naming the column by its header name; nothing is guessed.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace carbon::storage {

struct MeasurementRow {
    size_t line = 0;       // 1-based line in the file
    std::string name;      // "" when the table has no name column
    std::string sequence;  // upper-case A/C/G/T/N; "" when the table has no sequence column (resolved later by name)
    std::vector<std::optional<double>> values;  // per condition; nullopt = missing (empty cell or NA)
    std::vector<std::optional<double>> se;      // per condition; nullopt where no SE column or missing
};

struct MeasurementTable {
    std::string path;  // as given, for messages
    std::string hash;  // "fnv1a64:%016llx" of the file's bytes (run_records.cpp's file_hash, same offset basis)
    char delimiter = '\t';
    std::vector<std::string> conditions;  // condition column names, in file order
    std::vector<bool> has_se;             // per condition: an SE column was given
    std::vector<MeasurementRow> rows;
};

// What an untrusted table may hold. The defaults are the ones the application uses; tests lower
// them to reach the refusals without writing gigabytes.
struct MeasurementLimits {
    size_t max_file_bytes = size_t(1) << 30;  // the file is read whole
    size_t max_line_bytes = size_t(16) << 20;
    size_t max_rows = 10'000'000;
    size_t max_columns = 1000;
    size_t max_name_bytes = 1000;  // row names and column names
};

// The format, as read:
// - Delimiter: a ".csv" name (any case) means commas; ".tsv", ".txt", ".tab" tabs; any other name
//   tabs when the header line holds one, else commas. A field may be double-quoted (RFC 4180: a
//   quote inside is written twice; the delimiter may appear inside); a line break inside one is
//   refused. Fields lose surrounding blanks (spaces; tabs too in comma-separated files).
// - A UTF-8 byte order mark, CRLF line breaks, '#' comment lines and blank lines are accepted.
// - The header is the first other line. `name` (or `id`) and `sequence` (or `seq`), any case,
//   at least one of them; every other column is a condition, except `<cond>_se`, `<cond>_sem`
//   and `<cond>_stderr` (suffix in any case, <cond> exactly a condition's name): its standard error.
// - Values: empty, NA or N/A (any case) for missing; otherwise a decimal number, the whole field
//   (NaN and infinities refused). Standard errors finite and >= 0, only beside a value.
// - Names non-empty, unique, UTF-8 without control characters; sequences A/C/G/T/N (either case),
//   non-empty and unique when there is no name column (a named row may leave its sequence empty
//   for resolve_measurement_sequences to fill).
// - At least one data row.
MeasurementTable read_measurement_table(const std::string& path, const MeasurementLimits& limits = {});
// The same from memory (tests, fuzzing); `display_name` stands for the file in messages and
// picks the delimiter as a file name would.
MeasurementTable parse_measurement_table(std::string_view text, std::string display_name,
                                         const MeasurementLimits& limits = {});

// Fills the rows' empty `sequence` from `lookup(name)` (upper-cased; it must be A/C/G/T/N like a
// sequence in the file); rows that have one are left alone. An unknown name is an Error
// "FILE:LINE: no sequence named 'X' in <source_description>". On an Error the table is unchanged.
void resolve_measurement_sequences(MeasurementTable& t,
                                   const std::function<std::optional<std::string>(const std::string&)>& lookup,
                                   const std::string& source_description);

}  // namespace carbon::storage
