// gaia_eval native core: text normalization (no Python headers).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gaia::text {

// True for exactly the code points Python's str.isspace() accepts, so the native
// normalization equals " ".join(s.split()) for every input.
bool is_space(char32_t c) noexcept;

struct Normalized {
  std::u32string text;           // every whitespace run collapsed to one space, trimmed
  std::vector<int64_t> offsets;  // offsets[i]: index in the input of text[i]
};

// Collapse whitespace runs to a single ' ' and trim both ends. A collapsed space maps
// to the first whitespace code point of its run.
Normalized normalize_whitespace(const std::u32string& in);

}  // namespace gaia::text
