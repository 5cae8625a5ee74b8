#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "checked.hpp"
#include "scrub.hpp"

namespace py = pybind11;
namespace sc = gaia::scrub;
using gaia::bind::checked;

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

  // Returns (output, or the input object itself when unchanged; findings or None).
  py::tuple scrub(const py::bytes& data, bool with_findings) const {
    const std::string_view v = view_of(data, "data");
    const sc::Config& cfg = *cfg_;
    std::vector<sc::Match> first;
    {
      py::gil_scoped_release release;  // safe: reads immutable bytes and our own config
      first = sc::find_all(cfg, u8(v), v.size(), cfg.redact_mask());
    }
    py::object out;
    bool done = false;
    if (first.empty()) {
      out = data;
      done = cfg.redact_mask() == sc::kAllKinds;  // that scan was the re-check
    } else {
      // Fast path: write round 1 straight into the bytes object we return; its re-scan
      // usually finds nothing, which ends the job with no copy.
      const size_t size = sc::applied_size(v.size(), first);
      PyObject* raw = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(size));
      if (!raw) throw py::error_already_set();
      out = py::reinterpret_steal<py::object>(raw);
      char* buf = PyBytes_AS_STRING(raw);
      std::vector<sc::Match> again;
      {
        // Safe: the new object is not shared with any other thread yet.
        py::gil_scoped_release release;
        sc::apply_into(u8(v), v.size(), first, buf);
        again = sc::find_all(cfg, reinterpret_cast<const uint8_t*>(buf), size,
                             cfg.redact_mask());
      }
      done = again.empty() && cfg.redact_mask() == sc::kAllKinds;
      if (!again.empty()) {
        // Round 2 has work: take the general path (rounds, mapped findings, re-check).
        sc::Result r;
        {
          py::gil_scoped_release release;  // safe: as above
          r = sc::scrub(cfg, u8(v), v.size());
        }
        py::object found = py::none();
        if (with_findings) found = py::cast(to_tuples(r.findings));
        return py::make_tuple(py::bytes(r.out), found);
      }
    }
    if (!done) {
      // Some kinds are not redacted: the re-check with every kind is a separate scan.
      const std::string_view o = view_of(out, "output");
      std::vector<sc::Match> left;
      {
        py::gil_scoped_release release;  // safe: immutable bytes
        left = sc::find_all(cfg, u8(o), o.size(), sc::kAllKinds);
      }
      if (!left.empty()) {
        uint32_t kinds = 0;
        for (const auto& m : left) kinds |= 1u << m.kind;
        throw sc::LeakError(sc::leak_message(kinds), kinds);
      }
    }
    if (!with_findings) return py::make_tuple(out, py::none());
    std::vector<FindingTuple> found;
    for (const auto& m : first)
      found.emplace_back(sc::kind_name(m.kind), m.start + m.keep,
                         m.end - m.start - m.keep);
    return py::make_tuple(out, found);
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
    const InUse busy(busy_);
    std::string out;
    {
      py::gil_scoped_release release;  // safe: immutable input; `busy` makes it ours
      out = stream_.feed(u8(v), v.size());
    }
    return py::bytes(out);
  }

  py::bytes finish() {
    const InUse busy(busy_);
    std::string out;
    {
      py::gil_scoped_release release;  // safe: only our own state, held by `busy`
      out = stream_.finish();
    }
    return py::bytes(out);
  }

  std::vector<FindingTuple> take_findings() {
    const InUse busy(busy_);
    return to_tuples(stream_.take_findings());
  }

 private:
  // A stream is one ordered sequence of chunks, and feed() runs without the GIL: a
  // second thread entering while one is inside would race on the carried buffers. It
  // is refused (taken and dropped with the GIL held, so the refusal itself cannot
  // race).
  class InUse {
   public:
    explicit InUse(std::atomic<bool>& flag) : flag_(flag) {
      if (flag_.exchange(true)) {
        throw std::runtime_error(
            "ScrubStream is in use by another thread; give each thread its own "
            "stream (Scrubber.stream())");
      }
    }
    ~InUse() { flag_.store(false); }
    InUse(const InUse&) = delete;
    InUse& operator=(const InUse&) = delete;

   private:
    std::atomic<bool>& flag_;
  };

  sc::Stream stream_;
  std::atomic<bool> busy_{false};
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
      .def("scrub", checked(&PyScrubber::scrub), py::arg("data"),
           py::arg("with_findings") = true,
           "Redact, re-check; (output or the input object itself, findings).")
      .def("find", checked(&PyScrubber::find), py::arg("data"),
           "Every match of every kind, no redaction (the re-check).")
      .def_property_readonly("known_count", checked(&PyScrubber::accepted));

  py::class_<PyStream>(m, "ScrubStream")
      .def(py::init([](py::handle scrubber) {
             return new PyStream(gaia::bind::self_of<PyScrubber>(scrubber));
           }),
           py::arg("scrubber"))
      .def("feed", checked(&PyStream::feed), py::arg("data"))
      .def("finish", checked(&PyStream::finish))
      .def("take_findings", checked(&PyStream::take_findings));
}
