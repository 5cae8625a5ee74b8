// gaia_eval native core: secret scrubbing (no Python headers).
//
// Two kinds of secret are found in one left-to-right pass over raw bytes:
//  - "A" matches: known values (exact byte strings) and PEM private-key blocks. They
//  are
//    chosen first over the whole text, leftmost then longest, so a known value is
//    always redacted whole even when a shape rule would have started inside it.
//  - "B" matches: the secret shapes (sk-, ghp_, AKIA, JWT, Bearer, URL passwords...),
//  in
//    the gaps between A matches, leftmost first, rules tried in a fixed order.
// docs/scrubbing.md is the rule table; tests/native/test_scrub.py holds an independent
// regex oracle of the same rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gaia::scrub {

enum Kind : uint8_t {
  kKnown = 0,
  kPem,
  kAnthropic,
  kStripe,
  kSk,
  kFireworks,
  kGithub,
  kAws,
  kSlack,
  kGoogle,
  kHuggingface,
  kJwt,
  kBearer,
  kUrl,
  kAzure,
  kTwilio,
  kSendgrid,
  kNpm,
  kPypi,
  kNetrc,
  kPgpass,
  kDockerAuth,
  kAssignment,
  kBasicAuth,
  kCliPassword,
  kKindCount
};

constexpr uint32_t kAllKinds = (1u << kKindCount) - 1;

// The name used in "[REDACTED:<name>]" and in findings.
const char* kind_name(int kind);
// -1 when unknown.
int kind_from_name(std::string_view name);

// Bounds that keep streaming memory bounded (documented in docs/scrubbing.md).
constexpr size_t kMinKnown = 12;
constexpr size_t kMaxKnown = 16384;
constexpr size_t kMaxPem = 16384;
constexpr size_t kMaxJwt = 8192;
constexpr size_t kMaxBearerToken = 4096;
// Longest lookahead any shape rule needs past its first byte (JWT is the longest).
constexpr size_t kLookB = kMaxJwt + 16;
// Bytes a rule may read before its start (an escape such as `\u003d` before a prefix,
// the `-` before a `--password` flag); a stream keeps them behind its position.
constexpr size_t kLookBehind = 8;

// Redaction rounds: round 2 catches the rare shape that only becomes whole once a
// neighbour was redacted; anything found after the last round is a leak.
constexpr int kRounds = 2;

// A known value counts when it is 12..16384 bytes, does not start with '/', '~' or '.',
// and has no ASCII whitespace.
bool known_value_ok(std::string_view value);

struct Finding {
  uint8_t kind;
  uint64_t offset;  // byte offset of the redacted part in the input
  uint64_t length;  // its length in bytes
};

// One redaction: input [start, end) becomes input[start, start+keep) + token.
struct Match {
  uint64_t start;
  uint64_t end;
  uint32_t keep;
  uint8_t kind;
};

// A secret survived redaction. what() names the kinds, never the values.
class LeakError : public std::runtime_error {
 public:
  LeakError(const std::string& msg, uint32_t kinds)
      : std::runtime_error(msg), kinds_(kinds) {}
  uint32_t kinds() const { return kinds_; }

 private:
  uint32_t kinds_;
};

// Byte classes of a 3-byte prefilter split by nibble ("shufti"): the bucket bits of
// byte c at offset k are lo[k][c & 15] & hi[k][c >> 4]; a position is a candidate when
// its three bytes share a bucket bit.
struct Nibbles {
  alignas(16) uint8_t lo[3][16];
  alignas(16) uint8_t hi[3][16];
  void add(const uint8_t* prefix3, uint8_t bucket_bit);
};

// Immutable configuration: the known values and which kinds are redacted.
class Config {
 public:
  // Returns false (and ignores the value) when known_value_ok() refuses it.
  bool add_known(std::string_view value);
  // Kinds not in `mask` are left in place by redaction (the re-check still sees them).
  void set_redact_mask(uint32_t mask) { redact_mask_ = mask & kAllKinds; }
  uint32_t redact_mask() const { return redact_mask_; }
  size_t known_count() const { return values_.size(); }
  size_t max_known() const { return max_known_; }
  // Must be called after the last add_known and before scanning.
  void build();

  // Length of the longest A match starting at d[0] (n bytes available), or 0.
  size_t a_match_at(const uint8_t* d, size_t n, uint32_t mask, uint8_t* kind) const;
  // Wu-Manber window length and shift table over all A prefixes.
  static constexpr size_t kWindow = 11;
  const uint8_t* shifts() const { return shift_.data(); }
  unsigned shift_bits() const { return shift_bits_; }
  // With few known values, A candidates come from a SIMD prefilter on their first three
  // bytes (and "---"); with many, from the Wu-Manber shifts.
  bool a_prefilter() const { return a_prefilter_; }
  const Nibbles& a_nibbles() const { return a_nib_; }

