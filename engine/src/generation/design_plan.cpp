// Design plans and constraint checks (see design_plan.h).
#include "design_plan.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "carbon/motifs/enzymes.h"
#include "carbon/support/visible_text.h"

namespace carbon {

namespace {

char upper(char c) { return c >= 'a' && c <= 'z' ? char(c - 32) : c; }

bool is_gc(char c) { return c == 'G' || c == 'C'; }

std::vector<BaseMask> reverse_complement_mask(const std::vector<BaseMask>& m) {
    // Complement swaps A<->T (bits 0,1) and C<->G (bits 2,3).
    std::vector<BaseMask> r(m.rbegin(), m.rend());
    for (BaseMask& b : r) b = BaseMask(((b & 1) << 1) | ((b & 2) >> 1) | ((b & 4) << 1) | ((b & 8) >> 1));
    return r;
}

BaseMask char_bit(char c) {
    const int code = base_code(c);
    return code < 0 ? BaseMask(0) : base_bit(code);
}

// The context and the flank are sequence: letters of the IUPAC nucleotide code, either case (N and
// the other non-ACGT codes become <oov> tokens, said in the notices). Anything else ('!', a digit,
// a blank) is a typing or pasting mistake the model would otherwise read as <oov> in silence.
void require_bases(std::string_view text, const char* what) {
    static constexpr std::string_view kIupac = "ACGTURYSWKMBDHVN";
    for (size_t i = 0; i < text.size(); ++i) {
        const char u = char(std::toupper(static_cast<unsigned char>(text[i])));
        if (kIupac.find(u) == std::string_view::npos)
            throw Error(std::string(what) + " holds '" + visible_text(text.substr(i, 1)) + "' at position " + std::to_string(i + 1) +
                        ": only bases can be given (A, C, G, T, or an IUPAC code such as N)");
    }
}

// Each required site written into the design's masks: its bases (IUPAC) where the template allows
// them; an Error naming the site for one that runs past the design or that the template (or an
// earlier site) rules out at a position.
void apply_required_sites(const std::vector<RequiredSite>& sites, std::vector<BaseMask>& masks) {
    for (size_t k = 0; k < sites.size(); ++k) {
        const RequiredSite& rs = sites[k];
        std::string site;
        try {
            site = EnzymeTable::builtin().site_or_motif(rs.motif);
        } catch (const Error& e) {
            throw Error("required site " + std::to_string(k + 1) + ": " + e.what());
        }
        const std::string what = "required site " + std::to_string(k + 1) + " (" + rs.motif +
                                 (EnzymeTable::builtin().find(rs.motif) ? ", site " + site : std::string()) + (rs.reverse ? ", bottom strand" : "") +
                                 " at design position " + std::to_string(rs.position + 1) + ")";
        std::vector<BaseMask> m = parse_template(site, what.c_str());
        if (rs.reverse) m = reverse_complement_mask(m);
        if (rs.position + m.size() > masks.size())
            throw Error(what + " runs past the design's end (" + std::to_string(masks.size()) + " bases)");
        for (size_t j = 0; j < m.size(); ++j) {
            const BaseMask both = masks[rs.position + j] & m[j];
            if (!both)
                throw Error(what + ": design position " + std::to_string(rs.position + j + 1) +
                            " cannot hold the site's base: the template or another required site rules it out");
            masks[rs.position + j] = both;
        }
    }
}

}  // namespace

std::vector<RequiredSite> parse_required_sites(const std::string& text) {
    std::vector<RequiredSite> out;
    size_t item = 0;
    for (size_t i = 0; i <= text.size();) {
        const size_t j = std::min(text.find(',', i), text.size());
        std::string part = text.substr(i, j - i);
        i = j + 1;
        while (!part.empty() && part.front() == ' ') part.erase(0, 1);
        while (!part.empty() && part.back() == ' ') part.pop_back();
        ++item;
        if (part.empty()) {
            if (j == text.size() && item == 1) break;  // an empty list
            throw Error("required site " + std::to_string(item) + " is empty");
        }
        const std::string bad = "required site " + std::to_string(item) + " '" + visible_text(part, 60) +
                                "': expected NAME@POSITION (EcoRI@12, an IUPAC motif such as GGTCTC@5, or BsaI@40:- for the bottom strand)";
        const size_t at = part.find('@');
        if (at == std::string::npos || at == 0) throw Error(bad);
        RequiredSite rs;
        rs.motif = part.substr(0, at);
        std::string pos = part.substr(at + 1);
        if (pos.size() > 2 && pos[pos.size() - 2] == ':' && (pos.back() == '-' || pos.back() == '+')) {
            rs.reverse = pos.back() == '-';
            pos.resize(pos.size() - 2);
        }
        if (pos.empty() || pos.size() > 9 || pos.find_first_not_of("0123456789") != std::string::npos || std::stoul(pos) == 0)
            throw Error(bad);
        rs.position = std::stoul(pos) - 1;
        out.push_back(std::move(rs));
        if (j == text.size()) break;
    }
    return out;
}

std::string format_required_sites(const std::vector<RequiredSite>& sites) {
    std::string s;
    for (const RequiredSite& r : sites)
        s += (s.empty() ? "" : ",") + r.motif + "@" + std::to_string(r.position + 1) + (r.reverse ? ":-" : "");
    return s;
}

Plan make_plan(const Tokenizer& tok, const DesignRequest& r, std::vector<std::string>& notices) {
    require_bases(r.left_context, "the context");
    require_bases(r.right_flank, "the right flank");
    Plan p;
    if (r.count == 0 || r.count > 100000) throw Error("design count must be between 1 and 100000");
    if (!(r.sampling.temperature >= 0.f) || !std::isfinite(r.sampling.temperature))
        throw Error("temperature must be a finite number >= 0");
    if (!(r.sampling.top_p > 0.f && r.sampling.top_p <= 1.f)) throw Error("top-p must be in (0, 1]");
    std::vector<BaseMask> design_masks;
    if (!r.template_iupac.empty()) {
        design_masks = parse_template(r.template_iupac);
        if (r.length && r.length != design_masks.size())
            throw Error("the template has " + std::to_string(design_masks.size()) + " positions but the length is " +
                        std::to_string(r.length));
    } else {
        if (r.length == 0) throw Error("design length must be at least 1 base (or give a template)");
        design_masks.assign(r.length, kAnyBase);
    }
    apply_required_sites(r.constraints.required_sites, design_masks);
    p.design_len = design_masks.size();

    // What the model can see at once: tags + <dna> + context + design (+ flank and </dna> for
    // ranking) must fit in its context. The design must; the context and flank give way, by the
    // one rule (fit_to_context).
    DesignRequest fitted = r;
    for (std::string& n : fit_to_context(tok, fitted)) notices.push_back(std::move(n));
    const std::string_view left = fitted.left_context, right = fitted.right_flank;
    const size_t dropped = fitted.context_offset;  // context positions count from the context as given

    std::string ctx(left.size(), 'A');
    for (size_t i = 0; i < ctx.size(); ++i) ctx[i] = upper(left[i]);
    const size_t whole = ctx.size() / 6 * 6;
    p.head = ctx.substr(0, whole);
    const std::string tail = ctx.substr(whole);
    p.tail_len = tail.size();
    DnaEncoding enc = tok.encode_prompt(r.tags, left.substr(0, whole), false);
    p.prompt = enc.ids;
    p.prefix_len = enc.first_dna_token;
    if (r.guidance.active()) {
        const TagGuidance& g = r.guidance;
        if (!std::isfinite(g.w) || g.w < 0 || g.w > 100) throw Error("the guidance strength w must be a number from 0 to 100");
        if (g.mode == TagGuidance::Mode::Conditional && r.tags.empty())
            throw Error("conditional tag guidance needs tags to condition on: without them both streams are the same");
        if (g.mode == TagGuidance::Mode::Contrastive && (g.negative_tags.empty() || g.negative_tags == r.tags))
            throw Error("contrastive tag guidance needs negative tags that differ from the design's own tags");
        p.guide_prompt = tok.encode_prompt(g.mode == TagGuidance::Mode::Conditional ? std::string() : g.negative_tags,
                                           left.substr(0, whole), false).ids;
        if (r.context_tokens && p.guide_prompt.size() + (p.tail_len + p.design_len + 5) / 6 > r.context_tokens)
            throw Error("with the negative tags, the design and its context need more than the model's " +
                        std::to_string(r.context_tokens) + " tokens: use shorter negative tags or a shorter context");
    }
    for (const DnaNotice& n : enc.notices) {
        std::string where = "context position " + std::to_string(dropped + n.position + 1);
        if (n.count > 1) where += "-" + std::to_string(dropped + n.position + n.count);
        where += n.kind == DnaNotice::Lowercase ? ": lowercase, upper-cased" : ": not A/C/G/T, its 6-mer is <oov>";
        notices.push_back(std::move(where));
    }
    for (size_t i = 0; i < tail.size(); ++i) {
        const BaseMask b = char_bit(tail[i]);
        if (!b) notices.push_back("context position " + std::to_string(dropped + whole + i + 1) + ": '" + tail[i] +
                                  "' is not A/C/G/T; the model may choose any base there, and it is not part of the design");
        p.masks.push_back(b ? b : kAnyBase);
    }
    p.masks.insert(p.masks.end(), design_masks.begin(), design_masks.end());
    p.gen_len = p.masks.size();
    p.n_tokens = (p.gen_len + 5) / 6;
    p.flank.resize(right.size());
    for (size_t i = 0; i < p.flank.size(); ++i) p.flank[i] = upper(right[i]);
    for (size_t i = 0; i < p.flank.size();) {  // runs of non-ACGT bases, said as the context's are
        if (char_bit(p.flank[i])) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < p.flank.size() && !char_bit(p.flank[j])) ++j;
        notices.push_back("right flank position " + std::to_string(i + 1) + (j - i > 1 ? "-" + std::to_string(j) : std::string()) +
                          ": not A/C/G/T, read as <oov> in the ranking");
        i = j;
    }

