// The shape rules of the scrub kernel, hand-written: docs/scrubbing.md is their table.
#include <algorithm>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GAIA_SCRUB_AVX2 1
#endif

#include "scrub.hpp"
#include "scrub_rules.hpp"

namespace gaia::scrub::detail {

namespace {

void set_range(uint16_t* cls, char lo, char hi, uint16_t bits) {
  for (int c = lo; c <= hi; ++c) cls[c] |= bits;
}
void set_chars(uint16_t* cls, const char* chars, uint16_t bits) {
  for (const char* c = chars; *c; ++c) cls[static_cast<uint8_t>(*c)] |= bits;
}

// Trigger families for the prefilter, one bit each; cross-products of the three tables
// only cost a verification, never a miss.
constexpr uint16_t kTrigSk = 1 << 0;      // sk- sk_ rk_
constexpr uint16_t kTrigFw = 1 << 1;      // fw_
constexpr uint16_t kTrigGh = 1 << 2;      // gh[pousr]
constexpr uint16_t kTrigGit = 1 << 3;     // git(hub_pat_)
constexpr uint16_t kTrigA = 1 << 4;       // AKI ASI AIz
constexpr uint16_t kTrigXox = 1 << 5;     // xox
constexpr uint16_t kTrigBearer = 1 << 6;  // [Bb][Ee][Aa]
constexpr uint16_t kTrigJwt = 1 << 7;     // eyJ
constexpr uint16_t kTrigHf = 1 << 8;      // hf_
constexpr uint16_t kTrigUrl = 1 << 9;     // ://

void trig(Tables& t, const char* a, const char* b, const char* c, uint16_t bit) {
  set_chars(t.t0, a, bit);
  set_chars(t.t1, b, bit);
  set_chars(t.t2, c, bit);
  // Fold the 10 families onto 8 bits for the nibble tables (sharing a bit only adds
  // candidates, never loses one).
  int b8 = 0;
  while (!((bit >> b8) & 1)) ++b8;
  const uint8_t fold = static_cast<uint8_t>(1u << (b8 % 8));
  const char* sets[3] = {a, b, c};
  for (int k = 0; k < 3; ++k) {
    for (const char* q = sets[k]; *q; ++q) {
      const uint8_t ch = static_cast<uint8_t>(*q);
      t.nib.lo[k][ch & 15] |= fold;
      t.nib.hi[k][ch >> 4] |= fold;
    }
  }
}

size_t next_trigger_scalar(const uint8_t* d, size_t i, size_t end, size_t n) {
  const Tables& t = tables();
  const size_t fast_end = std::min(end, n >= 2 ? n - 2 : 0);
  for (; i < fast_end; ++i)
    if (t.t0[d[i]] & t.t1[d[i + 1]] & t.t2[d[i + 2]]) return i;
  for (; i < end; ++i)
    if (t.t0[d[i]] & (i + 1 < n ? t.t1[d[i + 1]] : 0) &
        (i + 2 < n ? t.t2[d[i + 2]] : 0))
      return i;
  return end;
}

size_t nibble_scan_scalar(const Nibbles& t, const uint8_t* d, size_t i, size_t end,
                          size_t n) {
  auto cls = [&t](int k, uint8_t c) { return t.lo[k][c & 15] & t.hi[k][c >> 4]; };
  for (; i < end; ++i)
    if (cls(0, d[i]) & (i + 1 < n ? cls(1, d[i + 1]) : 0) &
        (i + 2 < n ? cls(2, d[i + 2]) : 0))
      return i;
  return end;
}

#ifdef GAIA_SCRUB_AVX2
// 32 positions per step: six byte shuffles classify the bytes at offsets 0, 1 and 2,
// and a position survives only when all three share a bucket. Returns the first hit,
// or where whole blocks ran out (*hit false).
__attribute__((target("avx2"))) size_t nibble_blocks_avx2(const Nibbles& t,
                                                          const uint8_t* d, size_t i,
                                                          size_t end, size_t n,
                                                          bool* hit) {
  __m256i lo[3], hi[3];
  for (int k = 0; k < 3; ++k) {
    lo[k] = _mm256_broadcastsi128_si256(
        _mm_load_si128(reinterpret_cast<const __m128i*>(t.lo[k])));
    hi[k] = _mm256_broadcastsi128_si256(
        _mm_load_si128(reinterpret_cast<const __m128i*>(t.hi[k])));
  }
  const __m256i nib = _mm256_set1_epi8(0x0f);
  const __m256i zero = _mm256_setzero_si256();
  *hit = false;
  while (i + 32 <= end && i + 34 <= n) {
    __m256i m = _mm256_set1_epi8(-1);
    for (int k = 0; k < 3; ++k) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(d + i + k));
      const __m256i l = _mm256_and_si256(v, nib);
      const __m256i h = _mm256_and_si256(_mm256_srli_epi16(v, 4), nib);
      m = _mm256_and_si256(m, _mm256_and_si256(_mm256_shuffle_epi8(lo[k], l),
                                               _mm256_shuffle_epi8(hi[k], h)));
    }
    const uint32_t hits =
        ~static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(m, zero)));
    if (hits) {
      *hit = true;
      return i + static_cast<size_t>(__builtin_ctz(hits));
    }
    i += 32;
  }
  return i;
}
#endif

