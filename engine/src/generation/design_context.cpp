// The one rule that fits a design request into the model's context (see fit_to_context in
// fns_generate.h): the design first, then the right flank up to a quarter of the context, then the
// left context's nearest bases.
#include <algorithm>

#include "carbon/generation/fns_generate.h"

namespace carbon {

namespace {

// Tokens the right flank adds to the ranking pass (the design's partial last token, the flank's
// bases, </dna>), and the most flank bases that fit in `tokens` of them.
size_t flank_tokens(size_t bases) { return bases ? (5 + bases + 5) / 6 + 1 : 0; }
size_t flank_bases(size_t tokens) { return tokens >= 2 ? (tokens - 1) * 6 - 5 : 0; }

}  // namespace

std::vector<std::string> fit_to_context(const Tokenizer& tok, DesignRequest& r) {
    std::vector<std::string> notices;
    if (!r.context_tokens) return notices;
    const size_t design_len = r.template_iupac.empty() ? r.length : r.template_iupac.size();
    const size_t fixed = tok.encode_prompt(r.tags, "", false).ids.size();
    const size_t tail_bases = r.left_context.size() % 6;
    const size_t design_tokens = (tail_bases + design_len + 5) / 6;
    if (fixed + design_tokens > r.context_tokens)
        throw Error("a " + std::to_string(design_len) + " bp design needs " + std::to_string(fixed + design_tokens) +
                    " tokens with the tags and <dna>, but the model reads at most " + std::to_string(r.context_tokens) +
                    " tokens (" + std::to_string(r.context_tokens * 6) + " bp) at once: design at most " +
                    std::to_string((r.context_tokens - fixed) * 6 - tail_bases) + " bp in one piece, or extend the "
                    "context with YaRN (--yarn)");
    const size_t room = r.context_tokens - fixed - design_tokens;
    const size_t ctx_tokens = r.left_context.size() / 6;
    size_t flank_room = flank_tokens(r.right_flank.size());
    if (flank_room + ctx_tokens > room) {
        // Both do not fit: the flank keeps up to a quarter of the context, or what the left
        // context leaves when that is more.
        const size_t share = std::min(room, r.context_tokens / 4);
        flank_room = std::min(flank_room, std::max(share, room - std::min(ctx_tokens, room)));
    }
    if (flank_tokens(r.right_flank.size()) > flank_room) {
        const size_t keep = flank_bases(flank_room);
        notices.push_back("right flank trimmed to its first " + std::to_string(keep) + " of " + std::to_string(r.right_flank.size()) +
                          " bp: with the design and the left context it would not fit in the model's " +
                          std::to_string(r.context_tokens) + "-token context");
        r.right_flank.resize(keep);
    }
    const size_t left_room = room - flank_tokens(r.right_flank.size());
    if (ctx_tokens > left_room) {
        const size_t dropped = (ctx_tokens - left_room) * 6;
        const size_t given = r.context_offset + r.left_context.size();
        r.left_context.erase(0, dropped);
        r.context_offset += dropped;
        notices.push_back("left context trimmed to its nearest " + std::to_string(r.left_context.size()) + " of " +
                          std::to_string(given) + " bp (positions " + std::to_string(r.context_offset + 1) + "-" +
                          std::to_string(given) + "): the model reads at most " + std::to_string(r.context_tokens) +
                          " tokens at once");
    }
    return notices;
}

}  // namespace carbon
