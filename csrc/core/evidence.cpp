#include "evidence.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "text.hpp"

namespace gaia::evidence {

namespace {

unsigned char shadow(char32_t c) {
  if (c < 0x100) return static_cast<unsigned char>(c);
  const uint32_t h =
      static_cast<uint32_t>(c) * 2654435761u;  // Knuth's multiplicative hash
  return static_cast<unsigned char>(h >> 24);
}

// text::is_space for the first 256 code points as a table, so the hot loop below has no
// unpredictable branch on where words end.
struct Latin1Spaces {
  std::array<bool, 256> table{};
  Latin1Spaces() {
    for (char32_t c = 0; c < 256; ++c) table[c] = text::is_space(c);
  }
};
const Latin1Spaces kLatin1Spaces;

bool space(char32_t c) { return c < 256 ? kLatin1Spaces.table[c] : text::is_space(c); }

template <class Unit, class Out>
void collapse(const Unit* units, size_t n, Out& out) {
  out.resize(n);  // the result is never longer
  auto* const begin = out.data();
  auto* w = begin;
  // Branch-free: every whitespace code point is written as ' ', and the write position
  // advances unless the previous code point was whitespace too. Starting as if after
  // whitespace drops leading runs; a trailing ' ' is trimmed at the end.
  bool prev_space = true;
  for (size_t i = 0; i < n; ++i) {
    const auto c = static_cast<char32_t>(units[i]);
    const bool sp = space(c);
    *w = static_cast<typename Out::value_type>(sp ? U' ' : c);
    w += !(sp && prev_space);
    prev_space = sp;
  }
  if (w != begin && prev_space) --w;
  out.resize(static_cast<size_t>(w - begin));
}

}  // namespace

void collapse_into(const uint8_t* units, size_t n, std::string& out) {
  collapse(units, n, out);
}
bool is_collapsed(const uint8_t* units, size_t n) {
  if (n == 0) return true;
  if (space(units[0]) || space(units[n - 1])) return false;
  bool prev_space = false;
  for (size_t i = 1; i + 1 < n; ++i) {
    const bool sp = space(units[i]);
    if (sp && (prev_space || units[i] != ' ')) return false;
    prev_space = sp;
  }
  return true;
}

std::string collapse_latin1(const uint8_t* units, size_t n) {
  std::string out;
  collapse(units, n, out);
  return out;
}
void collapse_into(const uint8_t* units, size_t n, std::u32string& out) {
  collapse(units, n, out);
}
void collapse_into(const uint16_t* units, size_t n, std::u32string& out) {
  collapse(units, n, out);
}
void collapse_into(const uint32_t* units, size_t n, std::u32string& out) {
  collapse(units, n, out);
}

Haystack::Haystack(std::string latin1) : bytes_(std::move(latin1)) {}

Haystack::Haystack(std::u32string text) : wide_(std::move(text)) {
  bytes_.resize(wide_.size());
  char32_t widest = 0;
  for (size_t i = 0; i < wide_.size(); ++i) {
    bytes_[i] = static_cast<char>(shadow(wide_[i]));
    widest = std::max(widest, wide_[i]);
  }
  if (widest < 0x100) wide_ = std::u32string();  // the bytes are the text
}

namespace {

// The byte search both needle kinds share: candidates come from the byte shadows, and
// `confirmed(i)` checks the code points at i.
template <class Confirm>
int64_t search_bytes(const unsigned char* hb, const unsigned char* pb, int64_t m,
                     int64_t from, int64_t to, Confirm confirmed) {
  if (m < 8) {
    // Short needles ("[Page ", hints): few shifts to gain, so skip the table and let
    // memchr find candidates for the first byte.
    const unsigned char* const end = hb + to;
    for (const unsigned char* at = hb + from; at + m <= end; ++at) {
      at = static_cast<const unsigned char*>(
          std::memchr(at, pb[0], static_cast<size_t>(end - at)));
      if (at == nullptr || at + m > end) return -1;
      if (confirmed(at - hb)) return at - hb;
    }
    return -1;
  }
  // Horspool on the pair of bytes ending the window (q-gram Horspool): in text with a
  // small alphabet every single byte occurs near the end of a long needle and allows
  // only short jumps, while most pairs do not occur in it at all. Pairs are hashed into
  // 4096 slots; a shared slot keeps the smaller shift, which can only shorten a jump,
  // never skip a match. The jump aligns the pair with its last occurrence ending at
  // j <= m - 2; an absent pair allows m - 1 (m could skip a match that starts at the
  // window's last position). Shifts are capped at 65535 (shorter is always safe) so
  // the table is 8 KiB to fill per search.
  constexpr uint32_t kSlots = 4096;
  const auto slot = [](unsigned char a, unsigned char b) {
    return (static_cast<uint32_t>(a) * 31u + b) & (kSlots - 1);
  };
  const auto cap = [](int64_t v) {
    return static_cast<uint16_t>(std::min<int64_t>(v, 65535));
  };
  std::array<uint16_t, kSlots> shift;
  shift.fill(cap(m - 1));
  for (int64_t j = std::max<int64_t>(1, m - 1 - 65535); j + 1 < m; ++j) {
    shift[slot(pb[j - 1], pb[j])] = cap(m - 1 - j);
  }
  const unsigned char last = pb[m - 1];
  for (int64_t i = from; i + m <= to;) {
    const unsigned char c = hb[i + m - 1];
    if (c == last && confirmed(i)) return i;
    i += shift[slot(hb[i + m - 2], c)];
  }
  return -1;
}

}  // namespace

int64_t Haystack::find(const std::u32string& needle, int64_t from, int64_t to) const {
  const auto m = static_cast<int64_t>(needle.size());
  from = std::max<int64_t>(from, 0);
  to = std::min(to, size());
  if (m == 0 || to < from || to - from < m) return -1;
  const char32_t* p = needle.data();
  const auto* hb = reinterpret_cast<const unsigned char*>(bytes_.data());
  std::string pattern(static_cast<size_t>(m), '\0');
  for (int64_t j = 0; j < m; ++j) {
    pattern[static_cast<size_t>(j)] = static_cast<char>(shadow(p[j]));
  }
  const auto* pb = reinterpret_cast<const unsigned char*>(pattern.data());
  const bool narrow = std::all_of(p, p + m, [](char32_t c) { return c < 0x100; });
  if (wide_.empty() && !narrow) return -1;  // a code point the text cannot hold
  return search_bytes(hb, pb, m, from, to, [&](int64_t i) {
    return std::equal(pb, pb + m, hb + i) &&
           (wide_.empty() || std::equal(p, p + m, wide_.data() + i));
  });
}

int64_t Haystack::find_latin1(std::string_view needle, int64_t from, int64_t to) const {
  const auto m = static_cast<int64_t>(needle.size());
  from = std::max<int64_t>(from, 0);
  to = std::min(to, size());
  if (m == 0 || to < from || to - from < m) return -1;
  const auto* hb = reinterpret_cast<const unsigned char*>(bytes_.data());
  const auto* pb = reinterpret_cast<const unsigned char*>(needle.data());
  // Latin-1 code points are their own shadow bytes, so equal bytes are equal text
  // unless the text is wide (a shadow byte may then stand for a hashed code point).
  return search_bytes(hb, pb, m, from, to, [&](int64_t i) {
    if (!std::equal(pb, pb + m, hb + i)) return false;
    if (wide_.empty()) return true;
    for (int64_t j = 0; j < m; ++j) {
      if (wide_[static_cast<size_t>(i + j)] != pb[j]) return false;
    }
    return true;
  });
}

int64_t find(const std::u32string& hay, const std::u32string& needle, int64_t from,
             int64_t to) {
  return Haystack(hay).find(needle, from, to);
}

std::vector<PageMarker> find_page_markers(const Haystack& text) {
  static const std::u32string kOpen = U"[Page ";
  const int64_t n = text.size();
  const auto open = static_cast<int64_t>(kOpen.size());
  std::vector<PageMarker> out;
  for (int64_t at = text.find(kOpen, 0, n); at >= 0; at = text.find(kOpen, at + 1, n)) {
    int64_t i = at + open;
    int64_t number = 0;
    int digits = 0;
    // At most 9 digits, so the number cannot overflow and nonsense is not a page.
    while (i < n && digits < 10 && text.at(i) >= U'0' && text.at(i) <= U'9') {
      number = number * 10 + static_cast<int64_t>(text.at(i) - U'0');
      ++i;
      ++digits;
    }
    if (digits == 0 || digits > 9 || i >= n || text.at(i) != U']') continue;
    out.push_back({at, number});
  }
  return out;
}

Document::Document(Haystack normalized)
    : hay_(std::move(normalized)), markers_(find_page_markers(hay_)) {}

size_t Document::page_index(int64_t pos) const {
  const auto after =
      std::upper_bound(markers_.begin(), markers_.end(), pos,
                       [](int64_t p, const PageMarker& mk) { return p < mk.offset; });
  return after == markers_.begin() ? 0
                                   : static_cast<size_t>(after - markers_.begin()) - 1;
}

std::vector<int64_t> Document::pages_of(int64_t start, int64_t end) const {
  std::vector<int64_t> out;
  if (!paged()) return out;
  const size_t first = page_index(start);
  const size_t last = end > start ? page_index(end - 1) : first;
  for (size_t k = first; k <= last; ++k) out.push_back(markers_[k].number);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool Document::page_segment(int64_t number, int64_t& start, int64_t& end) const {
  for (size_t k = 0; k < markers_.size(); ++k) {
    if (markers_[k].number != number) continue;
    start = k == 0 ? 0 : markers_[k].offset;
    end = k + 1 < markers_.size() ? markers_[k + 1].offset : hay_.size();
    return true;
  }
  return false;
}

template <class Find>
Span ChunkLocator::step(int64_t m, bool piece, Find find) {
  int64_t pos = find(cursor_, doc_.text().size());
  if (pos < 0 && m > 0 && prev_piece_ && run_start_ >= 0) {
    // First a match that starts before the cursor and ends after it (its start lies in
    // (cursor - m, cursor)); failing that, the closest match wholly before the cursor
    // but within the run: a short first piece of the next window can lie entirely in
    // the previous window's overlap.
    pos = find(std::max<int64_t>(run_start_, cursor_ - m + 1), cursor_ - 1 + m);
    for (int64_t at = find(run_start_, cursor_ - 1 + m); pos < 0 && at >= 0;) {
      const int64_t next = find(at + 1, cursor_ - 1 + m);
      if (next < 0) pos = at;
      at = next;
    }
  }
  if (pos >= 0) cursor_ = pos;
  if (!piece || !prev_piece_) run_start_ = -1;
  if (piece && pos >= 0) run_start_ = run_start_ < 0 ? pos : std::min(run_start_, pos);
  prev_piece_ = piece;
  if (pos < 0) return {};
  return {pos, pos + m};
}

Span ChunkLocator::next(const std::u32string& chunk, bool piece) {
  return step(static_cast<int64_t>(chunk.size()), piece, [&](int64_t from, int64_t to) {
    return doc_.text().find(chunk, from, to);
  });
}

Span ChunkLocator::next_latin1(std::string_view chunk, bool piece) {
  return step(static_cast<int64_t>(chunk.size()), piece, [&](int64_t from, int64_t to) {
    return doc_.text().find_latin1(chunk, from, to);
  });
}

std::vector<Span> locate_chunks(const Document& doc,
                                const std::vector<std::u32string>& chunks,
                                const std::vector<uint8_t>& pieces) {
  ChunkLocator walk(doc);
  std::vector<Span> out;
  out.reserve(chunks.size());
  for (size_t i = 0; i < chunks.size(); ++i) {
    out.push_back(walk.next(chunks[i], i < pieces.size() && pieces[i] != 0));
  }
  return out;
}

Resolution resolve_quote(const Document& doc, const std::u32string& quote, int64_t page,
                         const std::u32string& near) {
  Resolution r;
  const Haystack& text = doc.text();
  const int64_t n = text.size();
  if (quote.empty()) {
    r.status = ResolveStatus::kEmptyQuote;
    return r;
  }
  int64_t seg_start = 0;
  int64_t seg_end = n;
  if (page > 0 && !doc.page_segment(page, seg_start, seg_end)) {
    r.status = ResolveStatus::kUnknownPage;
    return r;
  }
  int64_t from = seg_start;
  if (!near.empty()) {
    int64_t hint = text.find(near, seg_start, seg_end);
    if (hint < 0) hint = text.find(near, 0, n);
    if (hint < 0) {
      r.status = ResolveStatus::kNearMissing;
      return r;
    }
    if (hint >= seg_start && hint < seg_end) from = hint;
  }
  int64_t pos = text.find(quote, from, seg_end);
  if (pos < 0 && from != seg_start) pos = text.find(quote, seg_start, seg_end);
  if (pos < 0) {
    r.status = ResolveStatus::kQuoteMissing;
    return r;
  }
  r.span = {pos, pos + static_cast<int64_t>(quote.size())};
  return r;
}

}  // namespace gaia::evidence