bool has_avx2() {
#ifdef GAIA_SCRUB_AVX2
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

bool lit(const uint8_t* d, size_t p, size_t g, const char* s, size_t len) {
  return p + len <= g && std::memcmp(d + p, s, len) == 0;
}

// End of the run of `cls` bytes at d[i], reading at most cap + 1 bytes and never at or
// past g: a result past i + cap means "too long".
size_t run(const uint8_t* d, size_t i, size_t g, uint16_t cls, size_t cap) {
  const size_t lim = std::min(g, i + cap + 1);
  const uint16_t* table = tables().cls;
  size_t j = i;
  while (j < lim && (table[d[j]] & cls)) ++j;
  return j;
}

bool rich(const uint8_t* d, size_t b, size_t e) {
  for (size_t k = b; k < e; ++k)
    if (is(d[k], kRich)) return true;
  return false;
}

uint8_t lower(uint8_t c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<uint8_t>(c + 32) : c;
}

// Documentation placeholders: "example" in any case, or six x's or zeros in a row.
bool placeholder(const uint8_t* d, size_t b, size_t e) {
  static const char kEx[] = "example";
  size_t xs = 0, zeros = 0;
  for (size_t k = b; k < e; ++k) {
    const uint8_t c = lower(d[k]);
    xs = c == 'x' ? xs + 1 : 0;
    zeros = c == '0' ? zeros + 1 : 0;
    if (xs >= 6 || zeros >= 6) return true;
    if (c == 'e' && k + 7 <= e) {
      size_t i = 1;
      while (i < 7 && lower(d[k + i]) == static_cast<uint8_t>(kEx[i])) ++i;
      if (i == 7) return true;
    }
  }
  return false;
}

// A body of `cls` bytes at d[b], lo..hi long; optionally "rich" and not a placeholder.
size_t body(const uint8_t* d, size_t b, size_t g, uint16_t cls, size_t lo, size_t hi,
            bool need_rich) {
  const size_t e = run(d, b, g, cls, hi);
  const size_t len = e - b;
  if (len < lo || len > hi) return 0;
  if (need_rich && !rich(d, b, e)) return 0;
  if (placeholder(d, b, e)) return 0;
  return e;
}

bool done(Span* out, size_t end, uint8_t kind, uint32_t keep = 0) {
  out->end = end;
  out->kind = kind;
  out->keep = keep;
  return true;
}

bool on(uint32_t mask, Kind k) { return (mask >> k) & 1u; }

bool match_jwt(const uint8_t* d, size_t p, size_t g, Span* out) {
  if (!lit(d, p, g, "eyJ", 3)) return false;
  const size_t e1 = run(d, p, g, kTok, kMaxJwt);
  if (e1 - p < 10 || e1 - p > kMaxJwt || e1 >= g || d[e1] != '.') return false;
  const size_t s2 = e1 + 1;
  if (!lit(d, s2, g, "eyJ", 3)) return false;
  const size_t e2 = run(d, s2, g, kTok, kMaxJwt);
  if (e2 - s2 < 10 || e2 - p > kMaxJwt || e2 >= g || d[e2] != '.') return false;
  const size_t e3 = run(d, e2 + 1, g, kTok, kMaxJwt);
  if (e3 - p > kMaxJwt) return false;
  return done(out, e3, kJwt);
}

bool match_bearer(const uint8_t* d, size_t p, size_t g, Span* out) {
  static const char kWord6[] = "bearer";
  if (p + 6 > g) return false;
  for (size_t i = 0; i < 6; ++i)
    if (lower(d[p + i]) != static_cast<uint8_t>(kWord6[i])) return false;
  const size_t t0 = run(d, p + 6, g, kBlank, 16);
  if (t0 == p + 6 || t0 - (p + 6) > 16) return false;
  const size_t e = body(d, t0, g, kBearerCh, 16, kMaxBearerToken, true);
  if (!e) return false;
  return done(out, e, kBearer, static_cast<uint32_t>(t0 - p));
}

}  // namespace

