// Factorized Nucleotide Supervision (FNS): base-level quantities from a 6-mer model.
// p_t is the model's distribution over the 4,096 DNA 6-mers at step t, NORMALIZED OVER THE
// 6-MERS ONLY (softmax of the DNA logits): a base-level question asks which base comes next, so
// mass the model puts on </dna>, <oov> or text tokens is not a base and is excluded. Every
// base-level number in the engine (tracks, scores, generation, variants) uses this convention;
// token-level scores use the full vocabulary instead (labelled as such).
// Bases are coded A=0, T=1, C=2, G=3 (the 6-mer index order, kKmerBases); a 6-mer's index is
// sum_j code(base_j) * 4^(5-j), first base most significant.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "carbon/fns/sampling.h"
#include "carbon/tokenizer/tokenizer.h"

namespace carbon {

// Allowed bases as a 4-bit mask over the base codes (bit c set: code c allowed).
using BaseMask = uint8_t;
inline constexpr BaseMask kAnyBase = 0xF;
inline constexpr BaseMask base_bit(int code) { return BaseMask(1u << code); }

// Code of base j (0 = first) of 6-mer `index`.
inline int kmer_base(int index, int j) { return (index >> (2 * (5 - j))) & 3; }

// IUPAC letter (upper or lower case) -> mask; 0 for anything else.
BaseMask iupac_mask(char c);
// Parses an IUPAC template; Error naming the 1-based position and the character of the first bad
// letter, or saying it is empty.
std::vector<BaseMask> parse_template(std::string_view text, const char* what = "template");

// 6-mer distribution: probs[i] = softmax(logits)[i] over the 4,096 DNA logits, in place of
// `probs` (fp64 sums). Returns log of the normalizer (log-sum-exp) for log-probabilities.
double dna_softmax(std::span<const float> logits, std::span<float> probs);

// marg[j][b] = sum of probs over 6-mers whose base j is b, for j < 6.
using Marginals = std::array<std::array<float, 4>, 6>;
Marginals fns_marginals(std::span<const float> probs);

// The chain rule within 6-mer `kmer`: cond[j][b] = the mass of the 6-mers that start with kmer's
// first j bases and then b, over the mass of those that start with its first j bases (each base's
// distribution given the bases before it in the token). Hence the log of cond[j][kmer's base j],
// summed over j, is log probs[kmer]. A prefix without mass gives zeros from there on.
Marginals fns_conditionals(std::span<const float> probs, int kmer);

// Restricts the joint to 6-mers whose base j is allowed by mask[j] (j < 6), renormalizes, and
// marginalizes. Returns the total mass of the consistent 6-mers (0: none is consistent; then the
// marginals are all zero).
double fns_masked_marginals(std::span<const float> probs, const std::array<BaseMask, 6>& mask, Marginals& out);

// A 4-way base distribution after temperature and top-p (applied per base, as FNS sampling
// does), restricted to `allowed` and renormalized. Temperature 0 gives a one-hot arg-max (first
// code on ties).
std::array<float, 4> adjust_base_distribution(const std::array<float, 4>& p, BaseMask allowed, float temperature,
                                              float top_p);

// Picks a code from an adjusted distribution with the uniform draw u (inverse CDF over codes
// in order); -1 when every entry is zero.
int pick_base(const std::array<float, 4>& q, float u);

// Shannon entropy in bits of a 4-way distribution.
float entropy_bits(const std::array<float, 4>& p);

// Reverse complement of an upper-case sequence (IUPAC letters complemented; other characters
// kept).
std::string reverse_complement(std::string_view seq);

// Reverse complement of A, C, G and T in either case, keeping the case, every other character
// kept as it is (Carbon's fine-tuning recipes' DNA_COMPLEMENT; the motif scanner's strands).
std::string acgt_reverse_complement(std::string_view seq);

}  // namespace carbon
