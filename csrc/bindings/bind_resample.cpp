#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "resample.hpp"

namespace py = pybind11;

namespace {

using F64Array = py::array_t<double, py::array::c_style>;
using I64Array = py::array_t<int64_t, py::array::c_style>;

// A 1-D float64 ndarray of finite values, copied out so another thread writing to the
// caller's buffer while the GIL is released cannot change what the kernel reads.
std::vector<double> finite_vector(const py::handle& obj, const char* name) {
  const F64Array a = gaia::bind::typed_array<double>(obj, name, 1, 'f', "float64");
  std::vector<double> out(a.data(), a.data() + a.size());
  for (size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(out[i])) {
      throw py::value_error(std::string(name) + "[" + std::to_string(i) +
                            "] is not a finite number");
    }
  }
  return out;
}

std::vector<int64_t> cluster_vector(const py::handle& obj) {
  const I64Array a = gaia::bind::typed_array<int64_t>(obj, "clusters", 1, 'i', "int64");
  return {a.data(), a.data() + a.size()};
}

// The per-cluster differences, after checking every argument.
std::vector<double> values_of(const py::handle& baseline_obj,
                              const py::handle& current_obj,
                              const py::handle& clusters_obj, int64_t resamples) {
  const std::vector<double> baseline = finite_vector(baseline_obj, "baseline");
  const std::vector<double> current = finite_vector(current_obj, "current");
  if (baseline.empty()) throw py::value_error("baseline must not be empty");
  if (current.size() != baseline.size()) {
    throw py::value_error(
        "current has " + std::to_string(current.size()) + " values but baseline has " +
        std::to_string(baseline.size()) + "; they must be paired (equal lengths)");
  }
  // The bootstrap keeps every resample's mean: cap the count so a typo cannot ask for
  // gigabytes (10 million resamples are 80 MB and far past any useful precision).
  if (resamples < 1 || resamples > 10'000'000) {
    throw py::value_error("resamples must be within [1, 10000000], got " +
                          std::to_string(resamples));
  }
  const auto n = static_cast<int64_t>(baseline.size());
  if (clusters_obj.is_none()) {
    return gaia::resample::cluster_means(baseline.data(), current.data(), nullptr, n,
                                         n);
  }
  const std::vector<int64_t> clusters = cluster_vector(clusters_obj);
  if (static_cast<int64_t>(clusters.size()) != n) {
    throw py::value_error("clusters has " + std::to_string(clusters.size()) +
                          " entries but baseline has " + std::to_string(n) +
                          "; give one cluster per row");
  }
  int64_t n_clusters = 0;
  for (int64_t c : clusters) n_clusters = std::max(n_clusters, c + 1);
  // cluster_means throws std::invalid_argument (ValueError) on a gap or negative id.
  return gaia::resample::cluster_means(baseline.data(), current.data(), clusters.data(),
                                       n, n_clusters);
}

py::tuple paired_bootstrap(const py::handle& baseline, const py::handle& current,
                           const py::handle& clusters, int64_t resamples, uint64_t seed,
                           double confidence, bool bca) {
  if (!(confidence > 0.0 && confidence < 1.0)) {
    throw py::value_error("confidence must be within (0, 1), got " +
                          std::to_string(confidence));
  }
  const std::vector<double> values = values_of(baseline, current, clusters, resamples);
  gaia::resample::Interval out{};
  {
    // Safe: the kernel reads only the owned vector above and touches no Python object.
    py::gil_scoped_release release;
    out = gaia::resample::bootstrap_mean(values, resamples, seed, confidence, bca);
  }
  return py::make_tuple(out.estimate, out.low, out.high);
}

py::tuple paired_sign_flip(const py::handle& baseline, const py::handle& current,
                           const py::handle& clusters, int64_t resamples,
                           uint64_t seed) {
  const std::vector<double> values = values_of(baseline, current, clusters, resamples);
  double p = 1.0;
  double estimate = 0.0;
  {
    // Safe: as above.
    py::gil_scoped_release release;
    estimate = gaia::resample::mean_of(values);
    p = gaia::resample::sign_flip_p(values, resamples, seed);
  }
  return py::make_tuple(estimate, p);
}

}  // namespace

void register_resample(py::module_& m) {
  m.def("paired_bootstrap", &paired_bootstrap, py::arg("baseline"), py::arg("current"),
        py::arg("clusters"), py::arg("resamples"), py::arg("seed"),
        py::arg("confidence"), py::arg("bca"),
        "(mean difference, low, high): percentile (or BCa) bootstrap of mean(current - "
        "baseline) "
        "over items (clusters), splitmix64-seeded.");
  m.def("paired_sign_flip", &paired_sign_flip, py::arg("baseline"), py::arg("current"),
        py::arg("clusters"), py::arg("resamples"), py::arg("seed"),
        "(mean difference, two-sided p): sign-flip permutation test of "
        "mean(current - baseline) = 0 over items (clusters), splitmix64-seeded.");
}
