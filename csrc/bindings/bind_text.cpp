#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>

#include "text.hpp"

namespace py = pybind11;

void register_text(py::module_& m) {
  m.def(
      "normalize_whitespace",
      [](const std::u32string& text) {
        gaia::text::Normalized norm;
        {
          // Safe: the input was copied out of the Python object before release.
          py::gil_scoped_release release;
          norm = gaia::text::normalize_whitespace(text);
        }
        py::array_t<int64_t> offsets(static_cast<py::ssize_t>(norm.offsets.size()));
        std::copy(norm.offsets.begin(), norm.offsets.end(), offsets.mutable_data());
        return py::make_tuple(py::cast(norm.text), std::move(offsets));
      },
      py::arg("text"),
      "Collapse whitespace runs to one space and trim; returns (text, offsets into the "
      "input).");
}
