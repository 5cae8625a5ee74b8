// Wires every area's bindings into the one private extension, gaia_eval._core.
#include <pybind11/pybind11.h>

namespace py = pybind11;

void register_text(py::module_& m);
void register_metrics(py::module_& m);
void register_evidence(py::module_& m);
void register_grep(py::module_& m);
void register_scrub(py::module_& m);
void register_resample(py::module_& m);

PYBIND11_MODULE(_core, m) {
  m.doc() = "gaia_eval native core (private; use gaia_eval._native)";
  register_text(m);
  register_metrics(m);
  register_evidence(m);
  register_grep(m);
  register_scrub(m);
  register_resample(m);
}
