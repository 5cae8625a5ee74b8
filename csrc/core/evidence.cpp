#include "evidence.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

#include "text.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GAIA_EVIDENCE_X86 1
#include <immintrin.h>
#else
#define GAIA_EVIDENCE_X86 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define GAIA_PREFETCH(p) __builtin_prefetch(p)
#else
#define GAIA_PREFETCH(p) ((void)0)
#endif

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

// Branch-free: every whitespace code point is written as ' ', and the write position
// advances unless the previous code point was whitespace too. With `brackets`, also
// notes where each '[' lands (offset by `base`, the output already written).
template <class Unit, class Char>
size_t collapse_scalar(const Unit* units, size_t n, Char* out, bool& prev_space,
                       std::vector<int64_t>* brackets = nullptr, size_t base = 0) {
  size_t w = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto c = static_cast<char32_t>(units[i]);
    const bool sp = space(c);
    if (brackets != nullptr && c == U'[')
      brackets->push_back(static_cast<int64_t>(base + w));
    out[w] = static_cast<Char>(sp ? U' ' : c);
    w += !(sp && prev_space);
    prev_space = sp;
  }
  return w;
}

#if GAIA_EVIDENCE_X86
// For each 8-bit "keep" mask, the pshufb indices that pack the kept bytes of an 8-byte
// lane to its front (the rest of the lane is don't-care: it is overwritten next).
struct PackTable {
  std::array<uint64_t, 256> lanes{};
  PackTable() {
    for (unsigned keep = 0; keep < 256; ++keep) {
      uint64_t v = 0;
      unsigned k = 0;
      for (unsigned bit = 0; bit < 8; ++bit) {
        if ((keep >> bit) & 1u) v |= static_cast<uint64_t>(bit) << (8 * k++);
      }
      lanes[keep] = v;
    }
  }
};
const PackTable kPack;

// Whitespace among 32 Latin-1 code points, as a byte mask: U+0009-000D, U+001C-0020,
// U+0085 and U+00A0 (text::is_space below 0x100).
__attribute__((target("avx2"))) inline __m256i latin1_spaces(__m256i x) {
  const __m256i k04 = _mm256_set1_epi8(0x04);
  // c - lo <= 4 as unsigned bytes <=> min(c - lo, 4) == c - lo.
  const __m256i a = _mm256_sub_epi8(x, _mm256_set1_epi8(0x09));
  const __m256i b = _mm256_sub_epi8(x, _mm256_set1_epi8(0x1C));
  return _mm256_or_si256(
      _mm256_or_si256(_mm256_cmpeq_epi8(_mm256_min_epu8(a, k04), a),
                      _mm256_cmpeq_epi8(_mm256_min_epu8(b, k04), b)),
      _mm256_or_si256(_mm256_cmpeq_epi8(x, _mm256_set1_epi8(static_cast<char>(0x85))),
                      _mm256_cmpeq_epi8(x, _mm256_set1_epi8(static_cast<char>(0xA0)))));
}

