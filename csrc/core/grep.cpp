// gaia_eval native core: grep (no Python headers).
#include "grep.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define GAIA_GREP_POSIX 1
#endif

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define GAIA_GREP_SSE2 1
#endif

namespace gaia::grep {
namespace {

constexpr std::array<bool, 256> make_word_table() {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c) {
    t[static_cast<std::size_t>(c)] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                     (c >= '0' && c <= '9') || c == '_';
  }
  return t;
}
constexpr std::array<bool, 256> kWord = make_word_table();

constexpr uint64_t kSeed = 0x9e3779b97f4a7c15ULL;
constexpr uint64_t kMul = 0xbf58476d1ce4e5b9ULL;

// The last step: one multiply (its top bits, which pick the slice, depend on every
// input bit) and a shift that folds those top bits into the low ones, which are stored
// too. A bijection, at a third of murmur3's fmix64 latency: that finalizer on every
// word was a third of the build.
inline uint64_t finish(uint64_t h) noexcept {
  h *= 0x9e3779b97f4a7c15ULL;
  return h ^ (h >> 29);
}

// A bijection, so two chunk sequences differing only in their last chunk never collide.
inline uint64_t step(uint64_t h) noexcept {
  h *= kMul;
  return h ^ (h >> 31);
}

// Little-endian value of the `avail` (1..8) bytes at p, zero-extended: the same number
// whether the bytes after the word are readable text (building) or absent (a query).
inline uint64_t load_le(const char* p, std::size_t avail) noexcept {
  uint64_t v = 0;
  if (avail >= 8) {
    std::memcpy(&v, p, 8);  // a fixed size compiles to one load
  } else {
    for (std::size_t i = 0; i < avail; ++i) {
      v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);  // undone below: the bytes were placed little-endian
#endif
  }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

// Hash of the word p[0, len); `avail` >= len bytes are readable from p.
inline uint64_t hash_span(const char* p, std::size_t len, std::size_t avail) noexcept {
  uint64_t h = kSeed ^ (static_cast<uint64_t>(len) * kMul);
  std::size_t i = 0;
  for (; len - i > 8; i += 8) h = step(h ^ load_le(p + i, 8));
  const std::size_t rest = len - i;  // 1..8
  const uint64_t mask = ~uint64_t{0} >> (64 - 8 * rest);
  return finish(h ^ (load_le(p + i, avail - i) & mask));
}

inline unsigned ctz64(uint64_t x) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  return static_cast<unsigned>(__builtin_ctzll(x));
#else
  unsigned n = 0;
  while (!(x & 1)) {
    x >>= 1;
    ++n;
  }
  return n;
#endif
}

inline unsigned popcount64(uint64_t x) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  return static_cast<unsigned>(__builtin_popcountll(x));
#else
  unsigned n = 0;
  for (; x; x &= x - 1) ++n;
  return n;
#endif
}

// Bit i of *word is set when b[i] is a word byte, of *nl when it is '\n'.
#if GAIA_GREP_SSE2
inline void classify64(const unsigned char* b, uint64_t* word, uint64_t* nl) noexcept {
  // Letters: c | 0x20 in 'a'..'z' (only A-Z and a-z land there). Ranges are tested with
  // one signed compare after shifting the range's start to -128.
  const __m128i lo_bias = _mm_set1_epi8(static_cast<char>(-128 - 'a'));
  const __m128i lo_lim = _mm_set1_epi8(static_cast<char>(-128 + 26));
  const __m128i dig_bias = _mm_set1_epi8(static_cast<char>(-128 - '0'));
  const __m128i dig_lim = _mm_set1_epi8(static_cast<char>(-128 + 10));
  const __m128i case_bit = _mm_set1_epi8(0x20);
  const __m128i under = _mm_set1_epi8('_');
  const __m128i newline = _mm_set1_epi8('\n');
  uint64_t w = 0, n = 0;
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16 * k));
    const __m128i letter =
        _mm_cmplt_epi8(_mm_add_epi8(_mm_or_si128(v, case_bit), lo_bias), lo_lim);
    const __m128i digit = _mm_cmplt_epi8(_mm_add_epi8(v, dig_bias), dig_lim);
    const __m128i is_word =
        _mm_or_si128(_mm_or_si128(letter, digit), _mm_cmpeq_epi8(v, under));
    w |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(is_word)))
         << (16 * k);
    n |= static_cast<uint64_t>(
             static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, newline))))
         << (16 * k);
  }
  *word = w;
  *nl = n;
}
#else
inline void classify64(const unsigned char* b, uint64_t* word, uint64_t* nl) noexcept {
  uint64_t w = 0, n = 0;
  for (unsigned i = 0; i < 64; ++i) {
    w |= static_cast<uint64_t>(kWord[b[i]]) << i;
    n |= static_cast<uint64_t>(b[i] == '\n') << i;
  }
  *word = w;
  *nl = n;
}
#endif

