#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "checked.hpp"
#include "grep.hpp"

namespace py = pybind11;

namespace {

using gaia::bind::self_of;
using gaia::grep::WordIndex;

struct GrepIndex {
  WordIndex index;
};

std::unique_ptr<GrepIndex> build(const py::list& contents) {
  auto holder = std::make_unique<GrepIndex>();
  std::vector<std::string_view> views;
  views.reserve(contents.size());
  for (std::size_t i = 0; i < contents.size(); ++i) {
    py::handle item = contents[i];
    if (!PyBytes_Check(item.ptr())) {
      throw py::type_error("contents[" + std::to_string(i) + "] must be bytes, not " +
                           std::string(py::str(py::type::of(item).attr("__name__"))));
    }
    char* data = nullptr;
    Py_ssize_t len = 0;
    PyBytes_AsStringAndSize(item.ptr(), &data, &len);
    views.emplace_back(data, static_cast<std::size_t>(len));
  }
  if (contents.size() >= UINT32_MAX) throw py::value_error("contents: too many files");
  {
    // Safe: the caller's list references every bytes object for this call, bytes are
    // immutable, and the index is not yet visible to any other thread.
    py::gil_scoped_release release;
    for (const auto& v : views) holder->index.add_file(v);
    holder->index.finalize();
  }
  return holder;
}

std::unique_ptr<GrepIndex> build_from_paths(const py::list& paths) {
  auto holder = std::make_unique<GrepIndex>();
  std::vector<std::string> owned;
  owned.reserve(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    py::handle item = paths[i];
    py::object encoded;
    if (PyUnicode_Check(item.ptr())) {
      // As os.fsencode does: the filesystem encoding with surrogateescape.
      PyObject* raw = PyUnicode_EncodeFSDefault(item.ptr());
      if (raw == nullptr) throw py::error_already_set();
      encoded = py::reinterpret_steal<py::object>(raw);
      item = encoded;
    } else if (!PyBytes_Check(item.ptr())) {
      throw py::type_error("paths[" + std::to_string(i) +
                           "] must be str or bytes, not " +
                           std::string(py::str(py::type::of(item).attr("__name__"))));
    }
    char* data = nullptr;
    Py_ssize_t len = 0;
    PyBytes_AsStringAndSize(item.ptr(), &data, &len);
    owned.emplace_back(data, static_cast<std::size_t>(len));
    if (owned.back().empty() || owned.back().find('\0') != std::string::npos) {
      throw py::value_error("paths[" + std::to_string(i) +
                            "] must be a non-empty path without NUL bytes");
    }
  }
  if (paths.size() >= UINT32_MAX) throw py::value_error("paths: too many files");
  {
    // Safe: the paths are C++ copies, the files are read into the index's own buffer,
    // and the index is not yet visible to any other thread.
    py::gil_scoped_release release;
    for (const auto& path : owned) holder->index.add_path(path);
    holder->index.finalize();
  }
  return holder;
}

py::tuple query(py::handle obj, const std::vector<std::string>& words) {
  const GrepIndex& self = self_of<GrepIndex>(obj);
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (!gaia::grep::is_word(words[i])) {
      throw py::value_error(
          "words[" + std::to_string(i) +
          "] must be a non-empty run of ASCII letters, digits and '_'");
    }
  }
  std::vector<std::vector<gaia::grep::Hit>> hits(words.size());
  std::size_t total = 0;
  {
    // Safe: the index is read-only after construction, and `words` is a C++ copy.
    py::gil_scoped_release release;
    for (std::size_t i = 0; i < words.size(); ++i) {
      hits[i] = self.index.lookup(words[i]);
      total += hits[i].size();
    }
  }
  const auto n = static_cast<py::ssize_t>(total);
  py::array_t<int32_t> word(n), file(n), line(n), count(n);
  auto* w = word.mutable_data();
  auto* f = file.mutable_data();
  auto* l = line.mutable_data();
  auto* c = count.mutable_data();
  std::size_t k = 0;
  for (std::size_t i = 0; i < hits.size(); ++i) {
    for (const auto& h : hits[i]) {
      w[k] = static_cast<int32_t>(i);
      f[k] = static_cast<int32_t>(h.file);
      l[k] = static_cast<int32_t>(h.line);
      c[k] = static_cast<int32_t>(h.count);
      ++k;
    }
  }
  return py::make_tuple(word, file, line, count);
}

}  // namespace

void register_grep(py::module_& m) {
  py::class_<GrepIndex>(
      m, "GrepIndex",
      "Whole-word inverted index over file contents (git grep -w words).")
      .def(py::init(&build), py::arg("contents"),
           "Build from a list of bytes, one per file; binary files (NUL in the first "
           "8000 "
           "bytes) are recorded as skipped.")
      .def_static("from_paths", &build_from_paths, py::arg("paths"),
                  "Build by reading each path (str or bytes); a path "
                  "that cannot be read as a regular file is recorded as unreadable.")
      .def_property_readonly(
          "num_files",
          [](py::handle obj) { return self_of<GrepIndex>(obj).index.num_files(); })
      .def_property_readonly("num_occurrences",
                             [](py::handle obj) {
                               return self_of<GrepIndex>(obj).index.num_occurrences();
                             })
      .def(
          "binary_mask",
          [](py::handle obj) {
            const GrepIndex& self = self_of<GrepIndex>(obj);
            py::array_t<bool> out(static_cast<py::ssize_t>(self.index.num_files()));
            auto* p = out.mutable_data();
            for (std::size_t i = 0; i < self.index.num_files(); ++i) {
              p[i] = self.index.is_binary(i);
            }
            return out;
          },
          "True for each file skipped as binary.")
      .def(
          "kinds",
          [](py::handle obj) {
            const GrepIndex& self = self_of<GrepIndex>(obj);
            py::array_t<uint8_t> out(static_cast<py::ssize_t>(self.index.num_files()));
            auto* p = out.mutable_data();
            for (std::size_t i = 0; i < self.index.num_files(); ++i) {
              p[i] = static_cast<uint8_t>(self.index.kind(i));
            }
            return out;
          },
          "Per file: 0 text, 1 binary (skipped), 2 unreadable (skipped).")
      .def("query", &query, py::arg("words"),
           "Hits of every word: (word_idx, file_idx, line, count) int32 arrays, "
           "ordered by "
           "word, then file, then line.");
}