// Latin-1 collapse, 32 code points per step, without branches on the data (where words
// end is unpredictable, so a branch per block would be mispredicted about half the
// time): whitespace becomes ' ', a whitespace code point after whitespace is dropped,
// and each 8-byte piece is packed with one pshufb and stored whole; the write position
// advances by what the piece kept. `out` needs 32 bytes of slack for those stores.
// With kMark, where each '[' lands is noted too, so the page markers are found without
// another pass over the text. The inner loop runs up to 64 blocks with no call in it
// (notes go to a local array first), so the constants stay in registers.
template <bool kMark>
__attribute__((target("avx2,popcnt"))) size_t
collapse_avx2_blocks(const uint8_t* in, size_t n, char* out, bool& prev_space,
                     std::vector<int64_t>* brackets) {
  const __m256i kOpen = _mm256_set1_epi8('[');
  const __m256i kSp = _mm256_set1_epi8(' ');
  // pshufb indexes within each 16-byte lane: the odd pieces sit 8 bytes into theirs.
  const __m256i kOdd =
      _mm256_set_epi64x(0x0808080808080808LL, 0, 0x0808080808080808LL, 0);
  const uint64_t* const lanes = kPack.lanes.data();
  struct Note {
    size_t w;       // output position of the block
    uint32_t keep;  // which of its code points were kept
    uint32_t open;  // which of them are '['
  };
  std::array<Note, 64> notes;
  size_t w = 0;
  size_t i = 0;
  uint32_t prev = prev_space ? 1u : 0u;
  while (i + 32 <= n) {
    const size_t end = i + std::min<size_t>((n - i) / 32, notes.size()) * 32;
    size_t noted = 0;
    for (; i < end; i += 32) {
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
      const __m256i ws = latin1_spaces(x);
      const auto bits = static_cast<uint32_t>(_mm256_movemask_epi8(ws));
      const __m256i y = _mm256_blendv_epi8(x, kSp, ws);
      const uint32_t keep = ~(bits & ((bits << 1) | prev));
      prev = bits >> 31;
      if constexpr (kMark) {
        const auto open =
            static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, kOpen)));
        notes[noted] = {w, keep, open};  // written always, kept only with a '['
        noted += open != 0 ? 1 : 0;
      }
      const unsigned k0 = keep & 0xFFu;
      const unsigned k1 = (keep >> 8) & 0xFFu;
      const unsigned k2 = (keep >> 16) & 0xFFu;
      const unsigned k3 = keep >> 24;
      const __m256i shuffle = _mm256_add_epi8(
          _mm256_set_epi64x(
              static_cast<long long>(lanes[k3]), static_cast<long long>(lanes[k2]),
              static_cast<long long>(lanes[k1]), static_cast<long long>(lanes[k0])),
          kOdd);
      const __m256i z = _mm256_shuffle_epi8(y, shuffle);
      const __m128i lo = _mm256_castsi256_si128(z);
      const __m128i hi = _mm256_extracti128_si256(z, 1);
      const size_t w1 = w + static_cast<size_t>(__builtin_popcount(k0));
      const size_t w2 = w1 + static_cast<size_t>(__builtin_popcount(k1));
      const size_t w3 = w2 + static_cast<size_t>(__builtin_popcount(k2));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out + w), lo);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out + w1),
                       _mm_unpackhi_epi64(lo, lo));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out + w2), hi);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out + w3),
                       _mm_unpackhi_epi64(hi, hi));
      w = w3 + static_cast<size_t>(__builtin_popcount(k3));
    }
    if constexpr (kMark) {
      for (size_t k = 0; k < noted; ++k) {
        for (uint32_t open = notes[k].open; open != 0; open &= open - 1) {
          const auto bit = static_cast<unsigned>(__builtin_ctz(open));
          const uint32_t before = notes[k].keep & ((1u << bit) - 1u);
          brackets->push_back(static_cast<int64_t>(notes[k].w) +
                              __builtin_popcount(before));
        }
      }
    }
  }
  prev_space = prev != 0;
  return w + collapse_scalar(in + i, n - i, out + w, prev_space, brackets, w);
}

size_t collapse_avx2(const uint8_t* in, size_t n, char* out, bool& prev_space,
                     std::vector<int64_t>* brackets) {
  return brackets != nullptr
             ? collapse_avx2_blocks<true>(in, n, out, prev_space, brackets)
             : collapse_avx2_blocks<false>(in, n, out, prev_space, nullptr);
}

