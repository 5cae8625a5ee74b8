// libFuzzer target for the scrub kernel, built by `nox -s fuzz_scrub` with clang
// -fsanitize=fuzzer,address,undefined (coverage-guided, unlike atheris on the binding).
// Invariants: no crash or UB; the one-shot and the streaming scrubber agree (output, or
// both refuse); the output has no surviving finding.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "scrub.hpp"

namespace sc = gaia::scrub;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  // Header: [known count | skip flag] [known length] [split point, 2 bytes].
  const size_t n_known = data[0] & 3u;
  const bool skip = (data[0] & 0x80u) != 0;
  const size_t known_len = 12 + data[1] % 24;
  size_t cut = static_cast<size_t>(data[2]) | (static_cast<size_t>(data[3]) << 8);
  const uint8_t* text = data + 4;
  const size_t n = size - 4;

  auto cfg = std::make_shared<sc::Config>();
  // Known values are slices of the text itself, so they do occur in it.
  for (size_t k = 0; k < n_known && n >= known_len; ++k) {
    const size_t at = (k * 7919) % (n - known_len + 1);
    cfg->add_known(
        std::string_view(reinterpret_cast<const char*>(text + at), known_len));
  }
  if (skip) cfg->set_redact_mask(sc::kAllKinds & ~(1u << sc::kAws));
  cfg->build();

  std::string out;
  bool refused = false;
  try {
    sc::Result r = sc::scrub(*cfg, text, n);
    out = r.unchanged ? std::string(reinterpret_cast<const char*>(text), n) : r.out;
  } catch (const sc::LeakError&) {
    refused = true;
  }

  sc::Stream stream(cfg);
  std::string streamed;
  bool stream_refused = false;
  cut = std::min(cut, n);
  try {
    // Small pieces first, then the rest, to cross the carry at many places.
    size_t at = 0;
    const size_t step = 1 + cut % 997;
    while (at < cut) {
      const size_t len = std::min(step, cut - at);
      streamed += stream.feed(text + at, len);
      at += len;
    }
    streamed += stream.feed(text + cut, n - cut);
    streamed += stream.finish();
  } catch (const sc::LeakError&) {
    stream_refused = true;
  }

  if (refused != stream_refused) __builtin_trap();
  if (refused) return 0;
  if (streamed != out) __builtin_trap();
  const auto* o = reinterpret_cast<const uint8_t*>(out.data());
  if (!sc::find_all(*cfg, o, out.size(), sc::kAllKinds).empty()) __builtin_trap();
  return 0;
}
