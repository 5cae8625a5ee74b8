#include <pybind11/pybind11.h>

#include "evidence.hpp"

namespace py = pybind11;

void register_evidence(py::module_& m) { (void)m; }
