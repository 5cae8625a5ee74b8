#include <pybind11/pybind11.h>

#include "grep.hpp"

namespace py = pybind11;

void register_grep(py::module_& m) { (void)m; }
