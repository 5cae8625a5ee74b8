#include "metrics.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gaia::metrics {

namespace {

struct Judged {
  int64_t doc;
  int64_t grade;
};

[[noreturn]] void fail(const std::string& msg) { throw std::invalid_argument(msg); }

void check_ks(const std::vector<int64_t>& ks) {
  for (size_t j = 0; j < ks.size(); ++j) {
    if (ks[j] < 1) {
      fail("ks[" + std::to_string(j) + "] = " + std::to_string(ks[j]) +
           ": every cutoff k must be >= 1");
    }
  }
}

// One query's judgements in an open-addressing table at most 1/8 full, keyed by doc id
// in place (-1 = empty; judged ids are >= 0), so a ranked id that was never judged, the
// common case, is answered by one load and one well-predicted branch. Reused across
// queries: reset() only clears the slots that were filled.
class JudgedTable {
 public:
  // Returns false when `doc` is already present.
  bool insert(int64_t doc, int64_t grade) {
    size_t h = slot(doc);
    while (keys_[h] >= 0) {
      if (keys_[h] == doc) return false;
      h = (h + 1) & mask_;
    }
    keys_[h] = doc;
    index_[h] = static_cast<int64_t>(judged_.size());
    judged_.push_back({doc, grade});
    filled_.push_back(h);
    return true;
  }

  // Index of `doc` in insertion order, or -1.
  int64_t find(int64_t doc) const noexcept {
    size_t h = slot(doc);
    while (keys_[h] >= 0) {
      if (keys_[h] == doc) return index_[h];
      h = (h + 1) & mask_;
    }
    return -1;
  }

  void reset(int64_t expected) {
    for (const size_t h : filled_) keys_[h] = -1;
    filled_.clear();
    judged_.clear();
    size_t want = 64;
    while (want < 8 * static_cast<size_t>(expected)) want <<= 1;
    if (want > keys_.size()) {
      keys_.assign(want, -1);
      index_.assign(want, 0);
    }
    // Probing only the first `want` slots keeps a small query's table in cache.
    mask_ = want - 1;
    shift_ = 64;
    for (size_t w = want; w > 1; w >>= 1) --shift_;
  }

  const Judged& operator[](int64_t i) const noexcept {
    return judged_[static_cast<size_t>(i)];
  }
  size_t size() const noexcept { return judged_.size(); }

 private:
  size_t slot(int64_t doc) const noexcept {
    // Fibonacci hashing: the top bits of a multiply spread sequential ids evenly.
    return static_cast<size_t>((static_cast<uint64_t>(doc) * 0x9E3779B97F4A7C15ULL) >>
                               shift_);
  }

  std::vector<int64_t> keys_;
  std::vector<int64_t> index_;
  std::vector<size_t> filled_;
  std::vector<Judged> judged_;
  size_t mask_ = 0;
  unsigned shift_ = 64;
};

}  // namespace