// is_collapsed's block test: true when 32 code points hold no whitespace but ' ' and no
// ' ' follows whitespace (`prev`: the code point before the block was whitespace).
__attribute__((target("avx2"))) size_t collapsed_prefix_avx2(const uint8_t* in,
                                                             size_t n,
                                                             bool& prev_space) {
  const __m256i kSp = _mm256_set1_epi8(' ');
  uint32_t prev = prev_space ? 1u : 0u;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    const __m256i ws = latin1_spaces(x);
    const auto bits = static_cast<uint32_t>(_mm256_movemask_epi8(ws));
    const auto plain =
        static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, kSp)));
    if ((bits & ~plain) != 0 || (bits & ((bits << 1) | prev)) != 0) break;
    prev = bits >> 31;
  }
  prev_space = prev != 0;
  return i;
}

// GAIA_EVAL_NO_AVX2=1 turns the AVX2 paths off, so the portable ones can be tested on a
// machine that has AVX2 (tests/native/test_evidence_portable.py).
bool detect_avx2() {
  const char* off = std::getenv("GAIA_EVAL_NO_AVX2");
  if (off != nullptr && off[0] != '\0' && off[0] != '0') return false;
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
}
#endif

// Asked once per process: every AVX2 path checks this.
bool avx2() {
#if GAIA_EVIDENCE_X86
  static const bool on = detect_avx2();
  return on;
#else
  return false;
#endif
}

// Latin-1 into `out` (room for n + 32 bytes); returns the normalized length.
size_t collapse_latin1_raw(const uint8_t* units, size_t n, char* out,
                           std::vector<int64_t>* brackets) {
  bool prev_space = true;  // as if after whitespace: leading runs are dropped
  size_t w = 0;
#if GAIA_EVIDENCE_X86
  w = avx2() ? collapse_avx2(units, n, out, prev_space, brackets)
             : collapse_scalar(units, n, out, prev_space, brackets);
#else
  w = collapse_scalar(units, n, out, prev_space, brackets);
#endif
  if (w != 0 && prev_space) --w;  // a trailing run left one ' '
  return w;
}

template <class Unit, class Out>
void collapse(const Unit* units, size_t n, Out& out) {
  out.resize(n + 32);  // never longer, plus the slack the block loop stores into
  size_t w = 0;
  if constexpr (sizeof(Unit) == 1 && sizeof(typename Out::value_type) == 1) {
    w = collapse_latin1_raw(units, n, out.data(), nullptr);
  } else {
    bool prev_space = true;  // as if after whitespace: leading runs are dropped
    w = collapse_scalar(units, n, out.data(), prev_space);
    if (w != 0 && prev_space) --w;  // a trailing run left one ' '
  }
  out.resize(w);
}

}  // namespace

void collapse_into(const uint8_t* units, size_t n, std::string& out) {
  collapse(units, n, out);
}

