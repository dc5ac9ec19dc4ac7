// Order files for designs as constructs (order_files.h).
#include "carbon/storage/order_files.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <xlsxwriter.h>

#include "carbon/support/visible_text.h"
#include "format_util.h"
#include "temp_file.h"

namespace carbon::storage {

namespace {

bool vendor_name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

// First position (1-based) of a letter other than A, C, G, T (any case), or 0.
size_t first_non_acgt(const std::string& s) {
    for (size_t i = 0; i < s.size(); ++i)
        switch (s[i]) {
            case 'A': case 'C': case 'G': case 'T': case 'a': case 'c': case 'g': case 't': break;
            default: return i + 1;
        }
    return 0;
}

std::string upper(std::string s) {
    for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

// libxlsxwriter's call, checked.
void xlsx_check(lxw_error e, const std::string& name, const char* what) {
    if (e != LXW_NO_ERROR) throw Error(name + ": libxlsxwriter could not " + what + " (" + lxw_strerror(e) + ")");
}

}  // namespace

ConstructFlanks checked_flanks(const ConstructFlanks& flanks) {
    for (const auto& [what, s] : {std::pair<const char*, const std::string&>{"upstream flank", flanks.upstream},
                                  std::pair<const char*, const std::string&>{"downstream flank", flanks.downstream}})
        if (const size_t at = first_non_acgt(s))
            throw Error(std::string(what) + ": position " + std::to_string(at) + " is '" + visible_text(s.substr(at - 1, 1)) +
                        "'; a construct to order holds A, C, G and T only");
    return {upper(flanks.upstream), upper(flanks.downstream)};
}

std::vector<std::pair<std::string, std::string>> construct_settings(const ConstructRecord& c) {
    return {{"construct", c.name}, {"construct_upstream", c.upstream}, {"construct_downstream", c.downstream}};
}

std::optional<ConstructRecord> run_construct(const Run& run) {
    const auto name = run.setting("construct");
    if (!name || name->empty()) return std::nullopt;
    ConstructRecord c;
    c.name = *name;
    c.upstream = run.setting("construct_upstream").value_or("");
    c.downstream = run.setting("construct_downstream").value_or("");
    return c;
}

OrderSelection order_constructs(Project& project, const std::vector<int64_t>& ids, const std::optional<ConstructFlanks>& flanks) {
    const std::optional<ConstructFlanks> given = flanks ? std::optional(checked_flanks(*flanks)) : std::nullopt;
    std::vector<DesignRecord> designs;
    OrderSelection sel;
    if (ids.empty()) {
        size_t discarded = 0;
        for (DesignRecord& d : project.list_designs()) {
            if (d.flag == "discarded") ++discarded;
            else designs.push_back(std::move(d));
        }
        if (discarded) sel.notes.push_back(std::to_string(discarded) + " discarded design(s) left out (name them with --designs to order them)");
    } else {
        for (int64_t id : ids) {
            auto d = project.design(id);
            if (!d) throw Error(project.path() + ": no design with id " + std::to_string(id));
            designs.push_back(std::move(*d));
        }
    }
    if (designs.empty()) throw Error(project.path() + ": no designs to order");
    // Each run's construct, read once, and said once.
    std::map<int64_t, std::optional<ConstructFlanks>> runs;
    auto construct_of = [&](int64_t run_id) -> const std::optional<ConstructFlanks>& {
        auto [it, fresh] = runs.try_emplace(run_id);
        if (!fresh) return it->second;
        const auto run = project.run(run_id);
        const auto c = run ? run_construct(*run) : std::nullopt;
        if (!c) return it->second;
        const std::string in = "run " + std::to_string(run_id) + " was made in construct '" + visible_text(c->name, 80) + "' (" +
                               std::to_string(c->upstream.size()) + " + " + std::to_string(c->downstream.size()) + " bp)";
        if (given) {
            if (c->upstream != given->upstream || c->downstream != given->downstream)
                sel.notes.push_back(in + "; its designs are ordered between the flanks given instead");
        } else {
            try {
                it->second = checked_flanks({c->upstream, c->downstream});
            } catch (const Error& e) {
                throw Error(project.path() + ": " + in + ": " + e.what());
            }
            sel.notes.push_back(in + "; its designs are ordered in it");
        }
        return it->second;
    };
    std::set<std::string> taken;
    std::set<int64_t> bare;  // runs made in no construct, ordered without flanks
    for (const DesignRecord& d : designs) {
        const std::string what = "design " + std::to_string(d.id);
        if (d.bases.empty()) throw Error(project.path() + ": " + what + " has no bases");
        if (const size_t at = first_non_acgt(d.bases))
            throw Error(project.path() + ": " + what + ": position " + std::to_string(at) + " is '" + visible_text(d.bases.substr(at - 1, 1)) +
                        "'; a construct to order holds A, C, G and T only");
        std::string name = d.name;
        for (char& c : name)
            if (!vendor_name_char(c)) c = '_';
        if (name.empty()) name = "design_" + std::to_string(d.id);
        if (taken.count(name)) name += "_" + std::to_string(d.id);
        if (name != d.name)
            sel.notes.push_back(what + " '" + visible_text(d.name, 80) + "' is ordered as '" + name +
                                "' (names hold letters, digits, '_', '-' and '.' and are unique in an order)");
        taken.insert(name);
        const std::optional<ConstructFlanks>& own = construct_of(d.run_id);  // read (and said) either way
        const ConstructFlanks f = given ? *given : own.value_or(ConstructFlanks{});
        if (!given && !own) bare.insert(d.run_id);
        sel.constructs.push_back({d.id, d.run_id, d.rank, name, f.upstream, upper(d.bases), f.downstream});
    }
    // An order that mixes designs made in a construct with bare ones says which are bare.
    if (!bare.empty() && bare.size() < runs.size()) {
        std::string list;
        for (int64_t r : bare) list += (list.empty() ? "" : ", ") + std::to_string(r);
        sel.notes.push_back("run(s) " + list + " were made in no construct: their designs are ordered without flanks (give --upstream / "
                            "--downstream or --construct to put every design between the same flanks)");
    }
    return sel;
}

void write_twist_pool_csv(std::ostream& out, const std::vector<OrderConstruct>& constructs) {
    out << "Name,Sequence\n";
    for (const OrderConstruct& c : constructs) out << c.name << ',' << c.sequence() << '\n';
    if (!out) throw Error("cannot write the Twist order (disk full?)");
}

PlateWell plate_well(size_t i, int wells, PlateFill fill) {
    if (wells != 96 && wells != 384) throw Error("a plate has 96 or 384 wells, not " + std::to_string(wells));
    const size_t rows = wells == 96 ? 8 : 16, cols = wells == 96 ? 12 : 24, in_plate = i % size_t(wells);
    const size_t r = fill == PlateFill::Columns ? in_plate % rows : in_plate / cols;
    const size_t c = fill == PlateFill::Columns ? in_plate / rows : in_plate % cols;
    return {i / size_t(wells) + 1, std::string(1, char('A' + r)) + std::to_string(c + 1)};
}

void write_idt_plates_xlsx(std::ostream& out, const std::string& name, const std::vector<OrderConstruct>& constructs, int wells,
                           PlateFill fill) {
    if (wells != 96 && wells != 384) throw Error(name + ": a plate has 96 or 384 wells, not " + std::to_string(wells));
    TempFile tmp("idt", ".xlsx");
    lxw_workbook* book = workbook_new(tmp.path.c_str());
    if (!book) throw Error(name + ": libxlsxwriter could not start the workbook");
    try {
        lxw_format* bold = workbook_add_format(book);
        format_set_bold(bold);
        lxw_worksheet* sheet = nullptr;
        size_t plate = 0, row = 0;
        for (size_t i = 0; i < constructs.size(); ++i) {
            const PlateWell w = plate_well(i, wells, fill);
            if (w.plate != plate) {
                plate = w.plate;
                sheet = workbook_add_worksheet(book, ("Plate " + std::to_string(plate)).c_str());
                if (!sheet) throw Error(name + ": libxlsxwriter could not add the sheet of plate " + std::to_string(plate));
                xlsx_check(worksheet_write_string(sheet, 0, 0, "Well Position", bold), name, "write a heading");
                xlsx_check(worksheet_write_string(sheet, 0, 1, "Name", bold), name, "write a heading");
                xlsx_check(worksheet_write_string(sheet, 0, 2, "Sequence", bold), name, "write a heading");
                worksheet_set_column(sheet, 0, 0, 14, nullptr);
                worksheet_set_column(sheet, 1, 1, 28, nullptr);
                worksheet_set_column(sheet, 2, 2, 60, nullptr);
                row = 1;
            }
            const OrderConstruct& c = constructs[i];
            xlsx_check(worksheet_write_string(sheet, lxw_row_t(row), 0, w.well.c_str(), nullptr), name, "write a well");
            xlsx_check(worksheet_write_string(sheet, lxw_row_t(row), 1, c.name.c_str(), nullptr), name, "write a name");
            xlsx_check(worksheet_write_string(sheet, lxw_row_t(row), 2, c.sequence().c_str(), nullptr), name, "write a sequence");
            ++row;
        }
    } catch (...) {
        workbook_close(book);
        throw;
    }
    xlsx_check(workbook_close(book), name, "write the workbook");
    tmp.copy_into(out, name);
}

void write_constructs_fasta(std::ostream& out, const std::vector<OrderConstruct>& constructs, size_t width) {
    for (const OrderConstruct& c : constructs) {
        out << '>' << c.name << " design=" << c.design_id << " run=" << c.run_id << " rank=" << c.rank << " upstream=" << c.upstream.size()
            << " design_bp=" << c.design.size() << " downstream=" << c.downstream.size() << '\n';
        const std::string s = c.sequence();
        const size_t w = width ? width : std::max<size_t>(s.size(), 1);
        for (size_t i = 0; i < s.size(); i += w) out << s.substr(i, w) << '\n';
    }
    if (!out) throw Error("cannot write the constructs (disk full?)");
}

std::vector<std::string> write_constructs_genbank(std::ostream& out, const std::vector<OrderConstruct>& constructs) {
    std::vector<std::string> notes;
    for (const OrderConstruct& c : constructs) {
        const std::string s = c.sequence(), what = "construct " + c.name;
        out << genbank_locus_line(genbank_locus_name(c.name, "design_" + std::to_string(c.design_id), what, notes), s.size(), "SYN", "");
        out << "DEFINITION  Carbon Studio construct " << c.name << ": design " << c.design_id << " (run " << c.run_id << ", rank " << c.rank
            << ") with its flanks.\n";
        out << "ACCESSION   .\nVERSION     .\nKEYWORDS    .\nSOURCE      synthetic DNA construct\n"
            << "  ORGANISM  synthetic DNA construct\n            other sequences; artificial sequences.\n";
        out << "FEATURES             Location/Qualifiers\n";
        out << "     source          1.." << s.size() << "\n                     /mol_type=\"other DNA\"\n"
            << "                     /organism=\"synthetic DNA construct\"\n";
        auto feature = [&](size_t start, size_t len, const std::string& note) {
            if (!len) return;
            const std::string loc = len == 1 ? std::to_string(start + 1) : std::to_string(start + 1) + ".." + std::to_string(start + len);
            out << "     misc_feature    " << loc << "\n                     /note=\"" << note << "\"\n";
        };
        feature(0, c.upstream.size(), "upstream flank");
        feature(c.upstream.size(), c.design.size(), "design " + std::to_string(c.design_id) + " (run " + std::to_string(c.run_id) + ", rank " +
                                                        std::to_string(c.rank) + ")");
        feature(c.upstream.size() + c.design.size(), c.downstream.size(), "downstream flank");
        write_genbank_origin(out, s);
    }
    if (!out) throw Error("cannot write the GenBank constructs (disk full?)");
    return notes;
}

}  // namespace carbon::storage
