// gaia_eval native core: grep (no Python headers).
//
// The lexical baseline's kernel: a whole-word inverted index over a tree, built once,
// so a query of many identifiers costs a few bucket reads instead of a scan of every
// file. "Word" follows git grep -w: a maximal run of ASCII letters, digits and '_'
// (bytes >= 0x80 are not word characters). Matching is case-sensitive and fixed-string.
//
// Building never interns words (a dictionary lookup per token is what made building
// slow): each occurrence is appended, in file and line order, to one of 1024 slices
// chosen by its hash's top 10 bits, as one 8-byte word: the hash's next 48 bits over a
// 16-bit line delta from the slice's previous occurrence (lines only grow; 0xffff says
// the absolute line follows in the next word). A lookup decodes its word's slice,
// 1/1024 of the occurrences, keeping the entries whose 48 bits match: about 15 us a
// word on CPython's standard library. Sorting each slice into hash buckets as well made
// lookups cheaper still (3 us) but cost a quarter of the build, which is to stay within
// twice one ripgrep pass; 4096 slices cost the build more in scattered writes than
// they saved lookups.
//
// Collisions: a word is identified by 58 hash bits (10 choose the slice, 48 are
// stored). A query word is confused with another word of the tree only if both match:
// for d distinct words that chance is d / 2^58 per query word, 4e-13 for CPython's
// standard library (120k distinct words) and 3.5e-9 even at 10^9 distinct words.
// Verifying each candidate against the text instead cost a cache miss per hit.
//
// The word hash reads whole 8-byte chunks (the last one masked to the word's length),
// mixes each with a multiply-xorshift and finishes with one more (murmur3's fmix64 in
// its place cost a third of the build); words of up to 8 bytes (84% of CPython's) cost
// one chunk and map one-to-one onto 64-bit hashes for a given length. The slice bits
// are a product's top bits, which depend on every input bit: on CPython's standard
// library the 1024 slices fill as evenly as with fmix64 (median 1,677 vs 1,683
// occurrences). The tokenizer classifies 64 bytes at a time into a word-byte mask and a
// newline mask (SSE2 on x86-64, a table elsewhere), so word boundaries and line numbers
// come from bit operations instead of a branch per byte.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gaia::grep {

// git's rule for "binary" (grep -I): a NUL byte in the first 8000 bytes.
constexpr std::size_t kBinarySniffBytes = 8000;

bool is_word_byte(unsigned char c) noexcept;
bool looks_binary(std::string_view data) noexcept;
// True when `word` is non-empty and made only of word bytes (a valid whole-word query).
bool is_word(std::string_view word) noexcept;
// The hash a word is indexed under (exposed so tests can pin the scanner against it).
uint64_t hash_word(std::string_view word) noexcept;

// What became of each file: only kText files contribute words.
enum class FileKind : uint8_t { kText = 0, kBinary = 1, kUnreadable = 2 };

struct Hit {
  uint32_t file;   // index of the file, in the order files were added
  uint32_t line;   // 1-based line number
  uint32_t count;  // occurrences of the word on that line
};

// A growable array of plain values that is never zero-filled and whose large blocks
// ask the kernel for huge pages: building writes 8 bytes per word once, and 4 KiB
// page faults on those fresh pages cost as much as the tokenizer itself.
template <class T>
class PodArray {
 public:
  PodArray() = default;
  PodArray(const PodArray&) = delete;
  PodArray& operator=(const PodArray&) = delete;
  PodArray(PodArray&& o) noexcept { swap(o); }
  PodArray& operator=(PodArray&& o) noexcept {
    PodArray(std::move(o)).swap(*this);
    return *this;
  }
  ~PodArray() { release(); }

  void reserve(std::size_t n);  // keeps the first size_ values
  void resize_uninit(std::size_t n) {
    reserve(n);
    size_ = n;
  }
  T* data() noexcept { return data_; }

 private:
  void swap(PodArray& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(cap_, o.cap_);
    std::swap(bytes_, o.bytes_);
  }
  void release() noexcept;
  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t cap_ = 0;
  std::size_t bytes_ = 0;  // bytes mapped, 0 when allocated with new[]
};

struct SliceSink;

class WordIndex {
 public:
  // Tokenizes and records one file. A binary file is recorded as skipped (no words) so
  // file indices still line up with the caller's list; returns false for it.
  bool add_file(std::string_view data);
  // Records a file that could not be read: no words, its index kept.
  void add_unreadable();
  // Reads `path` (a regular file, read to EOF) into a reused buffer and adds it; a path
  // that cannot be opened or read, or is not a regular file, is added as unreadable.
  FileKind add_path(const std::string& path);
  // Seals the slices. Call once after the last add_file.
  void finalize();

  std::size_t num_files() const noexcept { return kind_.size(); }
  std::size_t num_occurrences() const noexcept { return n_occ_; }
  FileKind kind(std::size_t file) const {
    return static_cast<FileKind>(kind_.at(file));
  }
  bool is_binary(std::size_t file) const { return kind(file) == FileKind::kBinary; }

  // Hits of one word, ordered by file then line; empty when absent or not a word.
  std::vector<Hit> lookup(std::string_view word) const;

 private:
  friend struct SliceSink;
  void start_file(FileKind kind);

  std::vector<uint8_t> kind_;
  // Lines are numbered globally across files; file_first_line_[f] is file f's first
  // one.
  std::vector<uint32_t> file_first_line_;
  uint32_t next_line_ = 0;
  std::size_t n_occ_ = 0;
  // Occurrences in add order, split by the hash's top 8 bits into slices, each a chain
  // of blocks of 8-byte words (see the top of this file).
  static constexpr unsigned kSliceBits = 10;
  static constexpr std::size_t kSlices = std::size_t{1} << kSliceBits;
  static constexpr std::size_t kBlockWords = 512;
  static constexpr std::size_t kSlabBlocks = (std::size_t{8} << 20) / (kBlockWords * 8);
  struct Slice {
    uint64_t* cur = nullptr;  // next free word in the slice's last block
    std::size_t left = 0;     // words left in that block
    uint64_t last_line = 0;
    std::size_t count = 0;  // words in the slice
  };
  struct Block {
    uint64_t* words;
    std::size_t used;  // final once the slice has moved on to a newer block
  };
  void new_block(std::size_t slice);
  std::array<Slice, kSlices> slices_{};
  std::array<std::vector<Block>, kSlices> slice_blocks_;
  std::vector<PodArray<uint64_t>> slabs_;
  std::size_t slab_blocks_used_ = 0;
  std::size_t slab_blocks_cap_ = 0;
  bool finalized_ = false;
  std::unique_ptr<char[]> buf_;  // add_path's reused read buffer
  std::size_t buf_cap_ = 0;
};

}  // namespace gaia::grep