bool is_collapsed(const uint8_t* units, size_t n) {
  if (n == 0) return true;
  if (space(units[0]) || space(units[n - 1])) return false;
  bool prev_space = false;
  size_t i = 0;
#if GAIA_EVIDENCE_X86
  // The blocks that pass; the rest (a failing block included) is checked one by one.
  if (avx2()) i = collapsed_prefix_avx2(units, n, prev_space);
#endif
  for (; i < n; ++i) {
    const bool sp = space(units[i]);
    if (sp && (prev_space || units[i] != ' ')) return false;
    prev_space = sp;
  }
  return true;
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

Haystack::Haystack(std::string_view latin1)
    : bytes_(new char[latin1.size() + 1]), size_(static_cast<int64_t>(latin1.size())) {
  std::memcpy(bytes_.get(), latin1.data(), latin1.size());
}

Haystack::Haystack(std::u32string text)
    : bytes_(new char[text.size() + 1]),
      size_(static_cast<int64_t>(text.size())),
      wide_(std::move(text)) {
  char32_t widest = 0;
  for (size_t i = 0; i < wide_.size(); ++i) {
    bytes_[i] = static_cast<char>(shadow(wide_[i]));
    widest = std::max(widest, wide_[i]);
  }
  if (widest < 0x100) wide_ = std::u32string();  // the bytes are the text
}

Haystack Haystack::collapsed_latin1(const uint8_t* units, size_t n,
                                    std::vector<int64_t>* brackets) {
  Haystack h;
  // Not value-initialized: zeroing a multi-megabyte buffer that is about to be written
  // costs as much as a third of the collapse.
  h.bytes_.reset(new char[n + 32]);
  h.size_ =
      static_cast<int64_t>(collapse_latin1_raw(units, n, h.bytes_.get(), brackets));
  return h;
}

namespace {

#if GAIA_EVIDENCE_X86
// From i on (in steps of 32 while the windows at i..i+31 all fit before `to`), the
// first block with a window whose first and last bytes match; its bits go to `mask`.
// Returns where it stopped (mask 0: no block left). The loop has no call in it, so the
// byte vectors stay in registers.
__attribute__((target("avx2"))) int64_t pair_blocks_avx2(const unsigned char* hb,
                                                         unsigned char first,
                                                         unsigned char last, int64_t m,
                                                         int64_t i, int64_t to,
                                                         uint32_t& mask) {
  const __m256i f = _mm256_set1_epi8(static_cast<char>(first));
  const __m256i l = _mm256_set1_epi8(static_cast<char>(last));
  for (; i + 31 + m <= to; i += 32) {
    const __m256i a = _mm256_cmpeq_epi8(
        f, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(hb + i)));
    const __m256i b = _mm256_cmpeq_epi8(
        l, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(hb + i + m - 1)));
    mask = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_and_si256(a, b)));
    if (mask != 0) return i;
  }
  mask = 0;
  return i;
}
#endif

// Candidate positions for a long needle: where both its first and its last byte occur
// at the right distance, 32 positions per step (AVX2 where the CPU has it). In prose a
// byte pair matches about once in several hundred positions, so nearly every step is
// two loads, two compares and a test. Used for chunks, which the cursor walk finds a
// few thousand bytes ahead, so the scan is short and a skip table would cost more to
// fill than it saves.
template <class Confirm>
int64_t search_pair_filter(const unsigned char* hb, const unsigned char* pb, int64_t m,
                           int64_t from, int64_t to, Confirm& confirmed) {
  int64_t i = from;
#if GAIA_EVIDENCE_X86
  if (avx2()) {
    for (;;) {
      uint32_t mask = 0;
      i = pair_blocks_avx2(hb, pb[0], pb[m - 1], m, i, to, mask);
      if (mask == 0) break;
      for (; mask != 0; mask &= mask - 1) {
        const int64_t at = i + __builtin_ctz(mask);
        if (confirmed(at)) return at;
      }
      i += 32;
    }
  }
#endif
  for (; i + m <= to; ++i) {
    if (hb[i] == pb[0] && hb[i + m - 1] == pb[m - 1] && confirmed(i)) return i;
  }
  return -1;
}

// The 4 bytes at p as one integer (any byte order: it is only compared and hashed).
inline uint32_t gram(const unsigned char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// A gram's slot in a table of 2^kBits (Knuth's multiplicative hash: the high bits).
template <unsigned kBits>
uint32_t gram_slot(uint32_t v) {
  return (v * 2654435761u) >> (32 - kBits);
}

// Horspool on the 4 bytes ending the window (q-gram Horspool), for needles of up to
// 256 bytes (quotes, hints). In text with a small alphabet every single byte occurs
// near the end of a needle and allows only short jumps, while most 4-byte grams do not
// occur in it at all, so the window usually jumps m - 3. Grams are hashed into 4096
// slots; a shared slot keeps the smaller shift, which can only shorten a jump, never
// skip a match.
template <class Confirm>
int64_t search_qgram(const unsigned char* hb, const unsigned char* pb, int64_t m,
                     int64_t from, int64_t to, Confirm& confirmed) {
  constexpr int64_t kQ = 4;
  constexpr unsigned kBits = 12;
  const auto slot = [](uint32_t v) { return gram_slot<kBits>(v); };
  std::array<uint8_t, std::size_t{1} << kBits> shift;
  // A gram absent from needle[0..m-2] allows m - q + 1: any match starting earlier
  // would contain the window's last gram inside the needle.
  shift.fill(static_cast<uint8_t>(m - kQ + 1));
  for (int64_t e = kQ - 1; e + 1 < m;
       ++e) {  // later grams: smaller shifts, written last
    shift[slot(gram(pb + e - kQ + 1))] = static_cast<uint8_t>(m - 1 - e);
  }
  const uint32_t tail = gram(pb + m - kQ);
  for (int64_t i = from; i + m <= to;) {
    // Each step usually lands on a new cache line, and the next address depends on
    // this step's load, so without help the loop waits on memory at every step; jumps
    // are nearly always m - 3, so the lines a few steps ahead are known early.
    GAIA_PREFETCH(hb + std::min(i + 8 * m, to));
    const uint32_t g = gram(hb + i + m - kQ);
    if (g == tail && confirmed(i)) return i;
    i += shift[slot(g)];
  }
  return -1;
}

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
  if (m <= 256) return search_qgram(hb, pb, m, from, to, confirmed);
  return search_pair_filter(hb, pb, m, from, to, confirmed);
}

