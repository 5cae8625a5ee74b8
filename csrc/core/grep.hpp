// gaia_eval native core: grep (no Python headers).
//
// The lexical baseline's kernel: a whole-word inverted index over a tree, built once,
// so a query of many identifiers costs a few bucket reads instead of a scan of every
// file. "Word" follows git grep -w: a maximal run of ASCII letters, digits and '_'
// (bytes >= 0x80 are not word characters). Matching is case-sensitive and fixed-string.
//
// Building never interns words (a dictionary lookup per token is what made building
// slow): each occurrence is recorded as (64-bit hash, line) and bucketed by the hash's
// high bits; a lookup reads its bucket and keeps the postings with the word's full
// hash. Two distinct words are confused only if their 64-bit hashes collide: for n
// distinct words the chance is about n^2 / 2^65 (3e-8 for a million-word tree).
// Verifying each candidate against the text instead cost a cache miss per hit, 100x
// slower on common words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace gaia::grep {

// git's rule for "binary" (grep -I): a NUL byte in the first 8000 bytes.
constexpr std::size_t kBinarySniffBytes = 8000;

bool is_word_byte(unsigned char c) noexcept;
bool looks_binary(std::string_view data) noexcept;
// True when `word` is non-empty and made only of word bytes (a valid whole-word query).
bool is_word(std::string_view word) noexcept;

struct Hit {
  uint32_t file;   // index of the file, in the order files were added
  uint32_t line;   // 1-based line number
  uint32_t count;  // occurrences of the word on that line
};

class WordIndex {
 public:
  // Room for `bytes` more input, so the per-occurrence arrays grow without copying.
  void reserve_bytes(std::size_t bytes);
  // Tokenizes and records one file. A binary file is recorded as skipped (no words) so
  // file indices still line up with the caller's list; returns false for it.
  bool add_file(std::string_view data);
  // Buckets the occurrences (counting sort). Call once after the last add_file.
  void finalize();

  std::size_t num_files() const noexcept { return binary_.size(); }
  std::size_t num_occurrences() const noexcept { return post_line_.size(); }
  bool is_binary(std::size_t file) const { return binary_.at(file) != 0; }

  // Hits of one word, ordered by file then line; empty when absent or not a word.
  std::vector<Hit> lookup(std::string_view word) const;

 private:
  std::vector<uint8_t> binary_;
  // Lines are numbered globally across files; file_first_line_[f] is file f's first
  // one.
  std::vector<uint32_t> file_first_line_;
  uint32_t next_line_ = 0;
  // Occurrences in add order; after finalize(), grouped by bucket through offsets_.
  std::vector<uint64_t> occ_hash_;
  std::vector<uint32_t> occ_line_;
  std::vector<uint64_t> post_hash_;
  std::vector<uint32_t> post_line_;
  std::vector<uint32_t> offsets_;
  unsigned bucket_bits_ = 0;
  bool finalized_ = false;
};

}  // namespace gaia::grep