void ranking_metrics(const Ranked& ranked, const Qrels& qrels,
                     const std::vector<int64_t>& ks, const Output& out) {
  if (ranked.n_queries != qrels.n_queries) {
    fail("ranked has " + std::to_string(ranked.n_queries) +
         " rows but qrel_offsets describes " + std::to_string(qrels.n_queries) +
         " queries; they must be equal");
  }
  if (ranked.depth < 0) fail("ranked: negative depth");
  check_ks(ks);
  const int64_t nq = qrels.n_queries;
  const int64_t* off = qrels.offsets;
  if (off[0] != 0) fail("qrel_offsets[0] must be 0, got " + std::to_string(off[0]));
  int64_t max_judged = 0;
  for (int64_t q = 0; q < nq; ++q) {
    if (off[q + 1] < off[q]) {
      fail("qrel_offsets must be non-decreasing; qrel_offsets[" +
           std::to_string(q + 1) + "] < qrel_offsets[" + std::to_string(q) + "]");
    }
    max_judged = std::max(max_judged, off[q + 1] - off[q]);
  }
  if (off[nq] != qrels.n_judgements) {
    fail("qrel_offsets[-1] = " + std::to_string(off[nq]) +
         " must equal the length of qrel_docs and qrel_grades (" +
         std::to_string(qrels.n_judgements) + ")");
  }

  const size_t n_ks = ks.size();
  const int64_t kmax = n_ks ? *std::max_element(ks.begin(), ks.end()) : 0;
  // Rank positions that can matter for any cutoff: bounded by the ranking depth, and
  // for the ideal DCG by the number of judgements.
  const int64_t lim = std::min(kmax, ranked.depth);
  const int64_t n_discount = std::min(kmax, std::max(ranked.depth, max_judged));
  std::vector<double> discount(static_cast<size_t>(n_discount));
  for (size_t i = 0; i < discount.size(); ++i) {
    discount[i] = 1.0 / std::log2(static_cast<double>(i) + 2.0);
  }

  JudgedTable table;
  std::vector<unsigned char> used;
  std::vector<int64_t> gains;
  std::vector<double> ideal;
  std::vector<int64_t> cum_hits(static_cast<size_t>(lim));
  std::vector<double> cum_dcg(static_cast<size_t>(lim));

  for (int64_t q = 0; q < nq; ++q) {
    const int64_t b = off[q];
    const int64_t e = off[q + 1];
    table.reset(e - b);
    gains.clear();
    for (int64_t i = b; i < e; ++i) {
      const int64_t doc = qrels.docs[i];
      if (doc < 0) {
        fail("qrel_docs[" + std::to_string(i) + "] = " + std::to_string(doc) +
             " (query " + std::to_string(q) + "): document ids must be >= 0");
      }
      if (!table.insert(doc, qrels.grades[i])) {
        fail("qrel_docs: document " + std::to_string(doc) +
             " is judged twice for query " + std::to_string(q));
      }
      if (qrels.grades[i] > 0) gains.push_back(qrels.grades[i]);
    }
    if (gains.empty()) {
      fail("query " + std::to_string(q) +
           " has no relevant judgement (grade > 0) in qrels; recall and nDCG are "
           "undefined for it, so drop the query or add its relevant documents");
    }
    const auto n_rel = static_cast<int64_t>(gains.size());
    std::sort(gains.begin(), gains.end(), [](int64_t x, int64_t y) { return x > y; });
    const int64_t n_ideal = std::min(kmax, n_rel);
    ideal.resize(static_cast<size_t>(n_ideal));
    double acc = 0.0;
    for (int64_t i = 0; i < n_ideal; ++i) {
      acc += static_cast<double>(gains[static_cast<size_t>(i)]) *
             discount[static_cast<size_t>(i)];
      ideal[static_cast<size_t>(i)] = acc;
    }
    used.assign(table.size(), 0);

    const int64_t* row = ranked.ids + q * ranked.depth;
    int64_t len = ranked.depth;
    int64_t hits = 0;
    double dcg = 0.0;
    double rr = 0.0;
    for (int64_t r = 0; r < ranked.depth; ++r) {
      const int64_t id = row[r];
      if (id < 0) {
        len = r;
        for (int64_t t = r + 1; t < ranked.depth; ++t) {
          if (row[t] >= 0) {
            fail("ranked[" + std::to_string(q) + ", " + std::to_string(t) +
                 "] = " + std::to_string(row[t]) + " follows padding at column " +
                 std::to_string(r) + "; pad rankings with -1 at the end only");
          }
        }
        break;
      }
      // Past the deepest cutoff only the first relevant rank (for rr) can still change.
      if (r < lim || rr == 0.0) {
        const int64_t at = table.find(id);
        if (at >= 0 && !used[static_cast<size_t>(at)]) {
          used[static_cast<size_t>(at)] = 1;  // later copies of this id count as 0
          const int64_t g = table[at].grade;
          if (g > 0) {
            if (rr == 0.0) rr = 1.0 / static_cast<double>(r + 1);
            if (r < lim) {
              ++hits;
              dcg += static_cast<double>(g) * discount[static_cast<size_t>(r)];
            }
          }
        }
      }
      if (r < lim) {
        cum_hits[static_cast<size_t>(r)] = hits;
        cum_dcg[static_cast<size_t>(r)] = dcg;
      }
    }

    out.rr[q] = rr;
    for (size_t j = 0; j < n_ks; ++j) {
      const int64_t k = ks[j];
      const int64_t m = std::min(k, len);  // <= lim
      const int64_t h = m > 0 ? cum_hits[static_cast<size_t>(m - 1)] : 0;
      const double d = m > 0 ? cum_dcg[static_cast<size_t>(m - 1)] : 0.0;
      const size_t at = static_cast<size_t>(q) * n_ks + j;
      out.recall[at] = static_cast<double>(h) / static_cast<double>(n_rel);
      out.precision[at] = static_cast<double>(h) / static_cast<double>(k);
      out.ndcg[at] = d / ideal[static_cast<size_t>(std::min(k, n_rel) - 1)];
    }
  }
}

void first_hit_metrics(const int64_t* ranks, int64_t n, const std::vector<int64_t>& ks,
                       double* recall, double* rr) {
  check_ks(ks);
  const size_t n_ks = ks.size();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = ranks[i];
    if (r < 0) {
      fail("ranks[" + std::to_string(i) + "] = " + std::to_string(r) +
           ": ranks are 1-based, with 0 for a miss");
    }
    rr[i] = r > 0 ? 1.0 / static_cast<double>(r) : 0.0;
    for (size_t j = 0; j < n_ks; ++j) {
      recall[static_cast<size_t>(i) * n_ks + j] = (r > 0 && r <= ks[j]) ? 1.0 : 0.0;
    }
  }
}

}  // namespace gaia::metrics
