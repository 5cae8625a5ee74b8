#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "checked.hpp"
#include "evidence.hpp"

namespace py = pybind11;
namespace ev = gaia::evidence;
using gaia::bind::self_of;

namespace {

// A str's code units, read straight from its compact buffer (no UTF-32 codec round
// trip on multi-megabyte documents; lone surrogates pass through as code points).
struct Units {
  py::object owner;  // keeps the buffer alive while the GIL is released
  const void* data = nullptr;
  size_t size = 0;
  int kind = PyUnicode_1BYTE_KIND;
};

Units units_of(py::handle obj, const char* name) {
  PyObject* s = obj.ptr();
  if (!PyUnicode_Check(s)) {
    throw py::type_error(std::string(name) + " must be str, not " +
                         Py_TYPE(s)->tp_name);
  }
#if PY_VERSION_HEX < 0x030C0000
  if (PyUnicode_READY(s) != 0) throw py::error_already_set();
#endif
  return {py::reinterpret_borrow<py::object>(obj), PyUnicode_DATA(s),
          static_cast<size_t>(PyUnicode_GET_LENGTH(s)),
          static_cast<int>(PyUnicode_KIND(s))};
}

// Safe without the GIL: str buffers are immutable and `u.owner` holds a reference.
void collapse(const Units& u, std::u32string& out) {
  switch (u.kind) {
    case PyUnicode_1BYTE_KIND:
      ev::collapse_into(static_cast<const uint8_t*>(u.data), u.size, out);
      break;
    case PyUnicode_2BYTE_KIND:
      ev::collapse_into(static_cast<const uint16_t*>(u.data), u.size, out);
      break;
    default:
      ev::collapse_into(static_cast<const uint32_t*>(u.data), u.size, out);
      break;
  }
}

// Same safety as collapse(). A one-byte str stays one byte per code point.
ev::Document normalized_document(const Units& u) {
  if (u.kind == PyUnicode_1BYTE_KIND) {
    return ev::Document::from_latin1(static_cast<const uint8_t*>(u.data), u.size);
  }
  std::u32string text;
  collapse(u, text);
  return ev::Document(ev::Haystack(std::move(text)));
}

std::u32string to_u32(py::handle obj, const char* name) {
  const Units u = units_of(obj, name);
  std::u32string out(u.size, U'\0');
  for (size_t i = 0; i < u.size; ++i) {
    out[i] = u.kind == PyUnicode_1BYTE_KIND   ? static_cast<const uint8_t*>(u.data)[i]
             : u.kind == PyUnicode_2BYTE_KIND ? static_cast<const uint16_t*>(u.data)[i]
                                              : static_cast<const uint32_t*>(u.data)[i];
  }
  return out;
}

py::str to_py(const ev::Haystack& h) {
  PyObject* obj =
      h.is_latin1() ? PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, h.bytes().data(),
                                                static_cast<Py_ssize_t>(h.size()))
                    : PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, h.wide().data(),
                                                static_cast<Py_ssize_t>(h.size()));
  if (obj == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(obj);
}

std::u32string normalized_arg(py::handle obj, const char* name) {
  const Units u = units_of(obj, name);
  std::u32string out;
  // Safe to release: see collapse().
  py::gil_scoped_release release;
  collapse(u, out);
  return out;
}

py::tuple pages_tuple(const std::vector<int64_t>& pages) {
  py::tuple out(pages.size());
  for (size_t k = 0; k < pages.size(); ++k) out[k] = py::int_(pages[k]);
  return out;
}

}  // namespace