    const DesignConstraints& c = r.constraints;
    if (c.max_homopolymer < 0) throw Error("the maximum homopolymer run must be >= 1 (0 = no limit)");
    check_synthesis_constraints(c);
    for (size_t k = 0; k < c.forbidden_motifs.size(); ++k) {
        // A motif in IUPAC letters, or an enzyme by name (its site: enzymes.h).
        std::string site;
        try {
            site = EnzymeTable::builtin().site_or_motif(c.forbidden_motifs[k]);
        } catch (const Error& e) {
            throw Error("forbidden motif " + std::to_string(k + 1) + ": " + e.what());
        }
        const std::string what = "forbidden motif " + std::to_string(k + 1) + " (" + c.forbidden_motifs[k] +
                                 (site != c.forbidden_motifs[k] && EnzymeTable::builtin().find(c.forbidden_motifs[k]) ? ", site " + site : "") + ")";
        auto m = parse_template(site, what.c_str());
        if (m.size() > 64) throw Error(what + " is longer than 64 bases");
        p.motifs.push_back(m);
        p.motifs.push_back(reverse_complement_mask(m));
    }
    for (const ForbiddenMatrix& f : c.forbidden_matrices) {
        MatrixGrid m = matrix_grid(f.pssm, f.min_score, f.max_pvalue, "forbidden matrix " + f.label);
        if (m.worst[0] >= m.min_sum[0] || m.worst[1] >= m.min_sum[1])
            throw Error("forbidden matrix " + f.label + ": its threshold is at or below the lowest score the matrix gives, so "
                        "every window would match");
        p.forbidden_matrices.push_back(std::move(m));
    }
    for (const RequiredMatrix& f : c.required_matrices) p.required_matrices.push_back(plan_required(f, design_masks));
    if (!(c.gc_min >= 0.0 && c.gc_max <= 1.0 && c.gc_min <= c.gc_max))
        throw Error("the GC window must satisfy 0 <= min <= max <= 1 (got " + std::to_string(c.gc_min) + ".." +
                    std::to_string(c.gc_max) + ")");
    const double n = double(p.design_len);
    p.gc_lo = int(std::ceil(c.gc_min * n - 1e-9));
    p.gc_hi = int(std::floor(c.gc_max * n + 1e-9));
    if (p.gc_lo > p.gc_hi)
        throw Error("the GC window " + std::to_string(c.gc_min) + ".." + std::to_string(c.gc_max) +
                    " allows no whole number of G/C bases in a " + std::to_string(p.design_len) + " bp design");
    p.gc_min_after.assign(p.design_len + 1, 0);
    p.gc_max_after.assign(p.design_len + 1, 0);
    for (size_t i = p.design_len; i-- > 0;) {
        const BaseMask m = design_masks[i];
        const bool can_gc = m & (base_bit(2) | base_bit(3)), must_gc = !(m & (base_bit(0) | base_bit(1)));
        p.gc_min_after[i] = p.gc_min_after[i + 1] + (must_gc ? 1 : 0);
        p.gc_max_after[i] = p.gc_max_after[i + 1] + (can_gc ? 1 : 0);
    }
    if (p.gc_min_after[0] > p.gc_hi || p.gc_max_after[0] < p.gc_lo)
        throw Error("the template forces between " + std::to_string(p.gc_min_after[0]) + " and " +
                    std::to_string(p.gc_max_after[0]) + " G/C bases, outside the GC window (" + std::to_string(p.gc_lo) +
                    ".." + std::to_string(p.gc_hi) + " of " + std::to_string(p.design_len) + ")");
    // Fixed template bases that already break a constraint make the request impossible.
    auto single = [](BaseMask m) { return m && !(m & (m - 1)); };
    if (c.max_homopolymer > 0) {
        size_t run = 0;
        for (size_t i = 0; i < p.design_len; ++i) {
            run = single(design_masks[i]) && i > 0 && design_masks[i] == design_masks[i - 1] && run ? run + 1
                  : single(design_masks[i])                                                    ? 1
                                                                                               : 0;
            if (run > size_t(c.max_homopolymer))
                throw Error("the template fixes a run of " + std::to_string(run) + " identical bases ending at design position " +
                            std::to_string(i + 1) + ", longer than the maximum homopolymer " + std::to_string(c.max_homopolymer));
        }
    }
    for (size_t k = 0; k < p.motifs.size(); ++k) {
        const auto& m = p.motifs[k];
        for (size_t s = 0; s + m.size() <= p.design_len; ++s) {
            bool forced = true;
            for (size_t j = 0; j < m.size() && forced; ++j) forced = single(design_masks[s + j]) && (design_masks[s + j] & ~m[j]) == 0;
            if (forced)
                throw Error("the template fixes forbidden motif " + c.forbidden_motifs[k / 2] + (k % 2 ? " (reverse strand)" : "") +
                            " at design positions " + std::to_string(s + 1) + "-" + std::to_string(s + m.size()));
        }
    }
    return p;
}

