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
  // Room for `bytes` more input, so the per-occurrence arrays grow without copying.
  void reserve_bytes(std::size_t bytes);
  // Tokenizes and records one file. A binary file is recorded as skipped (no words), so
  // file indices still line up with the caller's list. Returns false for a binary file.
  bool add_file(std::string_view data);
  // Groups occurrences by word (counting sort). Call once after the last add_file.
  void finalize();

  std::size_t num_files() const noexcept { return binary_.size(); }
  std::size_t num_words() const noexcept { return word_len_.size(); }
  std::size_t num_occurrences() const noexcept { return post_line_.size(); }
  bool is_binary(std::size_t file) const { return binary_.at(file) != 0; }

  // Hits of one word, ordered by file then line; empty when absent or not a word.
  std::vector<Hit> lookup(std::string_view word) const;

 private:
  // The first 8 bytes of the word live in the slot (zero-padded; words never hold NUL), so
  // most lookups settle without touching the arena: hashing is cheap, cache misses are not.
  struct Slot {
    uint64_t prefix;
    uint32_t id;    // word id + 1; 0 = empty
    uint16_t len;   // word length, saturated at 65535 (longer words compare in the arena)
    uint16_t hash;  // 16 more bits of the hash
  };
  uint32_t find_or_add(const char* p, std::size_t n, uint64_t h);
  int64_t find(std::string_view w, uint64_t h) const;
  void grow();

  std::string arena_;               // the distinct words, back to back
  std::vector<uint64_t> word_off_;  // per word id: offset into arena_
  std::vector<uint32_t> word_len_;
  std::vector<Slot> slots_;  // open addressing, power-of-two size
  std::vector<uint8_t> binary_;
  // Lines are numbered globally across files; file_first_line_[f] is file f's first one.
  std::vector<uint32_t> file_first_line_;
  uint32_t next_line_ = 0;
  // Occurrences in add order (word id, global line); after finalize(), post_line_ holds
  // the global lines grouped by word through offsets_.
  std::vector<uint32_t> occ_word_;
  std::vector<uint32_t> occ_line_;
  std::vector<uint32_t> post_line_;
  std::vector<uint64_t> offsets_;
  bool finalized_ = false;
};

}  // namespace gaia::grep
