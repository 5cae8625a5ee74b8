// gaia_eval native core: grep (no Python headers).
#include "grep.hpp"

#include <array>
#include <cstring>
#include <stdexcept>

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

// FNV-1a: short identifiers dominate, where it is as fast as anything fancier.
inline uint64_t hash_bytes(const char* p, std::size_t n) noexcept {
  uint64_t h = 1469598103934665603ULL;
  for (std::size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(p[i]);
    h *= 1099511628211ULL;
  }
  return h ^ (h >> 29);
}

}  // namespace

bool is_word_byte(unsigned char c) noexcept { return kWord[c]; }

bool looks_binary(std::string_view data) noexcept {
  const std::size_t n = data.size() < kBinarySniffBytes ? data.size() : kBinarySniffBytes;
  return n > 0 && std::memchr(data.data(), 0, n) != nullptr;
}

bool is_word(std::string_view word) noexcept {
  if (word.empty()) return false;
  for (char c : word) {
    if (!kWord[static_cast<unsigned char>(c)]) return false;
  }
  return true;
}

void WordIndex::grow() {
  std::size_t cap = slots_.empty() ? 1024 : slots_.size() * 2;
  slots_.assign(cap, 0);
  const std::size_t mask = cap - 1;
  for (std::size_t id = 0; id < word_hash_.size(); ++id) {
    std::size_t s = word_hash_[id] & mask;
    while (slots_[s] != 0) s = (s + 1) & mask;
    slots_[s] = static_cast<uint32_t>(id + 1);
  }
}

uint32_t WordIndex::find_or_add(const char* p, std::size_t n, uint64_t h) {
  if ((word_hash_.size() + 1) * 2 > slots_.size()) grow();
  const std::size_t mask = slots_.size() - 1;
  std::size_t s = h & mask;
  while (slots_[s] != 0) {
    const uint32_t id = slots_[s] - 1;
    if (word_hash_[id] == h && word_len_[id] == n &&
        std::memcmp(arena_.data() + word_off_[id], p, n) == 0) {
      return id;
    }
    s = (s + 1) & mask;
  }
  const auto id = static_cast<uint32_t>(word_hash_.size());
  word_off_.push_back(arena_.size());
  word_len_.push_back(static_cast<uint32_t>(n));
  word_hash_.push_back(h);
  arena_.append(p, n);
  slots_[s] = id + 1;
  return id;
}

int64_t WordIndex::find(std::string_view w, uint64_t h) const {
  if (slots_.empty()) return -1;
  const std::size_t mask = slots_.size() - 1;
  std::size_t s = h & mask;
  while (slots_[s] != 0) {
    const uint32_t id = slots_[s] - 1;
    if (word_hash_[id] == h && word_len_[id] == w.size() &&
        std::memcmp(arena_.data() + word_off_[id], w.data(), w.size()) == 0) {
      return id;
    }
    s = (s + 1) & mask;
  }
  return -1;
}

bool WordIndex::add_file(std::string_view data) {
  if (finalized_) throw std::logic_error("WordIndex: add_file after finalize");
  const auto file = static_cast<uint32_t>(binary_.size());
  if (looks_binary(data)) {
    binary_.push_back(1);
    return false;
  }
  binary_.push_back(0);
  uint32_t line = 1;
  const char* p = data.data();
  const std::size_t n = data.size();
  std::size_t i = 0;
  while (i < n) {
    const auto c = static_cast<unsigned char>(p[i]);
    if (!kWord[c]) {
      if (c == '\n') ++line;
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < n && kWord[static_cast<unsigned char>(p[j])]) ++j;
    const uint32_t id = find_or_add(p + i, j - i, hash_bytes(p + i, j - i));
    occ_word_.push_back(id);
    post_file_.push_back(file);
    post_line_.push_back(line);
    i = j;
  }
  return true;
}

void WordIndex::finalize() {
  if (finalized_) return;
  const std::size_t words = word_len_.size();
  offsets_.assign(words + 1, 0);
  for (uint32_t w : occ_word_) ++offsets_[w + 1];
  for (std::size_t w = 0; w < words; ++w) offsets_[w + 1] += offsets_[w];
  // A stable counting sort keeps each word's occurrences in (file, line) order.
  std::vector<uint64_t> cursor(offsets_.begin(), offsets_.end() - 1);
  std::vector<uint32_t> files(post_file_.size()), lines(post_line_.size());
  for (std::size_t k = 0; k < occ_word_.size(); ++k) {
    const uint64_t dst = cursor[occ_word_[k]]++;
    files[dst] = post_file_[k];
    lines[dst] = post_line_[k];
  }
  post_file_.swap(files);
  post_line_.swap(lines);
  std::vector<uint32_t>().swap(occ_word_);
  finalized_ = true;
}

std::vector<Hit> WordIndex::lookup(std::string_view word) const {
  if (!finalized_) throw std::logic_error("WordIndex: lookup before finalize");
  std::vector<Hit> out;
  if (!is_word(word)) return out;
  const int64_t id = find(word, hash_bytes(word.data(), word.size()));
  if (id < 0) return out;
  const uint64_t b = offsets_[static_cast<std::size_t>(id)];
  const uint64_t e = offsets_[static_cast<std::size_t>(id) + 1];
  for (uint64_t k = b; k < e; ++k) {
    if (!out.empty() && out.back().file == post_file_[k] && out.back().line == post_line_[k]) {
      ++out.back().count;
    } else {
      out.push_back(Hit{post_file_[k], post_line_[k], 1});
    }
  }
  return out;
}

}  // namespace gaia::grep
