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

// FNV's high bits are weak; the bucket comes from them, so finish with a mixer.
inline uint64_t mix(uint64_t h) noexcept {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

inline uint64_t hash_word(const char* p, std::size_t n) noexcept {
  uint64_t h = kFnvBasis;
  for (std::size_t i = 0; i < n; ++i)
    h = (h ^ static_cast<unsigned char>(p[i])) * kFnvPrime;
  return mix(h);
}

inline uint32_t tag_of(uint64_t h) noexcept { return static_cast<uint32_t>(h); }

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

uint32_t count_word(std::string_view text, std::string_view word) noexcept {
  uint32_t count = 0;
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    if (!kWord[static_cast<unsigned char>(text[i])]) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < n && kWord[static_cast<unsigned char>(text[j])]) ++j;
    if (j - i == word.size() &&
        std::memcmp(text.data() + i, word.data(), word.size()) == 0) {
      ++count;
    }
    i = j;
  }
  return count;
}

void WordIndex::reserve_bytes(std::size_t bytes) {
  // At most one word per two bytes; reserved pages cost nothing until they are written.
  const std::size_t most = occ_hash_.size() + bytes / 2 + 1;
  occ_hash_.reserve(most);
  occ_line_.reserve(most);
}

bool WordIndex::add_file(std::string_view data) {
  if (finalized_) throw std::logic_error("WordIndex: add_file after finalize");
  if (data.size() > std::numeric_limits<uint32_t>::max()) {
    throw std::length_error("WordIndex: a file over 4 GiB");
  }
  files_.push_back(data);
  file_first_line_.push_back(static_cast<uint32_t>(line_start_.size()));
  line_start_.push_back(0);
  if (looks_binary(data)) {
    binary_.push_back(1);
    return false;
  }
  binary_.push_back(0);
  auto line = static_cast<uint32_t>(line_start_.size() - 1);
  const char* p = data.data();
  const std::size_t n = data.size();
  std::size_t i = 0;
  while (i < n) {
    const auto c = static_cast<unsigned char>(p[i]);
    if (!kWord[c]) {
      ++i;
      if (c == '\n') {
        line_start_.push_back(static_cast<uint32_t>(i));
        ++line;
      }
      continue;
    }
    uint64_t h = (kFnvBasis ^ c) * kFnvPrime;
    std::size_t j = i + 1;
    while (j < n && kWord[static_cast<unsigned char>(p[j])]) {
      h = (h ^ static_cast<unsigned char>(p[j])) * kFnvPrime;
      ++j;
    }
    occ_hash_.push_back(mix(h));
    occ_line_.push_back(line);
    i = j;
  }
  if (line_start_.size() >= std::numeric_limits<uint32_t>::max()) {
    throw std::length_error("WordIndex: more than 4 billion lines");
  }
  return true;
}

void WordIndex::finalize() {
  if (finalized_) return;
  // About four occurrences per bucket: buckets stay short, the offsets array stays
  // small.
  bucket_bits_ = 8;
  while (bucket_bits_ < 24 &&
         (std::size_t{1} << (bucket_bits_ + 2)) < occ_hash_.size()) {
    ++bucket_bits_;
  }
  const unsigned shift = 64 - bucket_bits_;
  const std::size_t buckets = std::size_t{1} << bucket_bits_;
  offsets_.assign(buckets + 1, 0);
  for (uint64_t h : occ_hash_) ++offsets_[(h >> shift) + 1];
  for (std::size_t b = 0; b < buckets; ++b) offsets_[b + 1] += offsets_[b];
  // A stable counting sort keeps each bucket's occurrences in (file, line) order.
  std::vector<uint32_t> cursor(offsets_.begin(), offsets_.end() - 1);
  post_.resize(occ_line_.size());
  for (std::size_t k = 0; k < occ_hash_.size(); ++k) {
    const uint64_t h = occ_hash_[k];
    post_[cursor[h >> shift]++] = Posting{occ_line_[k], tag_of(h)};
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
  const uint32_t tag = tag_of(h);
  const std::size_t bucket = h >> (64 - bucket_bits_);
  std::size_t file = 0;
  uint32_t prev = std::numeric_limits<uint32_t>::max();
  for (uint32_t k = offsets_[bucket]; k < offsets_[bucket + 1]; ++k) {
    const uint32_t g = post_[k].line;
    if (post_[k].tag != tag || g == prev) continue;
    prev = g;
    // Candidate lines ascend, so the file cursor only moves forward.
    while (file + 1 < file_first_line_.size() && file_first_line_[file + 1] <= g)
      ++file;
    const std::string_view data = files_[file];
    const uint32_t start = line_start_[g];
    const bool last =
        g + 1 >= line_start_.size() ||
        (file + 1 < file_first_line_.size() && file_first_line_[file + 1] == g + 1);
    const std::size_t end = last ? data.size() : line_start_[g + 1];
    // Verify against the text: a hash collision can never become a hit.
    const uint32_t count = count_word(data.substr(start, end - start), word);
    if (count > 0) {
      out.push_back(
          Hit{static_cast<uint32_t>(file), g - file_first_line_[file] + 1, count});
    }
  }
  return out;
}

}  // namespace gaia::grep
