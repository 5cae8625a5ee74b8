// gaia_eval native core: ranking metrics (no Python headers).
//
// Semantics follow trec_eval where the measures overlap (recall_k, P_k, recip_rank,
// ndcg_cut_k): a document is relevant when its grade is > 0; P@k divides by k even when
// fewer than k documents were ranked; recall@k divides by the number of relevant
// documents; nDCG@k uses the grade as gain and 1/log2(rank + 1) as discount, normalized
// by the ideal DCG of the judged grades sorted descending and cut at k.
//
// Declared choices:
// - A ranking ends at its first negative id (padding); every later slot must be
//   negative too, otherwise the input is rejected.
// - A document id repeated within one ranking keeps its rank slot but only its first
//   occurrence can count: later copies are non-relevant. Repeating a relevant document
//   can therefore never raise recall, precision or nDCG.
// - A query with no relevant judgement (no grade > 0) is an error, never a silent 0.
#pragma once

#include <cstdint>
#include <vector>

namespace gaia::metrics {

// Graded judgements in CSR form: the judgements of query q are docs[offsets[q] ..
// offsets[q + 1]) with grades at the same positions.
struct Qrels {
  const int64_t* offsets = nullptr;  // n_queries + 1 entries, offsets[0] == 0
  const int64_t* docs = nullptr;
  const int64_t* grades = nullptr;
  int64_t n_queries = 0;
  int64_t n_judgements = 0;
};

// Ranked document ids, row-major (n_queries x depth), padded with negative ids.
struct Ranked {
  const int64_t* ids = nullptr;
  int64_t n_queries = 0;
  int64_t depth = 0;
};

// Per-query results; each (n_queries x n_ks) array is row-major, caller-allocated.
struct Output {
  double* recall = nullptr;
  double* precision = nullptr;
  double* ndcg = nullptr;
  double* rr = nullptr;  // n_queries entries: 1 / rank of the first relevant, or 0
};

// Throws std::invalid_argument naming the argument (and query) on malformed input.
// The offsets are read once up front and checked before any other array is touched.
void ranking_metrics(const Ranked& ranked, const Qrels& qrels,
                     const std::vector<int64_t>& ks, const Output& out);

// From first-hit ranks (1-based; 0 = no hit): hit@k in recall (n x n_ks) and 1/rank in
// rr (n). Throws std::invalid_argument on a negative rank or a k < 1.
void first_hit_metrics(const int64_t* ranks, int64_t n, const std::vector<int64_t>& ks,
                       double* recall, double* rr);

}  // namespace gaia::metrics
