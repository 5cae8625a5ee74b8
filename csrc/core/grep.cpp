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

// Spreads FNV's weak high bits, since both the slot index (low bits) and the 16-bit tag
// (high bits) come from one hash.
inline uint64_t mix(uint64_t h) noexcept {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  return h ^ (h >> 33);
}

// FNV-1a: short identifiers dominate, where it is as fast as anything fancier.
inline uint64_t hash_bytes(const char* p, std::size_t n) noexcept {
  uint64_t h = 1469598103934665603ULL;
  for (std::size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(p[i]);
    h *= 1099511628211ULL;
  }
  return mix(h);
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

namespace {

inline uint64_t load_prefix(const char* p, std::size_t n) noexcept {
  uint64_t v = 0;
  std::memcpy(&v, p, n < 8 ? n : 8);
  return v;
}

inline std::size_t slot_of(uint64_t h, std::size_t mask) noexcept {
  return static_cast<std::size_t>(h) & mask;
}

}  // namespace

void WordIndex::grow() {
  const std::size_t cap = slots_.empty() ? 4096 : slots_.size() * 2;
  std::vector<Slot> fresh(cap, Slot{0, 0, 0, 0});
  const std::size_t mask = cap - 1;
  for (std::size_t id = 0; id < word_len_.size(); ++id) {
    const char* w = arena_.data() + word_off_[id];
    const std::size_t n = word_len_[id];
    const uint64_t h = hash_bytes(w, n);
    std::size_t s = slot_of(h, mask);
    while (fresh[s].id != 0) s = (s + 1) & mask;
    fresh[s] = Slot{load_prefix(w, n), static_cast<uint32_t>(id + 1),
                    static_cast<uint16_t>(n < 65535 ? n : 65535), static_cast<uint16_t>(h >> 48)};
  }
  slots_.swap(fresh);
}

uint32_t WordIndex::find_or_add(const char* p, std::size_t n, uint64_t h) {
  if ((word_len_.size() + 1) * 2 > slots_.size()) grow();
  const std::size_t mask = slots_.size() - 1;
  const uint64_t prefix = load_prefix(p, n);
  const auto len16 = static_cast<uint16_t>(n < 65535 ? n : 65535);
  const auto h16 = static_cast<uint16_t>(h >> 48);
  std::size_t s = slot_of(h, mask);
  while (slots_[s].id != 0) {
    const Slot& slot = slots_[s];
    if (slot.prefix == prefix && slot.len == len16 && slot.hash == h16) {
      const uint32_t id = slot.id - 1;
      if (n <= 8 || (word_len_[id] == n &&
                     std::memcmp(arena_.data() + word_off_[id] + 8, p + 8, n - 8) == 0)) {
        return id;
      }
    }
    s = (s + 1) & mask;
  }
  const auto id = static_cast<uint32_t>(word_len_.size());
  word_off_.push_back(arena_.size());
  word_len_.push_back(static_cast<uint32_t>(n));
  arena_.append(p, n);
  slots_[s] = Slot{prefix, id + 1, len16, h16};
  return id;
}

int64_t WordIndex::find(std::string_view w, uint64_t h) const {
  if (slots_.empty()) return -1;
  const std::size_t mask = slots_.size() - 1;
  const uint64_t prefix = load_prefix(w.data(), w.size());
  const std::size_t n = w.size();
  std::size_t s = slot_of(h, mask);
  while (slots_[s].id != 0) {
    const Slot& slot = slots_[s];
    if (slot.prefix == prefix && slot.hash == static_cast<uint16_t>(h >> 48)) {
      const uint32_t id = slot.id - 1;
      if (word_len_[id] == n &&
          std::memcmp(arena_.data() + word_off_[id], w.data(), n) == 0) {
        return id;
      }
    }
    s = (s + 1) & mask;
  }
  return -1;
}

void WordIndex::reserve_bytes(std::size_t bytes) {
  // At most one word per two bytes; reserved pages cost nothing until they are written.
  const std::size_t most = occ_word_.size() + bytes / 2 + 1;
  occ_word_.reserve(most);
  occ_line_.reserve(most);
}

bool WordIndex::add_file(std::string_view data) {
  if (finalized_) throw std::logic_error("WordIndex: add_file after finalize");
  file_first_line_.push_back(next_line_);
  if (looks_binary(data)) {
    binary_.push_back(1);
    return false;
  }
  binary_.push_back(0);
  uint32_t line = next_line_;
  const char* p = data.data();
  const std::size_t n = data.size();
  std::size_t i = 0;
  while (i < n) {
    const auto c = static_cast<unsigned char>(p[i]);
    if (!kWord[c]) {
      line += (c == '\n');
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    uint64_t h = 1469598103934665603ULL;
    h = (h ^ c) * 1099511628211ULL;
    while (j < n && kWord[static_cast<unsigned char>(p[j])]) {
      h = (h ^ static_cast<unsigned char>(p[j])) * 1099511628211ULL;
      ++j;
    }
    occ_word_.push_back(find_or_add(p + i, j - i, mix(h)));
    occ_line_.push_back(line);
    i = j;
  }
  // Every file owns at least one line number, so line numbers stay file-local.
  next_line_ = line + 1;
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
  post_line_.resize(occ_line_.size());
  for (std::size_t k = 0; k < occ_word_.size(); ++k) {
    post_line_[cursor[occ_word_[k]]++] = occ_line_[k];
  }
  std::vector<uint32_t>().swap(occ_word_);
  std::vector<uint32_t>().swap(occ_line_);
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
  std::size_t file = 0;
  uint32_t prev = UINT32_MAX;
  for (uint64_t k = b; k < e; ++k) {
    const uint32_t g = post_line_[k];
    if (g == prev) {
      ++out.back().count;
      continue;
    }
    prev = g;
    // Lines ascend within a word's postings, so the file cursor only moves forward.
    while (file + 1 < file_first_line_.size() && file_first_line_[file + 1] <= g) ++file;
    out.push_back(Hit{static_cast<uint32_t>(file), g - file_first_line_[file] + 1, 1});
  }
  return out;
}

}  // namespace gaia::grep