#if defined(__GNUC__) || defined(__clang__)
#define GAIA_GREP_INLINE inline __attribute__((always_inline))
#else
#define GAIA_GREP_INLINE inline
#endif

// Calls emit(hash, line) for every word of p[0, n) in order; returns the line after the
// last one (`line` plus the number of '\n').
template <class Emit>
GAIA_GREP_INLINE uint64_t scan(const char* p, std::size_t n, uint64_t line,
                               Emit& emit) {
  bool in_word = false;
  std::size_t start = 0;
  uint64_t start_line = 0;
  uint64_t carry = 0;  // 1 when the byte before this block is a word byte
  unsigned char tail[64];
  for (std::size_t off = 0; off < n; off += 64) {
    const unsigned char* b = reinterpret_cast<const unsigned char*>(p) + off;
    if (n - off < 64) {
      // Zero padding is neither a word byte nor a newline, so it ends the last word.
      std::memset(tail, 0, sizeof tail);
      std::memcpy(tail, b, n - off);
      b = tail;
    }
    uint64_t w = 0, nl = 0;
    classify64(b, &w, &nl);
    const uint64_t prev = (w << 1) | carry;
    carry = w >> 63;
    uint64_t starts = w & ~prev;
    uint64_t ends = ~w & prev;
    // Starts and ends alternate: pair them, one iteration per word. A word left open by
    // the previous block owns this block's first end.
    if (in_word) {
      if (ends == 0) {
        line += popcount64(nl);
        continue;
      }
      emit(hash_span(p + start, off + ctz64(ends) - start, n - start), start_line);
      ends &= ends - 1;
      in_word = false;
    }
    while (starts != 0) {
      const unsigned i = ctz64(starts);
      starts &= starts - 1;
      const uint64_t at_line = line + popcount64(nl & ((uint64_t{1} << i) - 1));
      if (ends == 0) {  // runs past this block
        start = off + i;
        start_line = at_line;
        in_word = true;
        break;
      }
      const unsigned j = ctz64(ends);
      ends &= ends - 1;
      emit(hash_span(p + off + i, j - i, n - off - i), at_line);
    }
    line += popcount64(nl);
  }
  if (in_word) emit(hash_span(p + start, n - start, n - start), start_line);
  return line;
}

}  // namespace

// Appends each word to its slice; the scanner is inlined into two copies, one
// compiled for the POPCNT instruction (baseline x86-64 lacks it, and the library call
// in its place cost 7% of building), picked once at run time.
struct SliceSink {
  WordIndex* index;
  std::array<WordIndex::Slice, WordIndex::kSlices>* slices;
  GAIA_GREP_INLINE void operator()(uint64_t h, uint64_t line) {
    const std::size_t t = h >> (64 - WordIndex::kSliceBits);
    WordIndex::Slice& s = (*slices)[t];
    if (s.left < 2) index->new_block(t);  // room for an escaped line
    uint64_t* q = s.cur;
#if defined(__GNUC__) || defined(__clang__)
    // 1024 interleaved write streams are more than the hardware prefetcher follows; ask
    // for this slice's line 256 bytes ahead so the store does not wait on memory.
    __builtin_prefetch(q + 32, 1);
#endif
    const uint64_t delta = line - s.last_line;
    s.last_line = line;
    const uint64_t bits = (h << WordIndex::kSliceBits) & ~uint64_t{0xffff};
    if (delta < 0xffff) {
      q[0] = bits | delta;
      s.cur = q + 1;
      --s.left;
    } else {
      q[0] = bits | 0xffff;
      q[1] = line;
      s.cur = q + 2;
      s.left -= 2;
    }
    ++s.count;
  }
};