Tables::Tables() {
  std::memset(this, 0, sizeof(*this));
  set_range(cls, 'A', 'Z',
            kAlnum | kUpDigit | kRich | kTok | kSlackCh | kBearerCh | kUser | kWord |
                kScheme | kPemBody | kLabel | kHost);
  set_range(cls, 'a', 'z',
            kAlnum | kTok | kSlackCh | kBearerCh | kUser | kWord | kScheme | kPemBody |
                kHost);
  set_range(cls, '0', '9',
            kAlnum | kUpDigit | kRich | kTok | kSlackCh | kBearerCh | kUser | kWord |
                kScheme | kPemBody | kLabel | kHost);
  set_chars(cls, "_-", kTok);
  set_chars(cls, "-", kSlackCh);
  set_chars(cls, "._~+/=-", kBearerCh);
  set_chars(cls, "-._~%!$&'()*+,;=", kUser);
  set_chars(cls, "_", kWord);
  set_chars(cls, "+.-", kScheme);
  set_chars(cls, "+/=\\:,. \t\r\n-", kPemBody);
  set_chars(cls, " ", kLabel);
  set_chars(cls, "[", kHost);
  set_chars(cls, " \t", kBlank);
  set_chars(cls, " \t\n\r\v\f", kSpace);

  trig(*this, "sr", "k", "-_", kTrigSk);
  trig(*this, "f", "w", "_", kTrigFw);
  trig(*this, "g", "h", "pousr", kTrigGh);
  trig(*this, "g", "i", "t", kTrigGit);
  trig(*this, "A", "KSI", "Iz", kTrigA);
  trig(*this, "x", "o", "x", kTrigXox);
  trig(*this, "Bb", "Ee", "Aa", kTrigBearer);
  trig(*this, "e", "y", "J", kTrigJwt);
  trig(*this, "h", "f", "_", kTrigHf);
  trig(*this, ":", "/", "/", kTrigUrl);
}

const Tables kTables;

size_t next_trigger(const uint8_t* d, size_t i, size_t end, size_t n) {
  static const bool avx2 = has_avx2();
#ifdef GAIA_SCRUB_AVX2
  if (avx2) {
    bool hit = false;
    i = nibble_blocks_avx2(kTables.nib, d, i, end, n, &hit);
    if (hit) return i;
  }
#else
  (void)avx2;
#endif
  return next_trigger_scalar(d, i, end, n);
}

size_t nibble_scan(const Nibbles& t, const uint8_t* d, size_t i, size_t end, size_t n) {
  static const bool avx2 = has_avx2();
#ifdef GAIA_SCRUB_AVX2
  if (avx2) {
    bool hit = false;
    i = nibble_blocks_avx2(t, d, i, end, n, &hit);
    if (hit) return i;
  }
#else
  (void)avx2;
#endif
  return nibble_scan_scalar(t, d, i, end, n);
}

bool match_shape(const uint8_t* d, size_t p, size_t g, bool left_edge, uint32_t mask,
                 Span* out) {
  // Every shape starts with a letter, so one left boundary serves them all: the byte
  // before must not continue an identifier or token.
  if (!left_edge && is(d[p - 1], kTok)) return false;
  size_t e = 0;
  switch (d[p]) {
    case 's':
      if (on(mask, kAnthropic) && lit(d, p, g, "sk-ant-", 7) &&
          (e = body(d, p + 7, g, kTok, 20, 256, true)))
        return done(out, e, kAnthropic);
      if (on(mask, kStripe) && lit(d, p, g, "sk_live_", 8) &&
          (e = body(d, p + 8, g, kAlnum, 16, 256, true)))
        return done(out, e, kStripe);
      if (on(mask, kSk) && lit(d, p, g, "sk-", 3) &&
          (e = body(d, p + 3, g, kTok, 16, 256, true)))
        return done(out, e, kSk);
      return false;
    case 'r':
      if (on(mask, kStripe) && lit(d, p, g, "rk_live_", 8) &&
          (e = body(d, p + 8, g, kAlnum, 16, 256, true)))
        return done(out, e, kStripe);
      return false;
    case 'f':
      if (on(mask, kFireworks) && lit(d, p, g, "fw_", 3) &&
          (e = body(d, p + 3, g, kAlnum, 16, 256, true)))
        return done(out, e, kFireworks);
      return false;
    case 'g':
      if (!on(mask, kGithub)) return false;
      if (p + 4 <= g && d[p + 1] == 'h' && d[p + 3] == '_' &&
          std::memchr("pousr", d[p + 2], 5) && d[p + 2] &&
          (e = body(d, p + 4, g, kAlnum, 20, 255, true)))
        return done(out, e, kGithub);
      if (lit(d, p, g, "github_pat_", 11) &&
          (e = body(d, p + 11, g, kWord, 20, 255, true)))
        return done(out, e, kGithub);
      return false;
    case 'A':
      if (on(mask, kAws) && (lit(d, p, g, "AKIA", 4) || lit(d, p, g, "ASIA", 4))) {
        e = run(d, p + 4, g, kUpDigit, 16);
        if (e - (p + 4) == 16 && (e == g || !is(d[e], kAlnum)) &&
            !placeholder(d, p + 4, e))
          return done(out, e, kAws);
      }
      if (on(mask, kGoogle) && lit(d, p, g, "AIza", 4)) {
        e = run(d, p + 4, g, kTok, 35);
        if (e - (p + 4) == 35 && !placeholder(d, p + 4, e))
          return done(out, e, kGoogle);
      }
      return false;
    case 'x':
      if (on(mask, kSlack) && p + 5 <= g && lit(d, p, g, "xox", 3) &&
          std::memchr("abprs", d[p + 3], 5) && d[p + 3] && d[p + 4] == '-' &&
          (e = body(d, p + 5, g, kSlackCh, 10, 255, true)))
        return done(out, e, kSlack);
      return false;
    case 'e':
      return on(mask, kJwt) && match_jwt(d, p, g, out);
    case 'h':
      if (on(mask, kHuggingface) && lit(d, p, g, "hf_", 3) &&
          (e = body(d, p + 3, g, kAlnum, 30, 64, true)))
        return done(out, e, kHuggingface);
      return false;
    case 'B':
    case 'b':
      return on(mask, kBearer) && match_bearer(d, p, g, out);
    default:
      return false;
  }
}