bool constraints_allow(const Plan& p, const DesignConstraints& c, const std::string& s, size_t gen_pos) {
    if (!p.is_design(gen_pos) || !c.active()) return true;
    const size_t a = p.abs_index(gen_pos);
    const char b = s[a];
    const bool last = gen_pos + 1 == p.gen_len;
    if (c.max_homopolymer > 0) {
        size_t run = 1;
        for (size_t i = a; i-- > 0 && s[i] == b;) ++run;
        if (last)
            for (size_t i = 0; i < p.flank.size() && p.flank[i] == b; ++i) ++run;
        if (run > size_t(c.max_homopolymer)) return false;
    }
    if (!p.motifs.empty()) {
        auto at = [&](size_t i) -> char { return i < s.size() ? s[i] : p.flank[i - s.size()]; };
        const size_t known = last ? s.size() + p.flank.size() : a + 1;
        for (const auto& m : p.motifs) {
            const size_t L = m.size();
            // Windows ending at a; at the design's last base also those reaching into the flank.
            const size_t first_end = a, last_end = last ? std::min(known - 1, a + L - 1) : a;
            for (size_t end = first_end; end <= last_end; ++end) {
                if (end + 1 < L) continue;
                const size_t start = end + 1 - L;
                bool match = true;
                for (size_t j = 0; j < L && match; ++j) match = (char_bit(at(start + j)) & m[j]) != 0;
                if (match) return false;
            }
        }
    }
    if (!synthesis_windows_allow(p, c, s, a, last)) return false;
    for (const MatrixGrid& m : p.forbidden_matrices)
        if (matrix_hit_ends_at(m, s, p.flank, a, last)) return false;
    for (const RequiredSpan& r : p.required_matrices)
        if (!required_still_possible(r, std::span<const BaseMask>(p.masks).subspan(p.tail_len), s, gen_pos - p.tail_len, a))
            return false;
    if (p.gc_lo > 0 || p.gc_hi < int(p.design_len)) {
        const size_t design_pos = gen_pos - p.tail_len;
        int g = 0;
        for (size_t i = p.abs_index(p.tail_len); i <= a; ++i) g += is_gc(s[i]);
        if (g + p.gc_max_after[design_pos + 1] < p.gc_lo || g + p.gc_min_after[design_pos + 1] > p.gc_hi) return false;
    }
    return true;
}

}  // namespace carbon
