// Sites required at a place (DesignConstraints::required_sites, `--require-site EcoRI@12`): the
// list's syntax and its refusals; every generated design (FNS and direct, sampled) holds each site
// where asked, on the strand asked, and keeps the other constraints; DesignChecker refuses a
// design without it; and requests no design can satisfy are refused before any work, naming the
// site and the position: past the design's end, against the template, against another required
// site, a forbidden motif the site itself makes.
#include <string>

#include "carbon/fns/fns.h"
#include "carbon/generation/design_check.h"
#include "carbon/generation/fns_generate.h"
#include "carbon/model.h"
#include "check.h"
#include "test_model_dir.h"

using namespace carbon;

namespace {

Model& tiny() { return testing_support::tiny_cpu_model(); }
const std::string kContext = "ATGCGCTAGCTACGATCGATCGTAGCTAGCTAGCTA";

DesignRequest request(size_t length, size_t count) {
    DesignRequest r;
    r.left_context = kContext;
    r.length = length;
    r.count = count;
    r.sampling = {1.0f, 1.0f, 11};
    return r;
}

}  // namespace

TEST(the_list_is_parsed_and_written_back) {
    const auto s = parse_required_sites("EcoRI@12, BsaI@40:-,GGWCC@3:+");
    CHECK_EQ(s.size(), size_t(3));
    CHECK(s[0].motif == "EcoRI" && s[0].position == 11 && !s[0].reverse);
    CHECK(s[1].motif == "BsaI" && s[1].position == 39 && s[1].reverse);
    CHECK(s[2].motif == "GGWCC" && s[2].position == 2 && !s[2].reverse);
    CHECK_EQ(format_required_sites(s), std::string("EcoRI@12,BsaI@40:-,GGWCC@3"));
    CHECK(parse_required_sites("").empty());
    CHECK_THROWS_WITH(parse_required_sites("EcoRI12"), "required site 1 'EcoRI12'", "NAME@POSITION");
    CHECK_THROWS_WITH(parse_required_sites("EcoRI@1,@3"), "required site 2");
    CHECK_THROWS_WITH(parse_required_sites("EcoRI@0"), "required site 1");
    CHECK_THROWS_WITH(parse_required_sites("EcoRI@x"), "required site 1");
    CHECK_THROWS_WITH(parse_required_sites("EcoRI@3:x"), "required site 1");
    CHECK_THROWS_WITH(parse_required_sites("EcoRI@3,,BsaI@5"), "required site 2 is empty");
}

TEST(every_design_holds_the_sites_where_asked) {
    for (GenerationMode mode : {GenerationMode::Fns, GenerationMode::Direct}) {
        DesignRequest r = request(60, 12);
        r.mode = mode;
        r.constraints.required_sites = parse_required_sites("EcoRI@10,BsaI@30:-");
        r.constraints.forbidden_motifs = {"BamHI"};
        r.constraints.max_homopolymer = 4;
        const GenerationResult res = generate_designs(tiny().backend(), tiny().tokenizer(), r);
        CHECK_EQ(res.designs.size(), size_t(12));
        const DesignChecker checker(tiny().tokenizer(), r);
        size_t distinct = 0;
        for (const Design& d : res.designs) {
            CHECK_EQ(d.bases.size(), size_t(60));
            CHECK_EQ(d.bases.substr(9, 6), std::string("GAATTC"));
            CHECK_EQ(d.bases.substr(29, 6), std::string("GAGACC"));  // GGTCTC read on the bottom strand
            CHECK(checker.allows(d.bases));
            CHECK(d.bases.find("GGATCC") == std::string::npos);
            distinct += d.bases != res.designs[0].bases;
        }
        CHECK(distinct > 0);  // sampled around the sites, not one fixed design
        // Without the site where asked, the checker refuses the design, at the site's first base.
        std::string broken = res.designs[0].bases;
        broken[11] = broken[11] == 'A' ? 'C' : 'A';
        size_t where = 0;
        CHECK(!checker.allows(broken, &where));
        CHECK_EQ(where, size_t(11));
    }
}

TEST(impossible_sites_are_refused_with_the_place) {
    auto gen = [](DesignRequest r) { return generate_designs(tiny().backend(), tiny().tokenizer(), r); };
    DesignRequest r = request(20, 1);
    r.constraints.required_sites = parse_required_sites("EcoRI@16");
    CHECK_THROWS_WITH(gen(r), "required site 1 (EcoRI, site GAATTC at design position 16)", "runs past the design's end (20 bases)");
    r = request(0, 1);
    r.template_iupac = "NNNNNNNNNNTNNNNNNNNN";
    r.constraints.required_sites = parse_required_sites("EcoRI@10");
    CHECK_THROWS_WITH(gen(r), "required site 1", "design position 11 cannot hold the site's base");
    r = request(20, 1);
    r.constraints.required_sites = parse_required_sites("EcoRI@3,BsaI@5");
    CHECK_THROWS_WITH(gen(r), "required site 2 (BsaI", "cannot hold");
    r = request(20, 1);
    r.constraints.required_sites = parse_required_sites("EcoRI@3");
    r.constraints.forbidden_motifs = {"EcoRI"};
    CHECK_THROWS_WITH(gen(r), "forbidden motif EcoRI", "3-8");
    r = request(20, 1);
    r.constraints.required_sites = parse_required_sites("EcoRl@3");
    CHECK_THROWS_WITH(gen(r), "required site 1");
}

CHECK_MAIN()
