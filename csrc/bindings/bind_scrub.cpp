#include <pybind11/pybind11.h>

#include "scrub.hpp"

namespace py = pybind11;

void register_scrub(py::module_& m) { (void)m; }