// First occurrence of each of several needles (all at least 8 bytes) in hb[0, n), in
// one pass: the q-gram Horspool above with one table for all of them (Wu and Manber's
// multi-pattern scheme). The window is as long as the shortest needle, L; a gram's
// shift is the smallest any needle allows, and the needles whose L-th byte ends with
// the window's last gram are the candidates checked there. Grams are hashed into 32K
// slots (see below), with a bit per slot for "some needle's last gram ends here".
// `confirmed(k, i)` checks needle k at i (its whole length, within the text).
template <class Confirm>
void search_each(const unsigned char* hb, int64_t n,
                 const std::vector<std::string>& needles, std::vector<int64_t>& first,
                 Confirm confirmed) {
  constexpr int64_t kQ = 4;
  // 32K one-byte shifts: the table stays in L1 (its load is on the loop's critical
  // path), at some more collisions than a larger one would have.
  constexpr unsigned kBits = 15;
  constexpr size_t kSlots = size_t{1} << kBits;
  const auto slot = [](uint32_t v) { return gram_slot<kBits>(v); };
  int64_t window = std::numeric_limits<int64_t>::max();
  for (const auto& p : needles)
    window = std::min<int64_t>(window, static_cast<int64_t>(p.size()));
  const int64_t L = window;
  std::vector<uint8_t> shift(kSlots,
                             static_cast<uint8_t>(std::min<int64_t>(L - kQ + 1, 255)));
  std::vector<uint64_t> candidate(kSlots / 64, 0);  // some needle's last gram is here
  std::vector<int32_t> head(kSlots, -1);
  std::vector<int32_t> next(needles.size(), -1);
  std::vector<uint32_t> tails(needles.size());
  for (size_t k = 0; k < needles.size(); ++k) {
    const auto* pb = reinterpret_cast<const unsigned char*>(needles[k].data());
    for (int64_t e = kQ - 1; e + 1 < L; ++e) {
      uint8_t& t = shift[slot(gram(pb + e - kQ + 1))];
      t = static_cast<uint8_t>(std::min<int64_t>(t, L - 1 - e));
    }
    tails[k] = gram(pb + L - kQ);
    const uint32_t s = slot(tails[k]);
    candidate[s / 64] |= uint64_t{1} << (s % 64);
    next[k] = head[s];
    head[s] = static_cast<int32_t>(k);
  }
  // Two walks at once, one from the start and one from the middle: each step's next
  // position waits on its own loads, so a second, independent walk fills that wait
  // (single-threaded; about twice the steps per second). The first walk owns the starts
  // below `mid`, the second the rest; a needle found by the first is the answer
  // whatever the second found. Short texts take one walk.
  const int64_t mid = n >= (int64_t{1} << 16) ? n / 2 : n;
  std::vector<int64_t> later(needles.size(), -1);  // the second walk's finds
  const auto visit = [&](int64_t i, uint32_t g, uint32_t s, std::vector<int64_t>& found,
                         size_t& left) {
    if (((candidate[s / 64] >> (s % 64)) & 1u) == 0) return;
    for (int32_t k = head[s]; k >= 0; k = next[static_cast<size_t>(k)]) {
      const auto kk = static_cast<size_t>(k);
      if (found[kk] >= 0 || tails[kk] != g) continue;
      if (i + static_cast<int64_t>(needles[kk].size()) > n || !confirmed(kk, i))
        continue;
      found[kk] = i;
      --left;
    }
  };
  size_t left_a = needles.size();
  size_t left_b = needles.size();
  int64_t a = 0;
  int64_t b = mid;
  while (left_a > 0 && a < mid && b + L <= n) {
    GAIA_PREFETCH(hb + std::min(a + 8 * L, n));  // see search_qgram
    GAIA_PREFETCH(hb + std::min(b + 8 * L, n));
    const uint32_t ga = gram(hb + a + L - kQ);
    const uint32_t gb = gram(hb + b + L - kQ);
    const uint32_t sa = slot(ga);
    const uint32_t sb = slot(gb);
    visit(a, ga, sa, first, left_a);
    visit(b, gb, sb, later, left_b);
    a += shift[sa];
    b += shift[sb];
  }
  while (left_a > 0 && a < mid && a + L <= n) {  // the first walk alone
    GAIA_PREFETCH(hb + std::min(a + 8 * L, n));
    const uint32_t g = gram(hb + a + L - kQ);
    const uint32_t s = slot(g);
    visit(a, g, s, first, left_a);
    a += shift[s];
  }
  if (left_a == 0) return;
  // The second walk alone, until every needle the first walk missed is found.
  size_t wanted = 0;
  for (size_t k = 0; k < needles.size(); ++k) {
    if (first[k] < 0 && later[k] < 0) ++wanted;
  }
  while (wanted > 0 && b + L <= n) {
    GAIA_PREFETCH(hb + std::min(b + 8 * L, n));
    const uint32_t g = gram(hb + b + L - kQ);
    const uint32_t s = slot(g);
    const size_t before = left_b;
    visit(b, g, s, later, left_b);
    if (left_b != before) {
      wanted = 0;
      for (size_t k = 0; k < needles.size(); ++k) {
        if (first[k] < 0 && later[k] < 0) ++wanted;
      }
    }
    b += shift[s];
  }
  for (size_t k = 0; k < needles.size(); ++k) {
    if (first[k] < 0) first[k] = later[k];
  }
}

}  // namespace