namespace {

uint64_t scan_generic(const char* p, std::size_t n, uint64_t line, SliceSink& sink) {
  return scan(p, n, line, sink);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("popcnt"))) uint64_t scan_popcnt(const char* p, std::size_t n,
                                                       uint64_t line, SliceSink& sink) {
  return scan(p, n, line, sink);
}

bool has_popcnt() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("popcnt");
}
#endif

uint64_t scan_words(const char* p, std::size_t n, uint64_t line, SliceSink& sink) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool popcnt = has_popcnt();
  if (popcnt) return scan_popcnt(p, n, line, sink);
#endif
  return scan_generic(p, n, line, sink);
}

}  // namespace

bool is_word_byte(unsigned char c) noexcept { return kWord[c]; }

bool looks_binary(std::string_view data) noexcept {
  const std::size_t n =
      data.size() < kBinarySniffBytes ? data.size() : kBinarySniffBytes;
  return n > 0 && std::memchr(data.data(), 0, n) != nullptr;
}

bool is_word(std::string_view word) noexcept {
  if (word.empty()) return false;
  for (char c : word) {
    if (!kWord[static_cast<unsigned char>(c)]) return false;
  }
  return true;
}

uint64_t hash_word(std::string_view word) noexcept {
  if (word.empty()) return 0;
  return hash_span(word.data(), word.size(), word.size());
}

// ---- PodArray ----

