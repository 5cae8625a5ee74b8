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

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double normal_quantile(double p) {
  // Acklam's rational approximation (relative error 1.15e-9), then one Halley step on
  // erfc, which brings it to double precision.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                             -2.759285104469687e+02, 1.383577518672690e+02,
                             -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                             -1.556989798598866e+02, 6.680131188771972e+01,
                             -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                             -2.400758277161838e+00, -2.549732539343734e+00,
                             4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                             2.445134137142996e+00, 3.754408661907416e+00};
  const double low = 0.02425;
  double x = 0.0;
  if (p < low) {
    const double q = std::sqrt(-2.0 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  } else if (p <= 1.0 - low) {
    const double q = p - 0.5;
    const double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
  } else {
    const double q = std::sqrt(-2.0 * std::log(1.0 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  }
  const double e = normal_cdf(x) - p;
  const double u = e * std::sqrt(2.0 * 3.14159265358979323846) * std::exp(x * x / 2.0);
  return x - u / (1.0 + x * u / 2.0);
}

Interval bootstrap_mean(const std::vector<double>& values, int64_t resamples,
                        uint64_t seed, double confidence, bool bca) {
  const auto k = static_cast<uint64_t>(values.size());
  SplitMix64 rng(seed);
  std::vector<double> stats(static_cast<size_t>(resamples));
  for (auto& stat : stats) {
    double s = 0.0;
    for (uint64_t j = 0; j < k; ++j) s += values[rng.below(k)];
    stat = s / static_cast<double>(k);
  }
  std::sort(stats.begin(), stats.end());
  const double estimate = mean_of(values);
  const double tail = (1.0 - confidence) / 2.0;
  double lo_level = tail;
  double hi_level = 1.0 - tail;
  if (bca) {
    // Bias from the share of resamples below the estimate; acceleration from the
    // jackknife, which for a mean is the skewness of the values:
    // a = sum (v - m)^3 / (6 (sum (v - m)^2)^1.5).
    int64_t below = 0;
    for (double v : stats) below += v < estimate ? 1 : 0;
    const double share = static_cast<double>(below) / static_cast<double>(resamples);
    double s2 = 0.0;
    double s3 = 0.0;
    for (double v : values) {
      const double dev = v - estimate;
      s2 += dev * dev;
      s3 += dev * dev * dev;
    }
    // Degenerate cases (every value equal, or no resample on one side) have no bias or
    // acceleration to estimate: the percentile levels stand.
    if (s2 > 0.0 && share > 0.0 && share < 1.0) {
      const double accel = s3 / (6.0 * std::pow(s2, 1.5));
      const double z0 = normal_quantile(share);
      const double z_lo = z0 + normal_quantile(tail);
      const double z_hi = z0 + normal_quantile(1.0 - tail);
      const double den_lo = 1.0 - accel * z_lo;
      const double den_hi = 1.0 - accel * z_hi;
      // An acceleration so large that a denominator is not positive (tiny, wildly
      // skewed samples) has no meaningful adjustment: the percentile levels stand.
      if (den_lo > 0.0 && den_hi > 0.0) {
        lo_level = normal_cdf(z0 + z_lo / den_lo);
        hi_level = normal_cdf(z0 + z_hi / den_hi);
      }
    }
  }
  return {estimate, percentile_linear(stats, lo_level * 100.0),
          percentile_linear(stats, hi_level * 100.0)};
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
