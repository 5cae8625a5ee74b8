#include "text.hpp"

namespace gaia::text {

bool is_space(char32_t c) noexcept {
  if (c <= 0x20)
    return c == 0x20 || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  switch (c) {
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

Normalized normalize_whitespace(const std::u32string& in) {
  Normalized out;
  out.text.reserve(in.size());
  out.offsets.reserve(in.size());
  int64_t pending_space = -1;  // start of a whitespace run seen after some text
  bool seen_text = false;
  for (size_t i = 0; i < in.size(); ++i) {
    const char32_t c = in[i];
    if (is_space(c)) {
      if (seen_text && pending_space < 0) pending_space = static_cast<int64_t>(i);
      continue;
    }
    if (pending_space >= 0) {
      out.text.push_back(U' ');
      out.offsets.push_back(pending_space);
      pending_space = -1;
    }
    out.text.push_back(c);
    out.offsets.push_back(static_cast<int64_t>(i));
    seen_text = true;
  }
  return out;
}

}  // namespace gaia::text
