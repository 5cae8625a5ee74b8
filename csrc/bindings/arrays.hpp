// Typed ndarray arguments, checked: the bindings accept only an ndarray of the exact
// dtype and rank they compute on, since silently casting (floats to ids, object arrays
// to numbers) would hide a caller's bug. Non-contiguous views are copied.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

namespace gaia::bind {

namespace py = pybind11;

// `kind` is numpy's dtype kind ('i' signed integer, 'f' float), `type` its name in
// messages ("int64"); any native-order dtype of that kind and size qualifies ('l' and
// 'q' are both int64).
template <class T>
py::array_t<T, py::array::c_style> typed_array(const py::handle& obj, const char* name,
                                               py::ssize_t ndim, char kind,
                                               const char* type) {
  if (!py::isinstance<py::array>(obj)) {
    throw py::type_error(
        std::string(name) + " must be a numpy.ndarray of " + type + ", not " +
        std::string(py::str(py::type::handle_of(obj).attr("__name__"))));
  }
  const auto arr = py::reinterpret_borrow<py::array>(obj);
  const py::dtype dt = arr.dtype();
  if (dt.kind() != kind || dt.itemsize() != static_cast<py::ssize_t>(sizeof(T)) ||
      !dt.attr("isnative").cast<bool>()) {
    throw py::type_error(std::string(name) + " must have dtype " + type + ", not " +
                         std::string(py::str(arr.dtype())));
  }
  if (arr.ndim() != ndim) {
    throw py::value_error(std::string(name) + " must be " + std::to_string(ndim) +
                          "-dimensional, got " + std::to_string(arr.ndim()) +
                          " dimensions");
  }
  auto out = py::array_t<T, py::array::c_style>::ensure(arr);
  if (!out) throw py::error_already_set();
  return out;
}

}  // namespace gaia::bind
