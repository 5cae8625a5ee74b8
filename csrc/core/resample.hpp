// gaia_eval native core: paired resampling of a mean difference (no Python headers).
//
// Everything is defined so that a pure-Python oracle computes the same numbers bit for
// bit (tests/native/test_resample.py):
// - The generator is splitmix64 (Steele, Lea & Flood 2014): state +=
// 0x9E3779B97F4A7C15,
//   then the output mix of that state. The seed is the initial state.
// - An index in [0, n) is (x * n) >> 64 on the 128-bit product of a draw x (Lemire's
//   multiply-shift without rejection; its bias is below n / 2^64, far under Monte-Carlo
//   error for any item count we meet).
// - Signs come 64 to a draw: cluster j's sign is bit (63 - j % 64) of draw j / 64 of
// the
//   resample (top bit first), -1 when set, else +1.
// - Items are the resampling unit. With clusters (an item's repeats), rows are first
//   reduced to one value per cluster, the mean of its (current - baseline) differences,
//   summed in row order; the statistic is the mean of those cluster values, summed in
//   cluster order. Without clusters every row is its own cluster.
// - Bootstrap: each resample draws k cluster indices with replacement and takes the
// mean
//   of their values; the interval is the linear-interpolation percentile (numpy's
//   default) of the sorted resample means at (1 - confidence) / 2 and its complement.
// - BCa: z0 = quantile(share of resample means < the estimate), acceleration
//   a = sum (v - m)^3 / (6 (sum (v - m)^2)^1.5) summed in order, levels
//   cdf(z0 + (z0 + z) / (1 - a (z0 + z))) for z = quantile(tail) and quantile(1 -
//   tail); when every value is equal or the share is 0 or 1, the percentile levels
//   stand.
// - Sign-flip permutation: each resample flips every cluster's sign independently; the
//   two-sided p-value is (1 + #{|T*| >= |T| - tol}) / (1 + B) with tol = 1e-9 * max(1,
//   |T|) (ties in floating point count as at least as extreme, as scipy does).
#pragma once

#include <cstdint>
#include <vector>

namespace gaia::resample {

struct SplitMix64 {
  uint64_t state;
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t next() {
    state += 0x9E3779B97F4A7C15ULL;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // An index in [0, n) by multiply-shift: the high 64 bits of the 128-bit x * n, from
  // 32-bit halves (portable; no __int128).
  uint64_t below(uint64_t n) { return mulhi(next(), n); }
  static uint64_t mulhi(uint64_t a, uint64_t b) {
    const uint64_t a_lo = a & 0xFFFFFFFFULL, a_hi = a >> 32;
    const uint64_t b_lo = b & 0xFFFFFFFFULL, b_hi = b >> 32;
    const uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo;
    const uint64_t lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
    const uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xFFFFFFFFULL) + lo_hi;
    return hi_hi + (hi_lo >> 32) + (cross >> 32);
  }
};

// Per-cluster means of (current - baseline). `clusters` (may be null) gives each row's
// cluster in [0, n_clusters); every cluster must have at least one row.
// Throws std::invalid_argument on a cluster out of range or empty.
std::vector<double> cluster_means(const double* baseline, const double* current,
                                  const int64_t* clusters, int64_t n_rows,
                                  int64_t n_clusters);

double mean_of(const std::vector<double>& values);

struct Interval {
  double estimate;
  double low;
  double high;
};

// Bootstrap interval of the mean of `values` (cluster means): percentile, or with `bca`
// the bias-corrected and accelerated levels (Efron 1987) applied to the same resamples.
Interval bootstrap_mean(const std::vector<double>& values, int64_t resamples,
                        uint64_t seed, double confidence, bool bca);

// The standard normal CDF (through erfc) and its inverse (Acklam's approximation
// refined by one Halley step), as the BCa levels use them.
double normal_cdf(double x);
double normal_quantile(double p);

// Two-sided sign-flip permutation p-value of the mean of `values` against 0.
double sign_flip_p(const std::vector<double>& values, int64_t resamples, uint64_t seed);

}  // namespace gaia::resample
