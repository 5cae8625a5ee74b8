// The scrub kernel: known values, the one-pass scanner, redaction rounds and streaming.
#include "scrub.hpp"

#include <algorithm>
#include <cstring>

#include "scrub_rules.hpp"

namespace gaia::scrub {

namespace {

const char* const kNames[kKindCount] = {"known-secret",
                                        "private-key",
                                        "anthropic",
                                        "stripe",
                                        "sk",
                                        "fireworks",
                                        "github",
                                        "aws",
                                        "slack",
                                        "google",
                                        "huggingface",
                                        "jwt",
                                        "bearer",
                                        "url-credentials",
                                        "azure",
                                        "twilio",
                                        "sendgrid",
                                        "npm",
                                        "pypi",
                                        "netrc",
                                        "pgpass",
                                        "docker-auth",
                                        "secret-assignment",
                                        "basic-auth",
                                        "cli-password"};

constexpr uint32_t kAMask = (1u << kKnown) | (1u << kPem);

// Wu-Manber block: the 3 bytes ending at p, hashed to `bits` bits. 3-byte blocks keep
// the shifts long; with few known values 8 KiB of shifts stay in L1 (the loop is bound
// by the latency of this lookup), and the table grows with the number of values.
inline size_t block3(const uint8_t* p, unsigned bits) {
  const uint32_t x = static_cast<uint32_t>(p[-2]) |
                     (static_cast<uint32_t>(p[-1]) << 8) |
                     (static_cast<uint32_t>(p[0]) << 16);
  return (x * 0x9E3779B1u) >> (32 - bits);
}

uint64_t load8(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// The next A match (known value or PEM block) starting in [from, limit), leftmost then
// longest. Wu-Manber over the first 11 bytes of every A pattern: the 3-byte block at
// the end of the window says how far the window can jump without passing a start.
bool find_a(const Config& cfg, uint32_t mask, const uint8_t* d, size_t n, size_t from,
            size_t limit, size_t* start, size_t* len, uint8_t* kind) {
  if (!(mask & kAMask)) return false;
  if (cfg.a_prefilter()) {
    for (size_t i = from;; ++i) {
      i = detail::nibble_scan(cfg.a_nibbles(), d, i, limit, n);
      if (i >= limit) return false;
      const size_t l = cfg.a_match_at(d + i, n - i, mask, kind);
      if (l) {
        *start = i;
        *len = l;
        return true;
      }
    }
  }
  constexpr size_t m = Config::kWindow;
  const uint8_t* shift = cfg.shifts();
  const unsigned bits = cfg.shift_bits();
  const size_t iend = std::min(n, limit + m - 1);
  size_t i = from + m - 1;
  while (i < iend) {
    const uint8_t k = shift[block3(d + i, bits)];
    if (k) {
      i += k;
      continue;
    }
    const size_t s = i + 1 - m;
    const size_t l = cfg.a_match_at(d + s, n - s, mask, kind);
    if (l) {
      *start = s;
      *len = l;
      return true;
    }
    ++i;
  }
  return false;
}

class Scanner {
 public:
  Scanner(const Config& cfg, uint32_t mask, const uint8_t* d, size_t n, uint64_t base,
          bool last, ScanState& st, std::vector<Match>& out)
      : cfg_(cfg),
        mask_(mask),
        d_(d),
        n_(n),
        base_(base),
        last_(last),
        st_(st),
        out_(out) {}

  void run() {
    // A decisions need the longest A pattern ahead; B decisions need to know every A
    // start within their own reach, hence the two limits.
    const size_t look_a = std::max(kMaxPem, cfg_.max_known()) + 1;
    const size_t lim_a = last_ ? n_ : (n_ > look_a ? n_ - look_a : 0);
    const size_t lim_b = last_ ? n_ : (lim_a > kLookB + 1 ? lim_a - kLookB - 1 : 0);
    size_t pos = rel(st_.pos);
    for (;;) {
      if (!st_.a_known) {
        const size_t from = rel(std::max(st_.pos, st_.a_scanned));
        size_t s = 0, l = 0;
        uint8_t k = 0;
        if (from < lim_a && find_a(cfg_, mask_, d_, n_, from, lim_a, &s, &l, &k)) {
          st_.a_known = true;
          st_.a_start = base_ + s;
          st_.a_end = base_ + s + l;
          st_.a_kind = k;
        } else {
          st_.a_scanned = std::max(st_.a_scanned, base_ + lim_a);
        }
      }
      if (st_.a_known) {
        const size_t g = rel(st_.a_start);
        if (pos < g) pos = shapes(pos, g, g, true);
        out_.push_back({st_.a_start, st_.a_end, 0, st_.a_kind});
        st_.edge = st_.a_end;
        st_.a_scanned = st_.a_end;
        st_.a_known = false;
        if (st_.url_pending && st_.url_pw < st_.a_end) st_.url_pending = false;
        pos = rel(st_.a_end);
        st_.pos = st_.a_end;
        continue;
      }
      if (pos < lim_b) pos = shapes(pos, lim_b, n_, false);
      break;
    }
    st_.pos = base_ + pos;
  }

 private:
  size_t rel(uint64_t abs) const { return static_cast<size_t>(abs - base_); }

  // Shape matches starting in [from, to) of a gap ending at g; returns the position
  // after the last decision.
  size_t shapes(size_t from, size_t to, size_t g, bool g_is_a) {
    size_t cur = from;
    size_t i = from;
    for (;;) {
      i = detail::next_trigger(d_, i, to, n_);
      if (i >= to) break;
      flush_url(i, g, g_is_a, cur);
      if (i < cur) {
        i = cur;
        continue;
      }
      if (d_[i] == ':') {
        const size_t pw = detail::url_password_start(d_, i, n_);
        if (pw) {
          st_.url_pending = true;
          st_.url_pw = base_ + pw;
        }
        ++i;
        continue;
      }
      detail::Span sp;
      // i bytes of this pass's input are readable before i (a stream keeps at least
      // kLookBehind of them, or all since the text start).
      if (detail::match_shape(d_, i, g, base_ + i == st_.edge, i, mask_, &sp)) {
        out_.push_back({base_ + i, base_ + sp.end, sp.keep, sp.kind});
        cur = sp.end;
        st_.edge = base_ + cur;
        i = cur;
        continue;
      }
      ++i;
    }
    if (to > 0) flush_url(to - 1, g, g_is_a, cur);
    return std::max(cur, to);
  }

  // Decides a pending URL password that starts at or before `upto`.
  void flush_url(size_t upto, size_t g, bool g_is_a, size_t& cur) {
    if (!st_.url_pending) return;
    if (st_.url_pw < base_ + cur) {
      st_.url_pending = false;
      return;
    }
    const size_t pw = rel(st_.url_pw);
    if (pw > upto || pw >= g) return;
    st_.url_pending = false;
    if (!((mask_ >> kUrl) & 1u)) return;
    const size_t at = detail::url_password_end(d_, pw, g, g_is_a);
    if (!at) return;
    out_.push_back({base_ + pw, base_ + at, 0, kUrl});
    cur = at;
    st_.edge = base_ + at;
  }

  const Config& cfg_;
  uint32_t mask_;
  const uint8_t* d_;
  size_t n_;
  uint64_t base_;
  bool last_;
  ScanState& st_;
  std::vector<Match>& out_;
};

}  // namespace

const char* kind_name(int kind) {
  return kind >= 0 && kind < kKindCount ? kNames[kind] : "unknown";
}

int kind_from_name(std::string_view name) {
  for (int k = 0; k < kKindCount; ++k)
    if (name == kNames[k]) return k;
  return -1;
}

std::string token(int kind) {
  return std::string("[REDACTED:") + kind_name(kind) + "]";
}

bool known_value_ok(std::string_view v) {
  if (v.size() < kMinKnown || v.size() > kMaxKnown) return false;
  if (v[0] == '/' || v[0] == '~' || v[0] == '.') return false;
  for (char c : v)
    if (detail::is(static_cast<uint8_t>(c), detail::kSpace)) return false;
  return true;
}

void Nibbles::add(const uint8_t* prefix3, uint8_t bucket_bit) {
  for (int k = 0; k < 3; ++k) {
    lo[k][prefix3[k] & 15] |= bucket_bit;
    hi[k][prefix3[k] >> 4] |= bucket_bit;
  }
}

bool Config::add_known(std::string_view value) {
  if (built_ || !known_value_ok(value)) return false;
  values_.emplace_back(value);
  return true;
}

void Config::build() {
  std::sort(values_.begin(), values_.end());
  values_.erase(std::unique(values_.begin(), values_.end()), values_.end());
  max_known_ = 0;
  by_prefix_.clear();
  for (uint32_t i = 0; i < values_.size(); ++i) {
    const auto* p = reinterpret_cast<const uint8_t*>(values_[i].data());
    by_prefix_[load8(p)].push_back(i);
    max_known_ = std::max(max_known_, values_[i].size());
  }
  for (auto& kv : by_prefix_)
    std::sort(kv.second.begin(), kv.second.end(), [this](uint32_t a, uint32_t b) {
      return values_[a].size() > values_[b].size();
    });
  constexpr size_t m = kWindow;
  shift_bits_ = 13;
  while (shift_bits_ < 20 && (size_t{1} << shift_bits_) < values_.size() * 64)
    ++shift_bits_;
  shift_.assign(size_t{1} << shift_bits_, static_cast<uint8_t>(m - 2));
  auto add = [this](const uint8_t* p) {
    // The block ending at pattern byte j allows a jump of m - 1 - j.
    for (size_t j = 2; j < m; ++j) {
      const size_t blk = block3(p + j, shift_bits_);
      shift_[blk] = std::min<uint8_t>(shift_[blk], static_cast<uint8_t>(m - 1 - j));
    }
  };
  add(reinterpret_cast<const uint8_t*>("-----BEGIN "));
  for (const auto& v : values_) add(reinterpret_cast<const uint8_t*>(v.data()));
  // Few values: one bucket for PEM's "---", the values spread over the other seven.
  a_prefilter_ = values_.size() <= 32;
  a_nib_ = Nibbles{};
  a_nib_.add(reinterpret_cast<const uint8_t*>("---"), 1);
  for (size_t i = 0; i < values_.size(); ++i)
    a_nib_.add(reinterpret_cast<const uint8_t*>(values_[i].data()),
               static_cast<uint8_t>(2u << (i % 7)));
  built_ = true;
}

size_t Config::a_match_at(const uint8_t* d, size_t n, uint32_t mask,
                          uint8_t* kind) const {
  size_t best = 0;
  if ((mask >> kPem) & 1u) {
    const size_t l = detail::pem_length(d, n);
    if (l) {
      best = l;
      *kind = kPem;
    }
  }
  if (((mask >> kKnown) & 1u) && n >= 8 && !values_.empty()) {
    const auto it = by_prefix_.find(load8(d));
    if (it != by_prefix_.end()) {
      for (uint32_t idx : it->second) {
        const std::string& v = values_[idx];
        if (v.size() <= n && std::memcmp(d, v.data(), v.size()) == 0) {
          if (v.size() >= best) {
            best = v.size();
            *kind = kKnown;
          }
          break;
        }
      }
    }
  }
  return best;
}

void scan(const Config& cfg, uint32_t mask, const uint8_t* d, size_t n, uint64_t base,
          bool last, ScanState& st, std::vector<Match>& out) {
  Scanner(cfg, mask, d, n, base, last, st, out).run();
}

std::vector<Match> find_all(const Config& cfg, const uint8_t* data, size_t n,
                            uint32_t mask) {
  std::vector<Match> out;
  ScanState st;
  scan(cfg, mask, data, n, 0, true, st, out);
  return out;
}

std::string apply(const uint8_t* data, size_t n, const std::vector<Match>& matches,
                  std::vector<Rep>* reps) {
  std::string out;
  out.reserve(n + matches.size() * 24);
  uint64_t at = 0;
  for (const Match& m : matches) {
    const uint64_t red = m.start + m.keep;
    out.append(reinterpret_cast<const char*>(data + at), static_cast<size_t>(red - at));
    const uint64_t out_start = out.size();
    out += token(m.kind);
    if (reps) reps->push_back({red, m.end, out_start, out.size()});
    at = m.end;
  }
  out.append(reinterpret_cast<const char*>(data + at), static_cast<size_t>(n - at));
  return out;
}

size_t applied_size(size_t n, const std::vector<Match>& matches) {
  size_t size = n;
  for (const Match& m : matches)
    size = size - static_cast<size_t>(m.end - m.start - m.keep) +
           std::strlen(kind_name(m.kind)) + 11;  // "[REDACTED:" + name + "]"
  return size;
}

void apply_into(const uint8_t* data, size_t n, const std::vector<Match>& matches,
                char* out) {
  uint64_t at = 0;
  for (const Match& m : matches) {
    const uint64_t red = m.start + m.keep;
    std::memcpy(out, data + at, static_cast<size_t>(red - at));
    out += red - at;
    const std::string tok = token(m.kind);
    std::memcpy(out, tok.data(), tok.size());
    out += tok.size();
    at = m.end;
  }
  std::memcpy(out, data + at, static_cast<size_t>(n - at));
}

std::string leak_message(uint32_t kinds) {
  std::string names;
  for (int k = 0; k < kKindCount; ++k) {
    if (!((kinds >> k) & 1u)) continue;
    if (!names.empty()) names += ", ";
    names += kNames[k];
  }
  return "secret-shaped text survived scrubbing (kinds: " + names +
         "); refusing to write it";
}

namespace {

uint64_t map_back(const std::vector<Rep>& reps, uint64_t x, bool is_end) {
  // The last record starting before x (at or before, for a start position).
  auto it =
      std::upper_bound(reps.begin(), reps.end(), x, [is_end](uint64_t v, const Rep& r) {
        return is_end ? v <= r.out_start : v < r.out_start;
      });
  if (it == reps.begin()) return x;
  const Rep& r = *(it - 1);
  if (x < r.out_end) return is_end ? r.in_end : r.in_start;
  return x - r.out_end + r.in_end;
}

uint32_t kinds_of(const std::vector<Match>& ms) {
  uint32_t k = 0;
  for (const Match& m : ms) k |= 1u << m.kind;
  return k;
}

}  // namespace

Result scrub(const Config& cfg, const uint8_t* data, size_t n) {
  Result r;
  const uint32_t red = cfg.redact_mask();
  std::vector<std::vector<Rep>> maps;
  std::string cur;
  const uint8_t* p = data;
  size_t len = n;
  bool verified = false;
  for (int round = 1; round <= kRounds; ++round) {
    const std::vector<Match> ms = find_all(cfg, p, len, red);
    if (ms.empty()) {
      verified = red == kAllKinds;  // this scan was the re-check
      break;
    }
    for (const Match& m : ms) {
      uint64_t s = m.start + m.keep, e = m.end;
      for (auto it = maps.rbegin(); it != maps.rend(); ++it) {
        s = map_back(*it, s, false);
        e = map_back(*it, e, true);
      }
      r.findings.push_back({m.kind, s, e - s});
    }
    std::vector<Rep> reps;
    std::string next = apply(p, len, ms, &reps);
    maps.push_back(std::move(reps));
    cur.swap(next);
    p = reinterpret_cast<const uint8_t*>(cur.data());
    len = cur.size();
  }
  if (!verified) {
    const std::vector<Match> left = find_all(cfg, p, len, kAllKinds);
    if (!left.empty()) throw LeakError(leak_message(kinds_of(left)), kinds_of(left));
  }
  std::sort(r.findings.begin(), r.findings.end(),
            [](const Finding& a, const Finding& b) { return a.offset < b.offset; });
  if (maps.empty())
    r.unchanged = true;
  else
    r.out = std::move(cur);
  return r;
}

// ---- streaming ----

Pass::Pass(std::shared_ptr<const Config> cfg, uint32_t mask)
    : cfg_(std::move(cfg)), mask_(mask) {}

void Pass::feed(const uint8_t* data, size_t n, bool last, std::string& out,
                std::vector<Match>& matches) {
  if (n) buf_.append(reinterpret_cast<const char*>(data), n);
  const size_t first = matches.size();
  uint64_t at = st_.pos;
  // The buffer keeps kLookBehind bytes before pos_ so the left boundary can be read.
  scan(*cfg_, mask_, reinterpret_cast<const uint8_t*>(buf_.data()), buf_.size(), base_,
       last, st_, matches);
  const char* d = buf_.data();
  for (size_t k = first; k < matches.size(); ++k) {
    const Match& m = matches[k];
    const uint64_t red = m.start + m.keep;
    out.append(d + (at - base_), static_cast<size_t>(red - at));
    out_pos_ += red - at;
    const std::string tok = token(m.kind);
    out += tok;
    reps_.push_back({red, m.end, out_pos_, out_pos_ + tok.size()});
    out_pos_ += tok.size();
    at = m.end;
  }
  out.append(d + (at - base_), static_cast<size_t>(st_.pos - at));
  out_pos_ += st_.pos - at;
  const uint64_t keep_from = st_.pos - std::min<uint64_t>(st_.pos, kLookBehind);
  buf_.erase(0, static_cast<size_t>(keep_from - base_));
  base_ = keep_from;
}

uint64_t Pass::to_input(uint64_t x, bool is_end) const {
  auto it = std::upper_bound(reps_.begin(), reps_.end(), x,
                             [is_end](uint64_t v, const Rep& r) {
                               return is_end ? v <= r.out_start : v < r.out_start;
                             });
  if (it == reps_.begin())
    return static_cast<uint64_t>(static_cast<int64_t>(x) + pruned_delta_);
  const Rep& r = *(it - 1);
  if (x < r.out_end) return is_end ? r.in_end : r.in_start;
  return x - r.out_end + r.in_end;
}

void Pass::prune(uint64_t bound) {
  while (!reps_.empty() && reps_.front().out_end <= bound) {
    pruned_delta_ = static_cast<int64_t>(reps_.front().in_end) -
                    static_cast<int64_t>(reps_.front().out_end);
    reps_.pop_front();
  }
}

Stream::Stream(std::shared_ptr<const Config> cfg) : cfg_(std::move(cfg)) {
  for (int r = 0; r < kRounds; ++r)
    passes_.push_back(std::make_unique<Pass>(cfg_, cfg_->redact_mask()));
  passes_.push_back(std::make_unique<Pass>(cfg_, kAllKinds));  // the re-check
}

std::string Stream::run(const uint8_t* data, size_t n, bool last) {
  if (failed_) throw std::runtime_error("scrub stream failed earlier; start a new one");
  if (finished_) throw std::runtime_error("scrub stream already finished");
  total_in_ += n;
  std::string in;
  if (n) in.assign(reinterpret_cast<const char*>(data), n);
  const size_t rounds = passes_.size() - 1;
  for (size_t r = 0; r <= rounds; ++r) {
    std::string out;
    std::vector<Match> ms;
    passes_[r]->feed(reinterpret_cast<const uint8_t*>(in.data()), in.size(), last, out,
                     ms);
    if (r == rounds) {
      if (!ms.empty()) {
        failed_ = true;
        throw LeakError(leak_message(kinds_of(ms)), kinds_of(ms));
      }
    } else {
      for (const Match& m : ms) {
        uint64_t s = m.start + m.keep, e = m.end;
        for (size_t q = r; q-- > 0;) {
          s = passes_[q]->to_input(s, false);
          e = passes_[q]->to_input(e, true);
        }
        findings_.push_back({m.kind, s, e - s});
      }
    }
    in.swap(out);
  }
  // A later pass only asks about positions it has not decided yet.
  for (size_t r = 0; r + 1 < passes_.size(); ++r)
    passes_[r]->prune(passes_[r + 1]->decided());
  if (last) finished_ = true;
  return in;
}

std::string Stream::feed(const uint8_t* data, size_t n) { return run(data, n, false); }

std::string Stream::finish() { return run(nullptr, 0, true); }

std::vector<Finding> Stream::take_findings() {
  std::vector<Finding> out;
  out.swap(findings_);
  std::sort(out.begin(), out.end(),
            [](const Finding& a, const Finding& b) { return a.offset < b.offset; });
  return out;
}

}  // namespace gaia::scrub
