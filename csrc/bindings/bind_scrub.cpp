#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "scrub.hpp"

namespace py = pybind11;
namespace sc = gaia::scrub;

namespace {

using FindingTuple = std::tuple<std::string, uint64_t, uint64_t>;

std::vector<FindingTuple> to_tuples(const std::vector<sc::Finding>& fs) {
  std::vector<FindingTuple> out;
  out.reserve(fs.size());
  for (const auto& f : fs) out.emplace_back(sc::kind_name(f.kind), f.offset, f.length);
  return out;
}

// Only immutable bytes cross the boundary: their buffer cannot change while the GIL is
// released, and the caller's reference keeps it alive.
std::string_view view_of(const py::handle& obj, const char* arg) {
  if (!PyBytes_Check(obj.ptr())) {
    throw py::type_error(std::string(arg) + " must be bytes, not " +
                         std::string(py::str(py::type::of(obj).attr("__name__"))));
  }
  char* p = nullptr;
  Py_ssize_t n = 0;
  PyBytes_AsStringAndSize(obj.ptr(), &p, &n);
  return {p, static_cast<size_t>(n)};
}

const uint8_t* u8(std::string_view v) {
  return reinterpret_cast<const uint8_t*>(v.data());
}

class PyScrubber {
 public:
  PyScrubber(const py::list& known, const py::list& skip) {
    auto cfg = std::make_shared<sc::Config>();
    uint32_t mask = sc::kAllKinds;
    for (const auto& k : skip) {
      const std::string name = py::cast<std::string>(k);
      const int kind = sc::kind_from_name(name);
      if (kind < 0) throw py::value_error("skip: unknown scrub kind '" + name + "'");
      mask &= ~(1u << kind);
    }
    for (const auto& v : known) {
      if (cfg->add_known(view_of(v, "known values"))) ++accepted_;
    }
    cfg->set_redact_mask(mask);
    cfg->build();
    cfg_ = std::move(cfg);
  }

  // Returns (output or None when unchanged, findings).
  py::tuple scrub(const py::bytes& data, bool with_findings) const {
    const std::string_view v = view_of(data, "data");
    sc::Result r;
    {
      py::gil_scoped_release release;  // safe: reads immutable bytes and our own config
      r = sc::scrub(*cfg_, u8(v), v.size());
    }
    py::object out = r.unchanged ? py::object(data) : py::object(py::bytes(r.out));
    if (!with_findings) return py::make_tuple(out, py::none());
    return py::make_tuple(out, to_tuples(r.findings));
  }

  std::vector<FindingTuple> find(const py::bytes& data) const {
    const std::string_view v = view_of(data, "data");
    std::vector<sc::Match> ms;
    {
      py::gil_scoped_release release;  // safe: as in scrub()
      ms = sc::find_all(*cfg_, u8(v), v.size(), sc::kAllKinds);
    }
    std::vector<FindingTuple> out;
    for (const auto& m : ms)
      out.emplace_back(sc::kind_name(m.kind), m.start + m.keep,
                       m.end - m.start - m.keep);
    return out;
  }

  std::shared_ptr<const sc::Config> config() const { return cfg_; }
  size_t accepted() const { return accepted_; }

 private:
  std::shared_ptr<const sc::Config> cfg_;
  size_t accepted_ = 0;
};

class PyStream {
 public:
  explicit PyStream(const PyScrubber& s) : stream_(s.config()) {}

  py::bytes feed(const py::bytes& data) {
    const std::string_view v = view_of(data, "data");
    std::string out;
    {
      py::gil_scoped_release release;  // safe: immutable input; the stream is ours
      out = stream_.feed(u8(v), v.size());
    }
    return py::bytes(out);
  }

  py::bytes finish() {
    std::string out;
    {
      py::gil_scoped_release release;  // safe: only our own state
      out = stream_.finish();
    }
    return py::bytes(out);
  }

  std::vector<FindingTuple> take_findings() {
    return to_tuples(stream_.take_findings());
  }

 private:
  sc::Stream stream_;
};

}  // namespace

void register_scrub(py::module_& m) {
  py::register_exception<sc::LeakError>(m, "ScrubLeakError", PyExc_ValueError);

  m.def(
      "scrub_kinds",
      [] {
        std::vector<std::string> out;
        for (int k = 0; k < sc::kKindCount; ++k) out.emplace_back(sc::kind_name(k));
        return out;
      },
      "Every redaction kind, in rule order.");
  m.def(
      "scrub_known_value_ok",
      [](const py::bytes& v) { return sc::known_value_ok(view_of(v, "value")); },
      py::arg("value"), "Whether a value qualifies as a known secret.");

  py::class_<PyScrubber>(m, "Scrubber")
      .def(py::init<const py::list&, const py::list&>(), py::arg("known"),
           py::arg("skip"))
      .def("scrub", &PyScrubber::scrub, py::arg("data"),
           py::arg("with_findings") = true,
           "Redact, re-check; (output or the input object itself, findings).")
      .def("find", &PyScrubber::find, py::arg("data"),
           "Every match of every kind, no redaction (the re-check).")
      .def_property_readonly("known_count", &PyScrubber::accepted);

  py::class_<PyStream>(m, "ScrubStream")
      .def(py::init<const PyScrubber&>(), py::arg("scrubber"))
      .def("feed", &PyStream::feed, py::arg("data"))
      .def("finish", &PyStream::finish)
      .def("take_findings", &PyStream::take_findings);
}
