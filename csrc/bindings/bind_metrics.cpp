#include <pybind11/pybind11.h>

#include "metrics.hpp"

namespace py = pybind11;

void register_metrics(py::module_& m) { (void)m; }
