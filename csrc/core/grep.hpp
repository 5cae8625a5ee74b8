// gaia_eval native core: grep (no Python headers).
//
// The lexical baseline's kernel: a whole-word inverted index over a tree, built once, so a
// query of many identifiers costs a few hash lookups instead of a scan of every file.
// "Word" follows git grep -w: a maximal run of ASCII letters, digits and '_' (bytes >= 0x80
// are not word characters). Matching is case-sensitive and fixed-string.
#pragma once

#include <cstddef>
#include <cstdint>
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

struct Hit {
  uint32_t file;   // index of the file, in the order files were added
  uint32_t line;   // 1-based line number
  uint32_t count;  // occurrences of the word on that line
};

class WordIndex {
 public:
  // Tokenizes and records one file. A binary file is recorded as skipped (no words), so
  // file indices still line up with the caller's list. Returns false for a binary file.
  bool add_file(std::string_view data);
  // Groups occurrences by word (counting sort). Call once after the last add_file.
  void finalize();

  std::size_t num_files() const noexcept { return binary_.size(); }
  std::size_t num_words() const noexcept { return word_len_.size(); }
  std::size_t num_occurrences() const noexcept { return post_file_.size(); }
  bool is_binary(std::size_t file) const { return binary_.at(file) != 0; }

  // Hits of one word, ordered by file then line; empty when absent or not a word.
  std::vector<Hit> lookup(std::string_view word) const;

 private:
  uint32_t find_or_add(const char* p, std::size_t n, uint64_t h);
  int64_t find(std::string_view w, uint64_t h) const;
  void grow();

  std::string arena_;               // the distinct words, back to back
  std::vector<uint64_t> word_off_;  // per word id: offset into arena_
  std::vector<uint32_t> word_len_;
  std::vector<uint64_t> word_hash_;
  std::vector<uint32_t> slots_;  // open addressing: word id + 1, 0 = empty
  std::vector<uint8_t> binary_;
  // Occurrences in add order; after finalize(), grouped by word through offsets_.
  std::vector<uint32_t> occ_word_;
  std::vector<uint32_t> post_file_;
  std::vector<uint32_t> post_line_;
  std::vector<uint64_t> offsets_;
  bool finalized_ = false;
};

}  // namespace gaia::grep
