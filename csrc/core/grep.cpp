// gaia_eval native core: grep (no Python headers).
#include "grep.hpp"

#include <array>
#include <cstring>
#include <limits>
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

constexpr uint64_t kFnvBasis = 1469598103934665603ULL;
constexpr uint64_t kFnvPrime = 1099511628211ULL;

// FNV's high bits are weak and the bucket comes from them, so finish with a mixer.
inline uint64_t mix(uint64_t h) noexcept {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

inline uint64_t hash_word(const char* p, std::size_t n) noexcept {
  uint64_t h = kFnvBasis;
  for (std::size_t i = 0; i < n; ++i) {
    h = (h ^ static_cast<unsigned char>(p[i])) * kFnvPrime;
  }
  return mix(h);
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

void WordIndex::reserve_bytes(std::size_t bytes) {
  // At most one word per two bytes; reserved pages cost nothing until they are written.
  const std::size_t most = occ_hash_.size() + bytes / 2 + 1;
  occ_hash_.reserve(most);
  occ_line_.reserve(most);
}

bool WordIndex::add_file(std::string_view data) {
  if (finalized_) throw std::logic_error("WordIndex: add_file after finalize");
  file_first_line_.push_back(next_line_);
  if (looks_binary(data)) {
    binary_.push_back(1);
    ++next_line_;  // every file owns at least one line number
    return false;
  }
  binary_.push_back(0);
  uint64_t line = next_line_;
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
    // Hash while scanning, so each byte is read once.
    uint64_t h = (kFnvBasis ^ c) * kFnvPrime;
    std::size_t j = i + 1;
    while (j < n && kWord[static_cast<unsigned char>(p[j])]) {
      h = (h ^ static_cast<unsigned char>(p[j])) * kFnvPrime;
      ++j;
    }
    occ_hash_.push_back(mix(h));
    occ_line_.push_back(static_cast<uint32_t>(line));
    i = j;
  }
  if (line + 1 >= std::numeric_limits<uint32_t>::max()) {
    throw std::length_error("WordIndex: more than 4 billion lines");
  }
  next_line_ = static_cast<uint32_t>(line + 1);
  return true;
}

void WordIndex::finalize() {
  if (finalized_) return;
  // About 64 occurrences per bucket: the bucket cursors stay in cache while scattering,
  // and a lookup's scan of one bucket stays short.
  bucket_bits_ = 8;
  while (bucket_bits_ < 24 &&
         (std::size_t{1} << (bucket_bits_ + 6)) < occ_hash_.size()) {
    ++bucket_bits_;
  }
  if (occ_hash_.size() >= std::numeric_limits<uint32_t>::max()) {
    throw std::length_error("WordIndex: more than 4 billion words");
  }
  const unsigned shift = 64 - bucket_bits_;
  const std::size_t buckets = std::size_t{1} << bucket_bits_;
  offsets_.assign(buckets + 1, 0);
  for (uint64_t h : occ_hash_) ++offsets_[(h >> shift) + 1];
  for (std::size_t b = 0; b < buckets; ++b) offsets_[b + 1] += offsets_[b];
  // A stable counting sort keeps each bucket's occurrences in (file, line) order.
  std::vector<uint32_t> cursor(offsets_.begin(), offsets_.end() - 1);
  post_hash_.resize(occ_hash_.size());
  post_line_.resize(occ_line_.size());
  for (std::size_t k = 0; k < occ_hash_.size(); ++k) {
    const uint64_t h = occ_hash_[k];
    const uint32_t dst = cursor[h >> shift]++;
    post_hash_[dst] = h;
    post_line_[dst] = occ_line_[k];
  }
  std::vector<uint64_t>().swap(occ_hash_);
  std::vector<uint32_t>().swap(occ_line_);
  finalized_ = true;
}

std::vector<Hit> WordIndex::lookup(std::string_view word) const {
  if (!finalized_) throw std::logic_error("WordIndex: lookup before finalize");
  std::vector<Hit> out;
  if (!is_word(word)) return out;
  const uint64_t h = hash_word(word.data(), word.size());
  const std::size_t bucket = h >> (64 - bucket_bits_);
  std::size_t file = 0;
  for (uint32_t k = offsets_[bucket]; k < offsets_[bucket + 1]; ++k) {
    if (post_hash_[k] != h) continue;
    const uint32_t g = post_line_[k];
    // Postings ascend by global line, so the file cursor only moves forward.
    while (file + 1 < file_first_line_.size() && file_first_line_[file + 1] <= g)
      ++file;
    const uint32_t line = g - file_first_line_[file] + 1;
    if (!out.empty() && out.back().file == file && out.back().line == line) {
      ++out.back().count;
    } else {
      out.push_back(Hit{static_cast<uint32_t>(file), line, 1});
    }
  }
  return out;
}

}  // namespace gaia::grep