template <class T>
void PodArray<T>::reserve(std::size_t n) {
  if (n <= cap_) return;
  if (n > std::numeric_limits<std::size_t>::max() / sizeof(T) / 2)
    throw std::bad_alloc();
  std::size_t want = std::max(n, cap_ + cap_ / 2);
  T* fresh = nullptr;
  std::size_t mapped = 0;
#if GAIA_GREP_POSIX
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  if (want * sizeof(T) >= 2 * kHuge) {
    mapped = (want * sizeof(T) + kHuge - 1) / kHuge * kHuge;
    // Map one huge page more than needed and trim both ends, so the block starts on a
    // 2 MiB boundary and every page of it can be a huge one.
    void* raw = mmap(nullptr, mapped + kHuge, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const auto addr = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t aligned = (addr + kHuge - 1) / kHuge * kHuge;
    if (aligned > addr) munmap(raw, aligned - addr);
    if (aligned + mapped < addr + mapped + kHuge) {
      munmap(reinterpret_cast<void*>(aligned + mapped), addr + kHuge - aligned);
    }
    void* m = reinterpret_cast<void*>(aligned);
#ifdef MADV_HUGEPAGE
    // Advice only: without transparent huge pages this is 4 KiB faults as before.
    madvise(m, mapped, MADV_HUGEPAGE);
#endif
    fresh = static_cast<T*>(m);
    want = mapped / sizeof(T);
  }
#endif
  if (fresh == nullptr) fresh = new T[want];
  if (size_ > 0) std::memcpy(fresh, data_, size_ * sizeof(T));
  release();
  data_ = fresh;
  cap_ = want;
  bytes_ = mapped;
}

template <class T>
void PodArray<T>::release() noexcept {
  if (data_ == nullptr) return;
#if GAIA_GREP_POSIX
  if (bytes_ > 0) {
    munmap(data_, bytes_);
    return;
  }
#endif
  delete[] data_;
}

template class PodArray<uint64_t>;

// ---- WordIndex ----

void WordIndex::new_block(std::size_t slice) {
  if (slab_blocks_used_ == slab_blocks_cap_) {
    // A small first slab keeps a small index small; later ones are 8 MiB, big enough
    // for PodArray to map them on huge pages.
    slab_blocks_cap_ = slabs_.empty() ? 64 : kSlabBlocks;
    slabs_.emplace_back();
    slabs_.back().resize_uninit(slab_blocks_cap_ * kBlockWords);
    slab_blocks_used_ = 0;
  }
  uint64_t* block = slabs_.back().data() + slab_blocks_used_ * kBlockWords;
  ++slab_blocks_used_;
  auto& blocks = slice_blocks_[slice];
  if (!blocks.empty()) blocks.back().used = kBlockWords - slices_[slice].left;
  blocks.push_back(Block{block, 0});
  slices_[slice].cur = block;
  slices_[slice].left = kBlockWords;
}

void WordIndex::start_file(FileKind kind) {
  if (finalized_) throw std::logic_error("WordIndex: add_file after finalize");
  if (kind_.size() >= std::numeric_limits<uint32_t>::max() - 1) {
    throw std::length_error("WordIndex: more than 4 billion files");
  }
  file_first_line_.push_back(next_line_);
  kind_.push_back(static_cast<uint8_t>(kind));
}

void WordIndex::add_unreadable() {
  start_file(FileKind::kUnreadable);
  ++next_line_;  // every file owns at least one line number
}

bool WordIndex::add_file(std::string_view data) {
  if (looks_binary(data)) {
    start_file(FileKind::kBinary);
    ++next_line_;
    return false;
  }
  start_file(FileKind::kText);
  SliceSink sink{this, &slices_};
  const uint64_t end = scan_words(data.data(), data.size(), next_line_, sink);
  // Checked once per file: inside one, line ids stay below 2^32 + its size (the slices
  // store them in 64 bits), and the slices hold any number of words.
  if (end + 1 >= std::numeric_limits<uint32_t>::max()) {
    throw std::length_error("WordIndex: more than 4 billion lines");
  }
  next_line_ = static_cast<uint32_t>(end + 1);
  return true;
}

FileKind WordIndex::add_path(const std::string& path) {
  if (finalized_) throw std::logic_error("WordIndex: add_file after finalize");
  std::size_t len = 0;
  bool ok = false;
#if GAIA_GREP_POSIX
  // O_NONBLOCK: opening a FIFO must not wait for a writer; regular files ignore it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd >= 0) {
    struct stat st{};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
      // The size is a hint: the file may have grown, or (procfs) report 0; read to EOF.
      std::size_t want = static_cast<std::size_t>(st.st_size) + 1;
      ok = true;
      for (;;) {
        if (buf_cap_ < len + want) {
          const std::size_t cap = std::max(len + want, buf_cap_ * 2);
          std::unique_ptr<char[]> grown(new char[cap]);
          if (len > 0) std::memcpy(grown.get(), buf_.get(), len);
          buf_ = std::move(grown);
          buf_cap_ = cap;
        }
        const ssize_t got = ::read(fd, buf_.get() + len, buf_cap_ - len);
        if (got < 0) {
          if (errno == EINTR) continue;
          ok = false;
          break;
        }
        if (got == 0) break;
        len += static_cast<std::size_t>(got);
        // Exactly the size fstat gave, one byte short of the request: a local file is
        // at its end, and the read that would return 0 is one syscall per file saved.
        if (len == static_cast<std::size_t>(st.st_size) && len < buf_cap_) break;
        want = 65536;
      }
    }
    ::close(fd);
  }