void register_evidence(py::module_& m) {
  py::class_<ev::Document>(m, "EvidenceDocument",
                           "A document's normalized text and its [Page N] markers.")
      .def(py::init([](py::handle extracted) {
             const Units u = units_of(extracted, "extracted");
             // Safe to release: see collapse(); the Document is ours alone.
             py::gil_scoped_release release;
             return new ev::Document(normalized_document(u));
           }),
           py::arg("extracted"))
      .def("__len__",
           [](py::handle self) { return self_of<ev::Document>(self).text().size(); })
      .def("normalized",
           [](py::handle self) { return to_py(self_of<ev::Document>(self).text()); })
      .def("paged", [](py::handle self) { return self_of<ev::Document>(self).paged(); })
      .def("markers",
           [](py::handle self) {
             const ev::Document& d = self_of<ev::Document>(self);
             py::list out;
             for (const auto& mk : d.markers())
               out.append(py::make_tuple(mk.offset, mk.number));
             return out;
           })
      .def(
          "pages_of",
          [](py::handle self, int64_t start, int64_t end) {
            const ev::Document& d = self_of<ev::Document>(self);
            return pages_tuple(d.pages_of(start, end));
          },
          py::arg("start"), py::arg("end"))
      .def(
          "page_segment",
          [](py::handle self, int64_t page) -> py::object {
            const ev::Document& d = self_of<ev::Document>(self);
            int64_t start = 0;
            int64_t end = 0;
            if (!d.page_segment(page, start, end)) return py::none();
            return py::make_tuple(start, end);
          },
          py::arg("page"))
      .def(
          "locate",
          [](py::handle self, const py::list& chunks, const py::list& pieces) {
            const ev::Document& d = self_of<ev::Document>(self);
            if (!pieces.empty() && pieces.size() != chunks.size()) {
              throw py::value_error("pieces must be empty or as long as chunks");
            }
            std::vector<Units> units;
            units.reserve(chunks.size());
            for (const auto& c : chunks) units.push_back(units_of(c, "chunks[i]"));
            std::vector<bool> split;
            split.reserve(pieces.size());
            for (const auto& s : pieces) split.push_back(py::cast<bool>(s));
            py::array_t<int64_t> starts(static_cast<py::ssize_t>(units.size()));
            py::array_t<int64_t> ends(static_cast<py::ssize_t>(units.size()));
            int64_t* const start_at = starts.mutable_data();
            int64_t* const end_at = ends.mutable_data();
            {
              // Safe to release: chunk buffers are immutable and owned by `units` (see
              // collapse()); `d` is kept alive by this call's reference to its owner;
              // the two arrays are ours until returned.
              py::gil_scoped_release release;
              ev::ChunkLocator walk(d);
              // One buffer of each kind for all chunks: no allocation per chunk. A
              // one-byte str stays one byte per code point all the way to the search.
              std::u32string chunk;
              std::string latin1;
              for (size_t i = 0; i < units.size(); ++i) {
                const bool piece = i < split.size() && split[i];
                const auto* bytes = static_cast<const uint8_t*>(units[i].data);
                ev::Span span;
                if (units[i].kind == PyUnicode_1BYTE_KIND) {
                  span = walk.next_latin1_raw(
                      {reinterpret_cast<const char*>(bytes), units[i].size}, piece,
                      latin1);
                } else {
                  collapse(units[i], chunk);
                  span = walk.next(chunk, piece);
                }
                start_at[i] = span.start;
                end_at[i] = span.end;
              }
            }
            return py::make_tuple(starts, ends);
          },
          py::arg("chunks"), py::arg("pieces"),
          "Locate chunks in document order: (starts, ends) int64 arrays, -1 where a "
          "chunk is not found.")
      .def(
          "resolve",
          [](py::handle self, py::handle quote, int64_t page, py::handle near) {
            const ev::Document& d = self_of<ev::Document>(self);
            if (page < 0) throw py::value_error("page must be >= 0 (0: no page)");
            std::u32string q = normalized_arg(quote, "quote");
            std::u32string h = normalized_arg(near, "near");
            ev::Resolution r;
            {
              // Safe to release: the search reads only C++ data.
              py::gil_scoped_release release;
              r = ev::resolve_quote(d, q, page, h);
            }
            return py::make_tuple(static_cast<int>(r.status), r.span.start, r.span.end);
          },
          py::arg("quote"), py::arg("page"), py::arg("near"),
          "Resolve a quote: (status, start, end); status 0 ok, 1 empty quote, 2 "
          "unknown page, 3 near not in document, 4 quote not found.")
      .def(
          "resolve_many",
          [](py::handle self, const py::list& quotes, const py::list& pages,
             const py::list& nears) {
            const ev::Document& d = self_of<ev::Document>(self);
            if (pages.size() != quotes.size() || nears.size() != quotes.size()) {
              throw py::value_error(
                  "quotes, pages and nears must have the same length");
            }
            std::vector<std::u32string> q;
            std::vector<int64_t> p;
            std::vector<std::u32string> h;
            q.reserve(quotes.size());
            p.reserve(quotes.size());
            h.reserve(quotes.size());
            for (size_t k = 0; k < quotes.size(); ++k) {
              const auto page = py::cast<int64_t>(pages[k]);
              if (page < 0) throw py::value_error("page must be >= 0 (0: no page)");
              q.push_back(normalized_arg(quotes[k], "quotes[i]"));
              p.push_back(page);
              h.push_back(normalized_arg(nears[k], "nears[i]"));
            }
            std::vector<ev::Resolution> r;
            {
              // Safe to release: the search reads only C++ data.
              py::gil_scoped_release release;
              r = ev::resolve_quotes(d, q, p, h);
            }
            py::list out;
            for (const auto& one : r) {
              out.append(py::make_tuple(static_cast<int>(one.status), one.span.start,
                                        one.span.end));
            }
            return out;
          },
          py::arg("quotes"), py::arg("pages"), py::arg("nears"),
          "resolve() for each (quote, page, near); the quotes without page or near are "
          "searched in one pass over the document.");

  m.def("evidence_uses_avx2", &ev::uses_avx2,
        "Whether the evidence kernel's AVX2 block paths run on this machine.");
  m.def(
      "evidence_find",
      [](py::handle hay, py::handle needle, int64_t start, int64_t end) {
        std::u32string h = to_u32(hay, "hay");
        std::u32string n = to_u32(needle, "needle");
        // Safe to release: the search reads only C++ copies.
        py::gil_scoped_release release;
        return ev::find(h, n, start, end);
      },
      py::arg("hay"), py::arg("needle"), py::arg("start"), py::arg("end"),
      "First index of needle wholly inside hay[start:end], or -1 (empty needle: -1).");
}