 private:
  std::vector<std::string> values_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> by_prefix_;  // longest first
  std::vector<uint8_t> shift_;
  unsigned shift_bits_ = 13;
  bool a_prefilter_ = true;
  Nibbles a_nib_{};
  size_t max_known_ = 0;
  uint32_t redact_mask_ = kAllKinds;
  bool built_ = false;
};

// Where a pass stands in its input (absolute byte positions), carried between feeds.
struct ScanState {
  uint64_t pos = 0;      // next undecided input position
  uint64_t edge = 0;     // a position preceded by a token or the text start
  bool a_known = false;  // a_start/a_end/a_kind hold the next A match
  uint64_t a_start = 0, a_end = 0;
  uint8_t a_kind = 0;
  uint64_t a_scanned = 0;    // no A match starts in [pos, a_scanned)
  bool url_pending = false;  // a URL's scheme and user were seen; password at url_pw
  uint64_t url_pw = 0;
};

// Runs the scanner over d[0, n) (absolute position `base` at d[0]), deciding what it
// can: everything when `last`, otherwise up to a bounded lookahead from the end.
// Appends matches in order and advances st.pos. d[-1] must be readable when base > 0.
void scan(const Config& cfg, uint32_t mask, const uint8_t* d, size_t n, uint64_t base,
          bool last, ScanState& st, std::vector<Match>& out);

// Output-to-input position map of one pass (tokens map to the span they replaced).
struct Rep {
  uint64_t in_start, in_end, out_start, out_end;
};

// One streaming redaction pass over a byte stream.
class Pass {
 public:
  Pass(std::shared_ptr<const Config> cfg, uint32_t mask);
  // Feeds bytes; appends the decided output to `out` and the matches (input
  // coordinates) to `matches`. With `last`, everything is decided.
  void feed(const uint8_t* data, size_t n, bool last, std::string& out,
            std::vector<Match>& matches);
  // Input position before which everything is decided and emitted.
  uint64_t decided() const { return st_.pos; }
  // Maps an output position of this pass back to its input (tokens map to their span).
  uint64_t to_input(uint64_t out_pos, bool is_end) const;
  // Forgets replacement records wholly before output position `bound`.
  void prune(uint64_t bound);

 private:
  std::shared_ptr<const Config> cfg_;
  uint32_t mask_;
  std::string buf_;  // carried input, starting at absolute position base_
  uint64_t base_ = 0;
  uint64_t out_pos_ = 0;  // bytes emitted so far
  ScanState st_;
  std::deque<Rep> reps_;
  int64_t pruned_delta_ = 0;  // in - out offset after every pruned record
};

struct Result {
  std::string out;  // empty with `unchanged` when nothing was redacted
  bool unchanged = false;
  std::vector<Finding> findings;
};

// Scrubs a whole buffer: up to kRounds redaction rounds, then a re-check with every
// kind. Throws LeakError when a secret survives.
Result scrub(const Config& cfg, const uint8_t* data, size_t n);
// Every match of every kind in `data` (one pass, no redaction): the re-check.
std::vector<Match> find_all(const Config& cfg, const uint8_t* data, size_t n,
                            uint32_t mask);
// The redacted text; appends one Rep per match when `reps` is given.
std::string apply(const uint8_t* data, size_t n, const std::vector<Match>& matches,
                  std::vector<Rep>* reps = nullptr);
// "[REDACTED:<kind>]"
std::string token(int kind);
// The size of apply()'s result, and apply() into a caller's buffer of that size (so a
// binding can write straight into the object it returns).
size_t applied_size(size_t n, const std::vector<Match>& matches);
void apply_into(const uint8_t* data, size_t n, const std::vector<Match>& matches,
                char* out);
std::string leak_message(uint32_t kinds);

// Streaming scrubber: kRounds chained passes and a re-check pass. The output of feed()
// has always been re-checked; memory stays bounded by the carry of each pass.
class Stream {
 public:
  explicit Stream(std::shared_ptr<const Config> cfg);
  std::string feed(const uint8_t* data, size_t n);
  std::string finish();
  // Findings since the last call (input coordinates), then cleared.
  std::vector<Finding> take_findings();
  uint64_t total_in() const { return total_in_; }

 private:
  std::string run(const uint8_t* data, size_t n, bool last);
  std::shared_ptr<const Config> cfg_;
  std::vector<std::unique_ptr<Pass>> passes_;  // kRounds redaction passes + re-check
  std::vector<Finding> findings_;
  uint64_t total_in_ = 0;
  bool failed_ = false;
  bool finished_ = false;
};

}  // namespace gaia::scrub