#else
  if (std::FILE* fh = std::fopen(path.c_str(), "rb")) {
    ok = true;
    for (;;) {
      if (buf_cap_ < len + 65536) {
        const std::size_t cap = std::max(len + 65536, buf_cap_ * 2);
        std::unique_ptr<char[]> grown(new char[cap]);
        if (len > 0) std::memcpy(grown.get(), buf_.get(), len);
        buf_ = std::move(grown);
        buf_cap_ = cap;
      }
      const std::size_t got = std::fread(buf_.get() + len, 1, buf_cap_ - len, fh);
      len += got;
      if (got == 0) {
        ok = !std::ferror(fh);
        break;
      }
    }
    std::fclose(fh);
  }
#endif
  if (!ok) {
    add_unreadable();
    return FileKind::kUnreadable;
  }
  return add_file(std::string_view(buf_.get(), len)) ? FileKind::kText
                                                     : FileKind::kBinary;
}

void WordIndex::finalize() {
  if (finalized_) return;
  buf_.reset();  // add_path's read buffer, as large as the largest file
  buf_cap_ = 0;
  std::size_t n = 0;
  for (std::size_t t = 0; t < kSlices; ++t) {
    n += slices_[t].count;
    auto& blocks = slice_blocks_[t];
    if (!blocks.empty()) blocks.back().used = kBlockWords - slices_[t].left;
  }
  n_occ_ = n;
  finalized_ = true;
}

std::vector<Hit> WordIndex::lookup(std::string_view word) const {
  if (!finalized_) throw std::logic_error("WordIndex: lookup before finalize");
  std::vector<Hit> out;
  if (!is_word(word)) return out;
  const uint64_t h = hash_word(word);
  constexpr uint64_t kKeyMask = ~uint64_t{0xffff};
  const uint64_t key = (h << kSliceBits) & kKeyMask;  // as SliceSink stores it
  std::size_t file = 0;
  uint64_t line = 0;
  bool escaped = false;  // the previous word was 0xffff: this one is an absolute line
  bool match = false;
  auto hit = [&](uint64_t global) {
    const auto g = static_cast<uint32_t>(global);
    // Lines ascend within a slice, so the file cursor only moves forward; a jump past
    // the next file is a binary search, so a rare word in a big tree stays cheap.
    if (file + 1 < file_first_line_.size() && file_first_line_[file + 1] <= g) {
      file =
          static_cast<std::size_t>(std::upper_bound(file_first_line_.begin() + file + 1,
                                                    file_first_line_.end(), g) -
                                   file_first_line_.begin()) -
          1;
    }
    const uint32_t ln = g - file_first_line_[file] + 1;
    if (!out.empty() && out.back().file == file && out.back().line == ln) {
      ++out.back().count;
    } else {
      out.push_back(Hit{static_cast<uint32_t>(file), ln, 1});
    }
  };
  auto plain = [&](uint64_t w) {  // neither this word's key nor an escape
    return static_cast<unsigned>((w & kKeyMask) != key) &
           static_cast<unsigned>((w & 0xffff) != 0xffff);
  };
  for (const Block& b : slice_blocks_[h >> (64 - kSliceBits)]) {
    const uint64_t* q = b.words;
    for (std::size_t k = 0; k < b.used; ++k) {
      // Almost every word is someone else's with a small delta: four at a time, only
      // their deltas added, without a branch per word.
      while (!escaped && k + 4 <= b.used) {
        const uint64_t w0 = q[k], w1 = q[k + 1], w2 = q[k + 2], w3 = q[k + 3];
        if ((plain(w0) & plain(w1) & plain(w2) & plain(w3)) == 0) break;
        line += (w0 & 0xffff) + (w1 & 0xffff) + (w2 & 0xffff) + (w3 & 0xffff);
        k += 4;
      }
      if (k >= b.used) break;
      const uint64_t w = q[k];
      if (escaped) {
        line = w;
        escaped = false;
        if (match) hit(line);
        continue;
      }
      match = (w & kKeyMask) == key;
      const uint64_t d = w & 0xffff;
      if (d == 0xffff) {
        escaped = true;
        continue;
      }
      line += d;
      if (match) hit(line);
    }
  }
  return out;
}

}  // namespace gaia::grep
