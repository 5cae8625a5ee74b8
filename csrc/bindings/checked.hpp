// `self` of a bound method, checked: `Cls.__new__(Cls)` makes an instance whose C++
// object pybind11 never constructed (it allocates raw storage on first use), and any
// method on it would read garbage. Every method of a bound class takes `self` as a
// handle and gets its object through self_of(), which raises TypeError instead.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <type_traits>
#include <utility>

namespace gaia::bind {

namespace py = pybind11;

template <class T>
T& self_of(py::handle self) {
  if (!py::isinstance<T>(self)) {
    throw py::type_error("expected a " +
                         py::cast<std::string>(py::type::of<T>().attr("__name__")) +
                         " instance");
  }
  auto* inst = reinterpret_cast<py::detail::instance*>(self.ptr());
  if (!inst->get_value_and_holder().holder_constructed()) {
    const auto name = py::cast<std::string>(py::type::of<T>().attr("__name__"));
    throw py::type_error(name +
                         " object was created without __init__; construct it as " +
                         name + "(...)");
  }
  return self.cast<T&>();
}

// A member function as a method whose `self` is checked.
template <class T, class R, class... A>
auto checked(R (T::*f)(A...)) {
  return [f](py::handle self, A... a) -> R {
    return (self_of<T>(self).*f)(std::forward<A>(a)...);
  };
}

template <class T, class R, class... A>
auto checked(R (T::*f)(A...) const) {
  return [f](py::handle self, A... a) -> R {
    return (self_of<T>(self).*f)(std::forward<A>(a)...);
  };
}

}  // namespace gaia::bind