size_t url_password_start(const uint8_t* d, size_t t, size_t n) {
  if (t == 0 || t + 3 > n || std::memcmp(d + t, "://", 3) != 0) return 0;
  if (!is(d[t - 1], kScheme)) return 0;
  const size_t u0 = t + 3;
  const size_t u = run(d, u0, n, kUser, 128);
  if (u - u0 > 128 || u >= n || d[u] != ':') return 0;
  return u + 1;
}

size_t url_password_end(const uint8_t* d, size_t pw, size_t g, bool host_edge) {
  size_t w = pw;
  const size_t lim = std::min(g, pw + 257);
  while (w < lim && (is(d[w], kUser) || d[w] == ':')) ++w;
  const size_t len = w - pw;
  if (len < 1 || len > 256 || w >= g || d[w] != '@') return 0;
  const size_t h = w + 1;
  if (h < g ? !is(d[h], kHost) : !host_edge) return 0;
  // Placeholders and references: $VAR, a run of one character, or a well-known word.
  if (d[pw] == '$') return 0;
  bool same = true;
  for (size_t k = pw + 1; k < w; ++k) same = same && d[k] == d[pw];
  if (same) return 0;
  static const char* const kWords[] = {"password", "passwd", "pass",
                                       "pwd",      "secret", "changeme"};
  for (const char* word : kWords) {
    const size_t wl = std::strlen(word);
    if (wl != len) continue;
    size_t i = 0;
    while (i < wl && lower(d[pw + i]) == static_cast<uint8_t>(word[i])) ++i;
    if (i == wl) return 0;
  }
  return w;
}

size_t pem_length(const uint8_t* d, size_t n) {
  static const char kBegin[] = "-----BEGIN ";
  if (n < 11 || std::memcmp(d, kBegin, 11) != 0) return 0;
  size_t l = 11;
  while (l < n && l - 11 < 64 && is(d[l], kLabel)) ++l;
  if (l + 5 > n || std::memcmp(d + l, "-----", 5) != 0) return 0;
  static const char kPriv[] = "PRIVATE KEY";
  const uint8_t* label_end = d + l;
  if (std::search(d + 11, label_end, kPriv, kPriv + 11) == label_end) return 0;
  const size_t hdr = l + 5;
  const size_t lim = std::min(n, kMaxPem);
  // The block ends at the first well-formed footer within the cap...
  size_t f = hdr;
  while (f + 9 <= lim) {
    const void* hit = std::memchr(d + f, '-', lim - f);
    if (!hit) break;
    f = static_cast<size_t>(static_cast<const uint8_t*>(hit) - d);
    if (f + 9 <= lim && std::memcmp(d + f, "-----END ", 9) == 0) {
      size_t fl = f + 9;
      while (fl < lim && fl - (f + 9) < 64 && is(d[fl], kLabel)) ++fl;
      if (fl + 5 <= lim && std::memcmp(d + fl, "-----", 5) == 0) return fl + 5;
    }
    ++f;
  }
  // ...or, cut short (a truncated transcript), at the end of the base64-like body.
  size_t b = hdr;
  while (b < lim && is(d[b], kPemBody)) ++b;
  return b;
}

}  // namespace gaia::scrub::detail
