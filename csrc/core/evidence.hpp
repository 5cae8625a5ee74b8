// gaia_eval native core: mapping retrieved chunks back to labelled evidence
// (no Python headers).
//
// Every position is a code-point offset into the document's normalized text: the
// extracted text with each whitespace run collapsed to one space and both ends trimmed
// (text::normalize_whitespace). Chunkers re-join words with single spaces, so a chunk
// is not a slice of the extracted text, but it is a substring of the normalized text.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gaia::evidence {

// A text prepared for repeated substring search, stored like CPython stores a str: one
// byte per code point when every code point is below 0x100, else the code points plus a
// one-byte shadow of each (the code point itself below 0x100, else a hash of it). The
// search runs over the bytes, a quarter of the memory, so it streams through the cache
// instead of waiting on it; every byte match is confirmed on the code points, so a hash
// collision costs time, never a wrong answer.
class Haystack {
 public:
  // each byte is one code point (U+0000-U+00FF)
  explicit Haystack(std::string_view latin1);
  explicit Haystack(std::u32string text);
  // The whitespace-normalized text of Latin-1 `units` (collapse_into), written once
  // into its own buffer; `brackets` (optional) gets the offset of every '[' in it.
  static Haystack collapsed_latin1(const uint8_t* units, size_t n,
                                   std::vector<int64_t>* brackets);

  int64_t size() const noexcept { return size_; }
  bool is_latin1() const noexcept { return wide_.empty(); }
  std::string_view bytes() const noexcept {
    return {bytes_.get(), static_cast<size_t>(size_)};
  }
  const std::u32string& wide() const noexcept { return wide_; }  // empty when latin1
  char32_t at(int64_t i) const noexcept {
    return wide_.empty() ? static_cast<unsigned char>(bytes_[static_cast<size_t>(i)])
                         : wide_[static_cast<size_t>(i)];
  }

  // Index of the first occurrence of `needle` wholly inside [from, to), or -1. An empty
  // needle is never found (an empty label matches nothing).
  int64_t find(const std::u32string& needle, int64_t from, int64_t to) const;
  // The same for a needle of Latin-1 code points, one byte each (no conversion).
  int64_t find_latin1(std::string_view needle, int64_t from, int64_t to) const;
  // find(needle, 0, size()) for each needle, the needles of 8 or more code points
  // searched together in one pass over the text (many quotes of one document).
  std::vector<int64_t> find_each(const std::vector<std::u32string>& needles) const;

 private:
  Haystack() = default;

  std::unique_ptr<char[]> bytes_;
  int64_t size_ = 0;
  std::u32string wide_;
};

// One-off search (builds a Haystack): Haystack::find's contract.
int64_t find(const std::u32string& hay, const std::u32string& needle, int64_t from,
             int64_t to);

// Whitespace normalization straight from a string's code units (1, 2 or 4 bytes each):
// the same text as text::normalize_whitespace(...).text (the same is_space), in one
// pass and without the offset map, which the evidence kernel has no use for. `out` is
// overwritten, so a caller can reuse one buffer for many strings.
void collapse_into(const uint8_t* units, size_t n, std::string& out);
void collapse_into(const uint8_t* units, size_t n, std::u32string& out);
void collapse_into(const uint16_t* units, size_t n, std::u32string& out);
void collapse_into(const uint32_t* units, size_t n, std::u32string& out);
// True when the units are already normalized (a chunker's " ".join(words)): no
// whitespace but single ' ' between non-space code points.
bool is_collapsed(const uint8_t* units, size_t n);

struct PageMarker {
  int64_t offset;  // where "[Page N]" starts in the normalized text
  int64_t number;  // N
};

// Every "[Page N]" (N: 1 to 9 decimal digits) in `text`, in order of offset.
std::vector<PageMarker> find_page_markers(const Haystack& text);
// The same, given the offset of every '[' in `text` (in order).
std::vector<PageMarker> page_markers_at(const Haystack& text,
                                        const std::vector<int64_t>& brackets);

struct Span {
  int64_t start = -1;  // -1: not found
  int64_t end = -1;
};

