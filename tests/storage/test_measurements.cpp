// The measurement-table reader: TSV and CSV tables as people write them (quotes, BOM, CRLF,
// comments, NA and empty cells, standard-error columns, name and sequence columns) read to exact
// values; every refusal naming the file, the line, the column and the reason; sequences resolved
// by name; the file's hash against an FNV-1a computed here.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>

#include "carbon/storage/measurements.h"
#include "carbon/support/common.h"
#include "check.h"
#include "storage_test_util.h"

using namespace carbon;
using namespace carbon::storage;
using storage_test::temp_path;

namespace {

MeasurementTable parse(const std::string& text, const std::string& name = "m.tsv",
                       const MeasurementLimits& limits = {}) {
    return parse_measurement_table(text, name, limits);
}

std::string write(const std::string& name, const std::string& text) {
    const std::string path = temp_path(name);
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

// FNV-1a 64 as the tree computes it (run_records.cpp's file_hash, index_cache.cpp, embedder.cpp):
// the offset basis 1469598103934665603, one digit short of the published 14695981039346656037.
// Hashes must agree with the ones already stored in projects, so the tree's value is kept.
std::string fnv1a64_here(const std::string& bytes) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    char out[32];
    std::snprintf(out, sizeof out, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
    return out;
}

bool missing(const std::optional<double>& v) {
    return !v.has_value();
}

}  // namespace

TEST(a_tsv_with_comments_na_se_and_both_identifiers_reads_to_exact_values) {
    const std::string text =
        "# MPRA, K562 and HepG2, 3 replicates averaged\n"
        "\n"
        "Name\tSequence\tK562\tK562_se\tHepG2\n"
        "  \t \n"
        "enh1\tacgtn\t1.5\t0.25\tNA\n"
        "# a comment between rows\n"
        " enh2 \tACGT\t-2e-3\t\tn/a\n"
        "enh3\tGGGG\t\t\t7\n";
    const MeasurementTable t = parse(text);
    CHECK_EQ(t.path, std::string("m.tsv"));
    CHECK_EQ(t.delimiter, '\t');
    CHECK(t.conditions == (std::vector<std::string>{"K562", "HepG2"}));
    CHECK(t.has_se == (std::vector<bool>{true, false}));
    CHECK_EQ(t.rows.size(), size_t(3));
    const MeasurementRow& a = t.rows[0];
    CHECK_EQ(a.line, size_t(5));
    CHECK_EQ(a.name, std::string("enh1"));
    CHECK_EQ(a.sequence, std::string("ACGTN"));
    CHECK_EQ(a.values.size(), size_t(2));
    CHECK_EQ(*a.values[0], 1.5);
    CHECK_EQ(*a.se[0], 0.25);
    CHECK(missing(a.values[1]) && missing(a.se[1]));
    const MeasurementRow& b = t.rows[1];
    CHECK_EQ(b.line, size_t(7));
    CHECK_EQ(b.name, std::string("enh2"));
    CHECK_EQ(*b.values[0], -2e-3);
    CHECK(missing(b.se[0]) && missing(b.values[1]));
    const MeasurementRow& c = t.rows[2];
    CHECK_EQ(c.line, size_t(8));
    CHECK(missing(c.values[0]) && missing(c.se[0]));
    CHECK_EQ(*c.values[1], 7.0);
    CHECK_EQ(t.hash, fnv1a64_here(text));
}

TEST(a_csv_with_bom_crlf_quotes_and_an_se_column_first_reads_to_exact_values) {
    const std::string text =
        "\xEF\xBB\xBF"
        "ID, HepG2_SEM ,\"K562, rep 1\",HepG2\r\n"
        "\"x \"\"quoted\"\", with comma\",0.5, \"3\" ,1e2\r\n"
        "\"y\",,+.25,NA\r\n"
        "z,\t0\t,\"\",-0\r\n";
    const MeasurementTable t = parse(text, "lab.CSV");
    CHECK_EQ(t.delimiter, ',');
    CHECK(t.conditions == (std::vector<std::string>{"K562, rep 1", "HepG2"}));
    CHECK(t.has_se == (std::vector<bool>{false, true}));
    CHECK_EQ(t.rows.size(), size_t(3));
    CHECK_EQ(t.rows[0].line, size_t(2));
    CHECK_EQ(t.rows[0].name, std::string("x \"quoted\", with comma"));
    CHECK(t.rows[0].sequence.empty());
    CHECK_EQ(*t.rows[0].values[0], 3.0);
    CHECK_EQ(*t.rows[0].values[1], 100.0);
    CHECK_EQ(*t.rows[0].se[1], 0.5);
    CHECK(missing(t.rows[0].se[0]));
    CHECK_EQ(t.rows[1].name, std::string("y"));
    CHECK_EQ(*t.rows[1].values[0], 0.25);
    CHECK(missing(t.rows[1].values[1]) && missing(t.rows[1].se[1]));
    CHECK_EQ(t.rows[2].line, size_t(4));
    CHECK(missing(t.rows[2].values[0]));
    CHECK_EQ(*t.rows[2].values[1], 0.0);
    CHECK_EQ(*t.rows[2].se[1], 0.0);
}

TEST(the_name_or_header_picks_the_delimiter) {
    CHECK_EQ(parse("seq\ta,b\nACGT\t1\n", "m.txt").conditions[0], std::string("a,b"));
    CHECK_EQ(parse("seq\ta,b\nACGT\t1\n", "m.TAB").delimiter, '\t');
    CHECK_EQ(parse("# a,b\nseq\ta,b\nACGT\t1\n", "measurements").delimiter, '\t');
    const MeasurementTable c = parse("seq,a\nACGT,1\n", "measurements.dat");
    CHECK_EQ(c.delimiter, ',');
    CHECK_EQ(*c.rows[0].values[0], 1.0);
    // A sequence-only table: the sequence identifies the row.
    CHECK_EQ(c.rows[0].sequence, std::string("ACGT"));
    CHECK(c.rows[0].name.empty());
    // Quotes in a tab-separated file too (R's write.table quotes strings).
    CHECK_EQ(parse("\"name\"\t\"a\"\n\"n, \"\"1\"\"\"\t2\n").rows[0].name, std::string("n, \"1\""));
}

TEST(a_file_is_read_whole_and_hashed_as_run_records_hash_files) {
    const std::string text = "name,K562\nenh1,0.125\nenh2,NA\n";
    const std::string path = write("table.csv", text);
    const MeasurementTable t = read_measurement_table(path);
    CHECK_EQ(t.path, path);
    CHECK_EQ(t.hash, fnv1a64_here(text));
    CHECK_EQ(t.delimiter, ',');
    CHECK_EQ(t.rows.size(), size_t(2));
    CHECK_EQ(*t.rows[0].values[0], 0.125);
    // Values computed outside C++ (Python), so that the loop here cannot agree with a wrong one.
    CHECK_EQ(fnv1a64_here(""), std::string("fnv1a64:14650fb0739d0383"));
    CHECK_EQ(fnv1a64_here("a"), std::string("fnv1a64:44bd8ad473cd9906"));
    CHECK_EQ(parse("name\tK\na\t1\n").hash, std::string("fnv1a64:ccd6cf2f93deb31f"));

    CHECK_THROWS_WITH(read_measurement_table(temp_path("absent.tsv")), "absent.tsv: ", "no such file");
    CHECK_THROWS_WITH(read_measurement_table(storage_test::fresh_dir("folder.tsv").string()),
                      "folder.tsv: ", "is a folder");
    MeasurementLimits small;
    small.max_file_bytes = 10;
    CHECK_THROWS_WITH(read_measurement_table(path, small), "table.csv: ", "(29 bytes); at most 10 bytes", "split it");
}

TEST(quoting_faults_are_refused_with_line_and_column) {
    CHECK_THROWS_WITH(parse("name,K562\n\"enh\n1\",2\nx,3\n", "q.csv"), "q.csv:2: ", "column 'name'",
                      "line breaks inside a field are not supported");
    CHECK_THROWS_WITH(parse("name,K562\nx,1\ny,\"2\n", "q.csv"), "q.csv:3: ", "column 'K562'", "never closed");
    CHECK_THROWS_WITH(parse("name,K562\nx,\"1\"2\n", "q.csv"), "q.csv:2: ", "column 'K562'",
                      "text after the closing quote");
    CHECK_THROWS_WITH(parse("name,\"K562\n", "q.csv"), "q.csv:1: ", "field 2 of the header", "never closed");
    CHECK_THROWS_WITH(parse("name,K562\rx,1\r", "mac.csv"), "mac.csv:1: ", "carriage return inside the line");
}

TEST(header_faults_are_refused_naming_the_columns) {
    CHECK_THROWS_WITH(parse("name\tK562\tK562_se\tHepG2_se\n"),
                      "m.tsv:1: ", "column 'HepG2_se' is a standard error of 'HepG2', which the table does not have");
    // <cond> must be the condition's name exactly.
    CHECK_THROWS_WITH(parse("name\tK562\tk562_stderr\n"), "m.tsv:1: ", "standard error of 'k562'");
    CHECK_THROWS_WITH(parse("name\tK562\tK562_se\tK562_SEM\n"),
                      "m.tsv:1: ", "columns 'K562_se' and 'K562_SEM' are both standard errors of 'K562'");
    CHECK_THROWS_WITH(parse("# c\nname\t\tK562\n"), "m.tsv:2: ", "column 2 of the header has no name");
    CHECK_THROWS_WITH(parse("name\tK562\tk562\n"), "m.tsv:1: ", "columns 2 and 3 are both named 'k562'",
                      "ignoring case");
    CHECK_THROWS_WITH(parse("name\tid\tK562\n"), "m.tsv:1: ", "columns 'name' and 'id' both hold the name");
    CHECK_THROWS_WITH(parse("SEQ\tsequence\tK562\n"),
                      "m.tsv:1: ", "columns 'SEQ' and 'sequence' both hold the sequence");
    CHECK_THROWS_WITH(parse("label\tK562\nx\t1\n"), "m.tsv:1: ", "neither a 'name' (or 'id') column nor a 'sequence'");
    CHECK_THROWS_WITH(parse("name\tsequence\nx\tACGT\n"), "m.tsv:1: ", "no condition column");
    CHECK_THROWS_WITH(parse("name\tK\x01\n"), "m.tsv:1: ", "column 2 of the header 'K\\x01' holds a control character");
    std::string wide = "name";
    for (int i = 0; i < 1000; ++i) wide += "\tc" + std::to_string(i);
    CHECK_THROWS_WITH(parse(wide + "\n"), "m.tsv:1: ", "the header has 1,001 columns", "at most 1,000");
    wide.erase(wide.rfind('\t'));  // 1000 columns is allowed
    const MeasurementTable t = parse(wide + "\nx" + std::string(999, '\t') + "\n");
    CHECK_EQ(t.conditions.size(), size_t(999));
    CHECK(missing(t.rows[0].values[998]));
}

TEST(ragged_rows_are_refused_with_both_counts) {
    CHECK_THROWS_WITH(parse("name\tK562\tHepG2\tWTC11\n# c\nx\t1\t2\t3\ny\t1\t2\n"),
                      "m.tsv:4: ", "line 4 has 3 fields, the header 4");
    CHECK_THROWS_WITH(parse("name,K562\nx,1,5\n", "m.csv"), "m.csv:2: ", "line 2 has 3 fields, the header 2",
                      "must be quoted");
}

TEST(values_that_are_not_measurements_are_refused_quoting_the_text) {
    const std::string h = "name\tK562\tK562_se\n";
    for (const char* nan : {"nan", "NaN", "-nan", "+NAN", "nan(0x1)"})
        CHECK_THROWS_WITH(parse(h + "x\t1\t0\ny\t" + nan + "\t\n"), "m.tsv:3: ", "column 'K562'",
                          "NaN is not a measurement: leave the cell empty or write NA for a missing value");
    for (const char* inf : {"inf", "-Inf", "+INFINITY", "infinity"})
        CHECK_THROWS_WITH(parse(h + "y\t" + inf + "\t\n"), "m.tsv:2: ", "column 'K562'",
                          "is not a measurement: write a finite number");
    CHECK_THROWS_WITH(parse(h + "y\t1,5\t\n"), "m.tsv:2: ", "column 'K562': '1,5' is not a number");
    CHECK_THROWS_WITH(parse(h + "y\t0x10\t\n"), "m.tsv:2: ", "'0x10' is not a number");
    CHECK_THROWS_WITH(parse(h + "y\t1 2\t\n"), "m.tsv:2: ", "'1 2' is not a number");
    CHECK_THROWS_WITH(parse(h + "y\t--1\t\n"), "m.tsv:2: ", "'--1' is not a number");
    CHECK_THROWS_WITH(parse(h + "y\t1e400\t\n"), "m.tsv:2: ", "'1e400' is out of the range of a double");
    // Long text is cut to 40 bytes and control characters are shown as escapes.
    const std::string cut = "'" + std::string(40, '7') + "...' is not a number";
    CHECK_THROWS_WITH(parse(h + "y\t" + std::string(100, '7') + "x\t\n"), "m.tsv:2: ", cut.c_str());
    CHECK_THROWS_WITH(parse(h + "y\tab\x1b[31m\t\n"), "m.tsv:2: ", "'ab\\x1b[31m' is not a number");
    // Standard errors.
    CHECK_THROWS_WITH(parse(h + "y\t1\t-0.5\n"),
                      "m.tsv:2: ", "column 'K562_se': a standard error cannot be negative ('-0.5')");
    CHECK_THROWS_WITH(parse(h + "y\t1\tNaN\n"), "m.tsv:2: ", "column 'K562_se': NaN is not a measurement");
    CHECK_THROWS_WITH(parse(h + "y\t1\tinf\n"), "m.tsv:2: ", "column 'K562_se': 'inf' is not a measurement");
    CHECK_THROWS_WITH(parse(h + "y\tNA\t0.1\n"),
                      "m.tsv:2: ", "column 'K562_se' holds '0.1' but column 'K562' is missing");
}

TEST(names_must_be_present_unique_short_and_plain) {
    const std::string h = "name,K562\n";
    CHECK_THROWS_WITH(parse(h + "x,1\n\"\",2\n", "n.csv"), "n.csv:3: ", "column 'name': the name is empty");
    CHECK_THROWS_WITH(parse(h + "x,1\n# c\ny,2\nx,3\n", "n.csv"),
                      "n.csv:5: ", "name 'x' on lines 2 and 5: average replicate measurements into one row first");
    CHECK_EQ(parse(h + std::string(1000, 'n') + ",1\n", "n.csv").rows[0].name.size(), size_t(1000));
    CHECK_THROWS_WITH(parse(h + std::string(1001, 'n') + ",1\n", "n.csv"),
                      "n.csv:2: ", "the name is longer than 1000 bytes");
    CHECK_THROWS_WITH(parse(h + "\"a\tb\",1\n", "n.csv"), "n.csv:2: ", "'a\\tb' holds a control character");
    CHECK_THROWS_WITH(parse(h + "caf\xE9,1\n", "n.csv"), "n.csv:2: ", "is not UTF-8 text: save the table as UTF-8");
    CHECK_EQ(parse(h + "caf\xC3\xA9,1\n", "n.csv").rows[0].name, std::string("caf\xC3\xA9"));
}

TEST(sequences_must_be_acgtn_and_unique_without_names) {
    CHECK_THROWS_WITH(parse("name\tsequence\tK562\nx\tACGTACGTACGTACGTX\t1\n"),
                      "m.tsv:2: ", "column 'sequence': 'X' at base 17 is not A, C, G, T or N");
    CHECK_THROWS_WITH(parse("seq\tK562\nAC-GT\t1\n"), "m.tsv:2: ", "column 'seq': '-' at base 3");
    CHECK_THROWS_WITH(parse("seq\tK562\nACU\t1\n"), "m.tsv:2: ", "'U' at base 3");
    CHECK_THROWS_WITH(parse("sequence\tK562\nACGT\t2\n\t1\n"), "m.tsv:3: ", "column 'sequence': the sequence is empty");
    CHECK_EQ(parse("name\tsequence\tK562\nx\t\t1\n").rows[0].sequence, std::string());  // named: left to a FASTA file
    CHECK_THROWS_WITH(parse("sequence,K562\nACGT,1\nGG,2\nacgt,3\n", "s.csv"),
                      "s.csv:4: ", "the same sequence on lines 2 and 4",
                      "average replicate measurements into one row first");
    // With names, one sequence may be measured under two names.
    CHECK_EQ(parse("name\tseq\tK\na\tACGT\t1\nb\tACGT\t2\n").rows.size(), size_t(2));
}

TEST(whole_file_faults_are_refused) {
    CHECK_THROWS_WITH(parse(""), "m.tsv:1: ", "no header line");
    CHECK_THROWS_WITH(parse("# only\n# comments\n\n"), "m.tsv:3: ", "no header line");
    CHECK_THROWS_WITH(parse("# c\nname\tK562\n\n# c\n"), "m.tsv:2: ", "no measurements");
    CHECK_THROWS_WITH(parse(std::string("\x1f\x8b\x08\0", 4)), "m.tsv:1: ", "gzip-compressed");
    CHECK_THROWS_WITH(parse("\xFF\xFEn\0a\0", "m.csv"), "m.csv:1: ", "UTF-16");
    // A line longer than 16 MiB, at the default limit.
    CHECK_THROWS_WITH(parse("name\tK562\nx\t" + std::string((size_t(16) << 20) - 1, '1') + "\n"),
                      "m.tsv:2: ", "the line is longer than 16,777,216 bytes");
    MeasurementLimits limits;
    limits.max_rows = 2;
    CHECK_EQ(parse("name\tK\na\t1\nb\t2\n", "m.tsv", limits).rows.size(), size_t(2));
    CHECK_THROWS_WITH(parse("name\tK\na\t1\nb\t2\n\nc\t3\n", "m.tsv", limits),
                      "m.tsv:5: ", "more than 2 rows: split the table");
}

TEST(a_condition_without_any_value_is_read) {
    const MeasurementTable t = parse("name\tK562\tempty\nx\t1\t\ny\t2\tNA\n");
    CHECK_EQ(t.conditions.size(), size_t(2));
    CHECK(missing(t.rows[0].values[1]) && missing(t.rows[1].values[1]));
}

TEST(sequences_are_resolved_by_name_or_refused_leaving_the_table_as_it_was) {
    MeasurementTable t = parse("name\tK562\nenh1\t1\nenh2\t2\nenh3\t3\n", "r.tsv");
    t.rows[2].sequence = "TTTT";  // as if it came from the file: left alone
    const std::map<std::string, std::string> genome{{"enh1", "acgtn"}, {"enh2", "GGCC"}, {"enh3", "XXXX"}};
    int asked = 0;
    auto lookup = [&](const std::string& n) -> std::optional<std::string> {
        ++asked;
        const auto it = genome.find(n);
        return it == genome.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    resolve_measurement_sequences(t, lookup, "project p.carbon");
    CHECK_EQ(asked, 2);
    CHECK_EQ(t.rows[0].sequence, std::string("ACGTN"));
    CHECK_EQ(t.rows[1].sequence, std::string("GGCC"));
    CHECK_EQ(t.rows[2].sequence, std::string("TTTT"));

    MeasurementTable u = parse("# c\nid\tK562\nenh1\t1\nmissing\t2\n", "r.tsv");
    CHECK_THROWS_WITH(resolve_measurement_sequences(u, lookup, "project p.carbon"),
                      "r.tsv:4: ", "no sequence named 'missing' in project p.carbon");
    CHECK(u.rows[0].sequence.empty());  // nothing filled on a refusal

    MeasurementTable v = parse("name\tK562\nenh3\t1\n", "r.tsv");
    CHECK_THROWS_WITH(resolve_measurement_sequences(v, lookup, "project p.carbon"),
                      "r.tsv:2: ", "the sequence named 'enh3' in project p.carbon has 'X' at base 1");
}

CHECK_MAIN()