int64_t Haystack::find(const std::u32string& needle, int64_t from, int64_t to) const {
  const auto m = static_cast<int64_t>(needle.size());
  from = std::max<int64_t>(from, 0);
  to = std::min(to, size());
  if (m == 0 || to < from || to - from < m) return -1;
  const char32_t* p = needle.data();
  const auto* hb = reinterpret_cast<const unsigned char*>(bytes_.get());
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

std::vector<int64_t> Haystack::find_each(
    const std::vector<std::u32string>& needles) const {
  std::vector<int64_t> first(needles.size(), -1);
  std::vector<std::string> patterns;  // shadow bytes of the needles that share the pass
  std::vector<size_t> shared;         // their indices in `needles`
  for (size_t k = 0; k < needles.size(); ++k) {
    const std::u32string& p = needles[k];
    const bool narrow =
        std::all_of(p.begin(), p.end(), [](char32_t c) { return c < 0x100; });
    if (p.size() < 8 || (wide_.empty() && !narrow)) {
      first[k] = find(p, 0, size());  // too short to skip far (or cannot occur: -1)
      continue;
    }
    std::string bytes(p.size(), '\0');
    for (size_t j = 0; j < p.size(); ++j) bytes[j] = static_cast<char>(shadow(p[j]));
    patterns.push_back(std::move(bytes));
    shared.push_back(k);
  }
  if (patterns.empty()) return first;
  const auto* hb = reinterpret_cast<const unsigned char*>(bytes_.get());
  std::vector<int64_t> found(patterns.size(), -1);
  search_each(hb, size(), patterns, found, [&](size_t k, int64_t i) {
    const std::string& pb = patterns[k];
    if (std::memcmp(pb.data(), hb + i, pb.size()) != 0) return false;
    const std::u32string& p = needles[shared[k]];
    return wide_.empty() || std::equal(p.begin(), p.end(), wide_.data() + i);
  });
  for (size_t k = 0; k < shared.size(); ++k) first[shared[k]] = found[k];
  return first;
}

int64_t Haystack::find_latin1(std::string_view needle, int64_t from, int64_t to) const {
  const auto m = static_cast<int64_t>(needle.size());
  from = std::max<int64_t>(from, 0);
  to = std::min(to, size());
  if (m == 0 || to < from || to - from < m) return -1;
  const auto* hb = reinterpret_cast<const unsigned char*>(bytes_.get());
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

namespace {

const std::u32string kOpenMarker = U"[Page ";

// The page number of a "[Page N]" starting at `at`, or -1 when none starts there.
int64_t marker_at(const Haystack& text, int64_t at) {
  const int64_t n = text.size();
  const auto open = static_cast<int64_t>(kOpenMarker.size());
  if (at < 0 || at + open > n) return -1;
  for (int64_t j = 0; j < open; ++j) {
    if (text.at(at + j) != kOpenMarker[static_cast<size_t>(j)]) return -1;
  }
  int64_t i = at + open;
  int64_t number = 0;
  int digits = 0;
  // At most 9 digits, so the number cannot overflow and nonsense is not a page.
  while (i < n && digits < 10 && text.at(i) >= U'0' && text.at(i) <= U'9') {
    number = number * 10 + static_cast<int64_t>(text.at(i) - U'0');
    ++i;
    ++digits;
  }
  if (digits == 0 || digits > 9 || i >= n || text.at(i) != U']') return -1;
  return number;
}

}  // namespace

std::vector<PageMarker> find_page_markers(const Haystack& text) {
  const int64_t n = text.size();
  std::vector<PageMarker> out;
  for (int64_t at = text.find(kOpenMarker, 0, n); at >= 0;
       at = text.find(kOpenMarker, at + 1, n)) {
    const int64_t number = marker_at(text, at);
    if (number >= 0) out.push_back({at, number});
  }
  return out;
}

std::vector<PageMarker> page_markers_at(const Haystack& text,
                                        const std::vector<int64_t>& brackets) {
  std::vector<PageMarker> out;
  for (const int64_t at : brackets) {
    const int64_t number = marker_at(text, at);
    if (number >= 0) out.push_back({at, number});
  }
  return out;
}

Document::Document(Haystack normalized)
    : hay_(std::move(normalized)), markers_(find_page_markers(hay_)) {
  index_pages();
}

Document::Document(Haystack normalized, const std::vector<int64_t>& brackets)
    : hay_(std::move(normalized)), markers_(page_markers_at(hay_, brackets)) {
  index_pages();
}

Document Document::from_latin1(const uint8_t* units, size_t n) {
  std::vector<int64_t> brackets;
  Haystack text = Haystack::collapsed_latin1(units, n, &brackets);
  return Document(std::move(text), brackets);
}

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

void Document::index_pages() {
  by_number_.resize(markers_.size());
  for (size_t k = 0; k < markers_.size(); ++k) by_number_[k] = k;
  // Stable: among markers with the same number the first stays first.
  std::stable_sort(by_number_.begin(), by_number_.end(), [this](size_t a, size_t b) {
    return markers_[a].number < markers_[b].number;
  });
}

bool Document::page_segment(int64_t number, int64_t& start, int64_t& end) const {
  // Binary search by number (a labelled quote asks once per label, and a long PDF has
  // thousands of pages); the first marker with the number wins.
  const auto at =
      std::lower_bound(by_number_.begin(), by_number_.end(), number,
                       [this](size_t k, int64_t n) { return markers_[k].number < n; });
  if (at == by_number_.end() || markers_[*at].number != number) return false;
  const size_t k = *at;
  start = k == 0 ? 0 : markers_[k].offset;
  end = k + 1 < markers_.size() ? markers_[k + 1].offset : hay_.size();
  return true;
}

template <class Find>
int64_t ChunkLocator::search(int64_t m, Find find) const {
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
  return pos;
}

Span ChunkLocator::advance(int64_t pos, int64_t m, bool piece) {
  if (pos >= 0) cursor_ = pos;
  if (!piece || !prev_piece_) run_start_ = -1;
  if (piece && pos >= 0) run_start_ = run_start_ < 0 ? pos : std::min(run_start_, pos);
  prev_piece_ = piece;
  if (pos < 0) return {};
  return {pos, pos + m};
}

template <class Find>
Span ChunkLocator::step(int64_t m, bool piece, Find find) {
  return advance(search(m, find), m, piece);
}

Span ChunkLocator::next(const std::u32string& chunk, bool piece) {
  return step(static_cast<int64_t>(chunk.size()), piece, [&](int64_t from, int64_t to) {
    return doc_.text().find(chunk, from, to);
  });
}

Span ChunkLocator::next_latin1_raw(std::string_view raw, bool piece,
                                   std::string& scratch) {
  const auto find_in = [this](std::string_view needle) {
    return [this, needle](int64_t from, int64_t to) {
      return doc_.text().find_latin1(needle, from, to);
    };
  };
  const auto* units = reinterpret_cast<const uint8_t*>(raw.data());
  // A chunk is usually normalized already (a chunker's " ".join(words)). Searching it
  // as it is gives the normalized answer whenever it is found: with no whitespace at
  // either end, a substring of normalized text has no whitespace but single ' ', so
  // the chunk was normalized. Only a chunk not found needs the check (and a copy).
  if (!raw.empty() && !space(units[0]) && !space(units[raw.size() - 1])) {
    const auto m = static_cast<int64_t>(raw.size());
    const int64_t pos = search(m, find_in(raw));
    if (pos >= 0 || is_collapsed(units, raw.size())) return advance(pos, m, piece);
  }
  collapse_into(units, raw.size(), scratch);
  const auto m = static_cast<int64_t>(scratch.size());
  return advance(search(m, find_in(scratch)), m, piece);
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

std::vector<Resolution> resolve_quotes(const Document& doc,
                                       const std::vector<std::u32string>& quotes,
                                       const std::vector<int64_t>& pages,
                                       const std::vector<std::u32string>& nears) {
  std::vector<Resolution> out(quotes.size());
  std::vector<std::u32string> whole;  // quotes searched in the whole document
  std::vector<size_t> where;
  for (size_t k = 0; k < quotes.size(); ++k) {
    const int64_t page = k < pages.size() ? pages[k] : 0;
    const bool near = k < nears.size() && !nears[k].empty();
    if (quotes[k].empty() || page > 0 || near) {
      out[k] = resolve_quote(doc, quotes[k], page, near ? nears[k] : std::u32string());
    } else {
      whole.push_back(quotes[k]);
      where.push_back(k);
    }
  }
  const std::vector<int64_t> first = doc.text().find_each(whole);
  for (size_t j = 0; j < where.size(); ++j) {
    Resolution& r = out[where[j]];
    if (first[j] < 0) {
      r.status = ResolveStatus::kQuoteMissing;
    } else {
      r.span = {first[j], first[j] + static_cast<int64_t>(whole[j].size())};
    }
  }
  return out;
}

bool uses_avx2() { return avx2(); }

}  // namespace gaia::evidence
