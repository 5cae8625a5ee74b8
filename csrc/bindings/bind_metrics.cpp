#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "arrays.hpp"
#include "metrics.hpp"

namespace py = pybind11;

namespace {

using I64Array = py::array_t<int64_t, py::array::c_style>;

I64Array int64_array(const py::handle& obj, const char* name, py::ssize_t ndim) {
  return gaia::bind::typed_array<int64_t>(obj, name, ndim, 'i', "int64");
}

std::vector<int64_t> cutoffs(const py::handle& obj) {
  const I64Array ks = int64_array(obj, "ks", 1);
  return {ks.data(), ks.data() + ks.size()};
}

py::tuple ranking_metrics(const py::handle& ranked_obj, const py::handle& offsets_obj,
                          const py::handle& docs_obj, const py::handle& grades_obj,
                          const py::handle& ks_obj) {
  const I64Array ranked = int64_array(ranked_obj, "ranked", 2);
  const I64Array offsets_arr = int64_array(offsets_obj, "qrel_offsets", 1);
  const I64Array docs = int64_array(docs_obj, "qrel_docs", 1);
  const I64Array grades = int64_array(grades_obj, "qrel_grades", 1);
  const std::vector<int64_t> ks = cutoffs(ks_obj);
  if (offsets_arr.size() < 1) {
    throw py::value_error("qrel_offsets must have n_queries + 1 entries (at least 1)");
  }
  if (docs.size() != grades.size()) {
    throw py::value_error("qrel_docs has " + std::to_string(docs.size()) +
                          " entries but qrel_grades has " +
                          std::to_string(grades.size()) + "; they must be equal");
  }
  const py::ssize_t nq = offsets_arr.size() - 1;
  if (ranked.shape(0) != nq) {
    throw py::value_error("ranked has " + std::to_string(ranked.shape(0)) +
                          " rows but qrel_offsets describes " + std::to_string(nq) +
                          " queries; they must be equal");
  }
  // The offsets index memory, so the kernel works on a private copy: another thread
  // writing to the caller's array while the GIL is released cannot send it out of
  // bounds. Ids and grades are only compared, never used as indices.
  const std::vector<int64_t> offsets(offsets_arr.data(),
                                     offsets_arr.data() + offsets_arr.size());
  const auto n_ks = static_cast<py::ssize_t>(ks.size());
  py::array_t<double> recall({nq, n_ks});
  py::array_t<double> precision({nq, n_ks});
  py::array_t<double> ndcg({nq, n_ks});
  py::array_t<double> rr(nq);

  gaia::metrics::Ranked r;
  r.ids = ranked.data();
  r.n_queries = ranked.shape(0);
  r.depth = ranked.shape(1);
  gaia::metrics::Qrels q;
  q.offsets = offsets.data();
  q.docs = docs.data();
  q.grades = grades.data();
  q.n_queries = nq;
  q.n_judgements = docs.size();
  gaia::metrics::Output out;
  out.recall = recall.mutable_data();
  out.precision = precision.mutable_data();
  out.ndcg = ndcg.mutable_data();
  out.rr = rr.mutable_data();
  {
    // Safe: the arrays above are owned here for the whole call, and the kernel touches
    // no Python object. std::invalid_argument leaves as ValueError once the GIL is
    // back.
    py::gil_scoped_release release;
    gaia::metrics::ranking_metrics(r, q, ks, out);
  }
  return py::make_tuple(recall, precision, ndcg, rr);
}

py::tuple first_hit_metrics(const py::handle& ranks_obj, const py::handle& ks_obj) {
  const I64Array ranks = int64_array(ranks_obj, "ranks", 1);
  const std::vector<int64_t> ks = cutoffs(ks_obj);
  const py::ssize_t n = ranks.size();
  py::array_t<double> recall({n, static_cast<py::ssize_t>(ks.size())});
  py::array_t<double> rr(n);
  double* recall_p = recall.mutable_data();
  double* rr_p = rr.mutable_data();
  {
    // Safe: reads only the owned ranks buffer and writes only the fresh outputs.
    py::gil_scoped_release release;
    gaia::metrics::first_hit_metrics(ranks.data(), n, ks, recall_p, rr_p);
  }
  return py::make_tuple(recall, rr);
}

}  // namespace

void register_metrics(py::module_& m) {
  m.def("ranking_metrics", &ranking_metrics, py::arg("ranked"), py::arg("qrel_offsets"),
        py::arg("qrel_docs"), py::arg("qrel_grades"), py::arg("ks"),
        "Per-query (recall, precision, ndcg) as (Q, len(ks)) and rr as (Q,), "
        "trec_eval semantics.");
  m.def("first_hit_metrics", &first_hit_metrics, py::arg("ranks"), py::arg("ks"),
        "Per-query hit@k as (Q, len(ks)) and reciprocal rank as (Q,) from 1-based "
        "first-hit ranks (0 = miss).");
}
