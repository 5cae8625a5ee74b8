#include "resample.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gaia::resample {

std::vector<double> cluster_means(const double* baseline, const double* current,
                                  const int64_t* clusters, int64_t n_rows,
                                  int64_t n_clusters) {
  if (clusters == nullptr) {
    std::vector<double> out(static_cast<size_t>(n_rows));
    for (int64_t i = 0; i < n_rows; ++i)
      out[static_cast<size_t>(i)] = current[i] - baseline[i];
    return out;
  }
  std::vector<double> sums(static_cast<size_t>(n_clusters), 0.0);
  std::vector<int64_t> counts(static_cast<size_t>(n_clusters), 0);
  for (int64_t i = 0; i < n_rows; ++i) {
    const int64_t c = clusters[i];
    if (c < 0 || c >= n_clusters) {
      throw std::invalid_argument("clusters[" + std::to_string(i) +
                                  "] = " + std::to_string(c) + " is outside [0, " +
                                  std::to_string(n_clusters) + ")");
    }
    sums[static_cast<size_t>(c)] += current[i] - baseline[i];
    counts[static_cast<size_t>(c)] += 1;
  }
  for (int64_t c = 0; c < n_clusters; ++c) {
    const auto k = static_cast<size_t>(c);
    if (counts[k] == 0) {
      throw std::invalid_argument(
          "cluster " + std::to_string(c) +
          " has no rows; number clusters 0 .. n-1 without gaps");
    }
    sums[k] /= static_cast<double>(counts[k]);
  }
  return sums;
}

double mean_of(const std::vector<double>& values) {
  double s = 0.0;
  for (double v : values) s += v;
  return s / static_cast<double>(values.size());
}

namespace {

// numpy's 'linear' percentile of sorted data, p in [0, 100].
double percentile_linear(const std::vector<double>& sorted, double p) {
  const double pos = static_cast<double>(sorted.size() - 1) * p / 100.0;
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

Interval bootstrap_mean(const std::vector<double>& values, int64_t resamples,
                        uint64_t seed, double confidence) {
  const auto k = static_cast<uint64_t>(values.size());
  SplitMix64 rng(seed);
  std::vector<double> stats(static_cast<size_t>(resamples));
  for (auto& stat : stats) {
    double s = 0.0;
    for (uint64_t j = 0; j < k; ++j) s += values[rng.below(k)];
    stat = s / static_cast<double>(k);
  }
  std::sort(stats.begin(), stats.end());
  const double tail = (1.0 - confidence) / 2.0 * 100.0;
  return {mean_of(values), percentile_linear(stats, tail),
          percentile_linear(stats, 100.0 - tail)};
}

double sign_flip_p(const std::vector<double>& values, int64_t resamples,
                   uint64_t seed) {
  const double observed = std::fabs(mean_of(values));
  const double bar = observed - 1e-9 * std::max(1.0, observed);
  SplitMix64 rng(seed);
  int64_t extreme = 0;
  const auto k = static_cast<double>(values.size());
  for (int64_t b = 0; b < resamples; ++b) {
    double s = 0.0;
    uint64_t bits = 0;
    for (size_t j = 0; j < values.size(); ++j) {
      // One draw gives the signs of 64 clusters, top bit first; the sign is applied as
      // a multiplication by +-1 (exact), without a branch the data would mispredict.
      if (j % 64 == 0) bits = rng.next();
      const double sign = 1.0 - 2.0 * static_cast<double>(bits >> 63);
      bits <<= 1;
      s += sign * values[j];
    }
    if (std::fabs(s / k) >= bar) ++extreme;
  }
  return static_cast<double>(1 + extreme) / static_cast<double>(1 + resamples);
}

}  // namespace gaia::resample