class Document {
 public:
  // `normalized`: the extracted text after whitespace normalization.
  explicit Document(Haystack normalized);
  // `brackets`: the offset of every '[' in the text, so markers need no search.
  Document(Haystack normalized, const std::vector<int64_t>& brackets);
  // The document of extracted Latin-1 text: normalized, with its markers, in one pass.
  static Document from_latin1(const uint8_t* units, size_t n);

  const Haystack& text() const noexcept { return hay_; }
  const std::vector<PageMarker>& markers() const noexcept { return markers_; }
  bool paged() const noexcept { return !markers_.empty(); }

  // Index into markers() of the page holding `pos`; text before the first marker
  // belongs to the first page. Requires paged().
  size_t page_index(int64_t pos) const;

  // Page numbers of the span [start, end): from the page holding `start` to the page
  // holding end - 1 (just `start`'s page for an empty span). Empty when unpaged.
  std::vector<int64_t> pages_of(int64_t start, int64_t end) const;

  // The text of page `number`: from its marker to the next marker or the end; the first
  // page also owns any text before its marker. The first marker with that number wins.
  // Returns false for an unknown page or an unpaged document.
  bool page_segment(int64_t number, int64_t& start, int64_t& end) const;

 private:
  Haystack hay_;
  std::vector<PageMarker> markers_;
  std::vector<size_t> by_number_;  // marker indices ordered by page number, then offset

  void index_pages();
};

// Locates a document's normalized chunks, fed in document order, with a cursor: a chunk
// is searched for from the start of the last located chunk onward, so a copy of its
// text earlier in the document (repeated boilerplate) is never taken.
//
// Split pieces: a window too long for the embedder is cut into pieces (`piece` is true
// for each). The next window's overlap can then begin before the last piece, so when
// the previous chunk was a piece a second search is allowed from the start of the run
// of pieces (with two pieces: the chunk before last), accepting only a match that
// starts before the cursor and ends after it. The run, not just the chunk before last,
// because a window of token-dense text (URLs, tables) can be cut into three or more
// short pieces, and the overlap then reaches back past the piece before last.
class ChunkLocator {
 public:
  explicit ChunkLocator(const Document& doc) : doc_(doc) {}
  Span next(const std::u32string& chunk, bool piece);
  // A Latin-1 chunk (one byte per code point), normalized or not (`scratch`: a buffer
  // for its normalized copy, reused across calls); the same span as next() of its
  // normalized text.
  Span next_latin1_raw(std::string_view raw, bool piece, std::string& scratch);

 private:
  // Where the next chunk (m code points; find(from, to) searches the text) starts, or
  // -1; advance() then moves the cursor. Split so a search can be retried.
  template <class Find>
  int64_t search(int64_t m, Find find) const;
  Span advance(int64_t pos, int64_t m, bool piece);
  template <class Find>
  Span step(int64_t m, bool piece, Find find);

  const Document& doc_;
  int64_t cursor_ = 0;  // start of the last located chunk
  int64_t run_start_ =
      -1;  // earliest start among the located pieces of the current run
  bool prev_piece_ = false;  // the previous chunk was a split piece
};

enum class ResolveStatus : int {
  kOk = 0,
  kEmptyQuote = 1,    // the quote is empty after normalization
  kUnknownPage = 2,   // a page was given but the document has no such page
  kNearMissing = 3,   // the near hint is not in the document
  kQuoteMissing = 4,  // the quote is not in the page (or document)
};

struct Resolution {
  ResolveStatus status = ResolveStatus::kOk;
  Span span;
};

// Resolve a normalized quote: within page `page`'s segment when page > 0, else the
// whole document; the search starts at the near hint's position when `near` is
// non-empty and falls back to the segment start.
Resolution resolve_quote(const Document& doc, const std::u32string& quote, int64_t page,
                         const std::u32string& near);

// resolve_quote for each quote (pages[k] 0: none; nears[k] empty: none), with the
// quotes that are searched in the whole document (no page, no hint) found in one pass.
std::vector<Resolution> resolve_quotes(const Document& doc,
                                       const std::vector<std::u32string>& quotes,
                                       const std::vector<int64_t>& pages,
                                       const std::vector<std::u32string>& nears);

// Whether the AVX2 block paths run (the CPU has AVX2 and GAIA_EVAL_NO_AVX2 is not set).
bool uses_avx2();

}  // namespace gaia::evidence
