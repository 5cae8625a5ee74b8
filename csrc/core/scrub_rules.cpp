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

template <class T>
void set_range(T* cls, int lo, int hi, uint32_t bits) {
  for (int c = lo; c <= hi; ++c) cls[c] |= static_cast<T>(bits);
}
template <class T>
void set_chars(T* cls, const char* chars, uint32_t bits) {
  for (const char* c = chars; *c; ++c)
    cls[static_cast<uint8_t>(*c)] |= static_cast<T>(bits);
}

// Trigger families for the prefilter, one bit each; cross-products of the three tables
// only cost a verification, never a miss.
constexpr uint32_t kTrigSk = 1u << 0;       // sk- sk_ rk_
constexpr uint32_t kTrigFw = 1u << 1;       // fw_
constexpr uint32_t kTrigGh = 1u << 2;       // gh[pousr]
constexpr uint32_t kTrigGit = 1u << 3;      // git(hub_pat_)
constexpr uint32_t kTrigA = 1u << 4;        // AKI ASI AIz
constexpr uint32_t kTrigXox = 1u << 5;      // xox
constexpr uint32_t kTrigBearer = 1u << 6;   // [Bb][Ee][Aa]
constexpr uint32_t kTrigJwt = 1u << 7;      // eyJ
constexpr uint32_t kTrigHf = 1u << 8;       // hf_
constexpr uint32_t kTrigUrl = 1u << 9;      // ://
constexpr uint32_t kTrigAws = 1u << 10;     // aws (any case)
constexpr uint32_t kTrigAcc = 1u << 11;     // Acc(ountKey)
constexpr uint32_t kTrigSha = 1u << 12;     // Sha(redAccessKey)
constexpr uint32_t kTrigSecret = 1u << 13;  // sec (any case)
constexpr uint32_t kTrigMac = 1u << 14;     // mac(hine)
constexpr uint32_t kTrigS = 1u << 15;       // SK<hex> SG.
constexpr uint32_t kTrigPass = 1u << 16;    // pas (any case)
constexpr uint32_t kTrigPwd = 1u << 17;     // pwd (any case)
constexpr uint32_t kTrigToken = 1u << 18;   // tok (any case)
constexpr uint32_t kTrigNpm = 1u << 19;     // npm
constexpr uint32_t kTrigPypi = 1u << 20;    // pyp(i)
constexpr uint32_t kTrigApi = 1u << 21;     // pi_ pik (any case), after an `a`
constexpr uint32_t kTrigAuth = 1u << 22;    // aut(h)
constexpr uint32_t kTrigSig = 1u << 23;     // sig=
constexpr uint32_t kTrigPg = 1u << 24;      // .pgpass: host end, ':', port digit
constexpr uint32_t kTrigPgAny = 1u << 25;   // .pgpass: host end, ':', '*'
constexpr uint32_t kTrigPgAll = 1u << 26;   // .pgpass: '*', ':', port
constexpr uint32_t kTrigSic = 1u << 27;     // (ba)sic (any case)
constexpr uint32_t kTrigVat = 1u << 28;     // (pri)vat(e_key) (any case)
constexpr uint32_t kTrigMysql = 1u << 29;   // mys(ql)

// A family: exact byte sets at offsets 0..2 (`bit` of t0..t2) and, for the SIMD scan,
// one of 24 nibble-table bits (`slot`: bank slot / 8, bit slot % 8). Families sharing a
// slot only add candidates, never lose one, and the SIMD scan drops the extras with
// the exact tables; slots are shared only where the mixed sets stay rare in text.
void trig(Tables& t, const char* a, const char* b, const char* c, uint32_t bit,
          int slot) {
  set_chars(t.t0, a, bit);
  set_chars(t.t1, b, bit);
  set_chars(t.t2, c, bit);
  Nibbles& nib = t.nib[slot / 8];
  const uint8_t fold = static_cast<uint8_t>(1u << (slot % 8));
  const char* sets[3] = {a, b, c};
  for (int k = 0; k < 3; ++k) {
    for (const char* q = sets[k]; *q; ++q) {
      const uint8_t ch = static_cast<uint8_t>(*q);
      nib.lo[k][ch & 15] |= fold;
      nib.hi[k][ch >> 4] |= fold;
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
// The block loop over `kBanks` nibble banks (a position is a candidate when any bank
// has a bit set for its three bytes); with `exact`, each nibble hit is confirmed on
// the exact tables before it is returned.
template <int kBanks>
__attribute__((target("avx2"))) size_t nibble_blocks_avx2(const Nibbles* t,
                                                          const uint8_t* d, size_t i,
                                                          size_t end, size_t n,
                                                          bool* hit,
                                                          const Tables* exact) {
  __m256i lo[kBanks][3], hi[kBanks][3];
  for (int b = 0; b < kBanks; ++b) {
    const Nibbles& tb = t[b];
    for (int k = 0; k < 3; ++k) {
      lo[b][k] = _mm256_broadcastsi128_si256(
          _mm_load_si128(reinterpret_cast<const __m128i*>(tb.lo[k])));
      hi[b][k] = _mm256_broadcastsi128_si256(
          _mm_load_si128(reinterpret_cast<const __m128i*>(tb.hi[k])));
    }
  }
  const __m256i nib = _mm256_set1_epi8(0x0f);
  const __m256i zero = _mm256_setzero_si256();
  *hit = false;
  while (i + 32 <= end && i + 34 <= n) {
    __m256i mb[kBanks];
    for (int b = 0; b < kBanks; ++b) mb[b] = _mm256_set1_epi8(-1);
    for (int k = 0; k < 3; ++k) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(d + i + k));
      const __m256i l = _mm256_and_si256(v, nib);
      const __m256i h = _mm256_and_si256(_mm256_srli_epi16(v, 4), nib);
      for (int b = 0; b < kBanks; ++b)
        mb[b] =
            _mm256_and_si256(mb[b], _mm256_and_si256(_mm256_shuffle_epi8(lo[b][k], l),
                                                     _mm256_shuffle_epi8(hi[b][k], h)));
    }
    __m256i m = mb[0];
    for (int b = 1; b < kBanks; ++b) m = _mm256_or_si256(m, mb[b]);
    uint32_t hits =
        ~static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(m, zero)));
    // Folded families and nibble halves admit extra positions; with `exact`, drop
    // them here (i + 34 <= n, so the three bytes are readable) rather than returning.
    while (hits) {
      const size_t j = i + static_cast<size_t>(__builtin_ctz(hits));
      if (!exact || (exact->t0[d[j]] & exact->t1[d[j + 1]] & exact->t2[d[j + 2]])) {
        *hit = true;
        return j;
      }
      hits &= hits - 1;
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
size_t run(const uint8_t* d, size_t i, size_t g, uint32_t cls, size_t cap) {
  const size_t lim = std::min(g, i + cap + 1);
  const uint32_t* table = tables().cls;
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
size_t body(const uint8_t* d, size_t b, size_t g, uint32_t cls, size_t lo, size_t hi,
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

// ---- rules added for issue 12: more prefixes, and secrets known by their key name
// ----

// An exact run of `len` bytes of `cls` at d[b] whose next byte is not in `stop`; the
// end or 0.
size_t exact(const uint8_t* d, size_t b, size_t g, uint32_t cls, size_t len,
             uint32_t stop) {
  const size_t e = run(d, b, g, cls, len);
  if (e - b != len || (e < g && is(d[e], stop))) return 0;
  return e;
}

// Case-insensitive literal (`s` in lowercase).
bool ilit(const uint8_t* d, size_t p, size_t g, const char* s) {
  const size_t len = std::strlen(s);
  if (p + len > g) return false;
  for (size_t i = 0; i < len; ++i)
    if (lower(d[p + i]) != static_cast<uint8_t>(s[i])) return false;
  return true;
}

// `[_-]?` + a case-insensitive word: the parts of `aws_secret_access_key`. End or 0.
size_t part(const uint8_t* d, size_t p, size_t g, const char* word) {
  size_t q = p;
  if (q < g && (d[q] == '_' || d[q] == '-')) ++q;
  return ilit(d, q, g, word) ? q + std::strlen(word) : 0;
}

// A quote: `"` or `'`, after up to 7 backslashes (JSON inside a JSON string, escaped
// once per level), or an HTML entity for one (`&quot;` `&#34;` `&#39;` `&apos;`). The
// closing quote must be the same bytes.
struct Quote {
  uint8_t ch = 0;               // '"' or '\'' (0 for none, or for an HTML entity)
  size_t len = 0;               // bytes of the quote (0 for none)
  const uint8_t* at = nullptr;  // where the opening quote's bytes are
};

constexpr size_t kMaxBackslashes = 7;

size_t quote_at(const uint8_t* d, size_t q, size_t g, Quote* quote) {
  *quote = {};
  size_t b = q;
  while (b < g && b - q < kMaxBackslashes && d[b] == '\\') ++b;
  if (b < g && (d[b] == '"' || d[b] == '\'')) {
    *quote = {d[b], b + 1 - q, d + q};
    return b + 1;
  }
  static const char* const kEntities[] = {"&quot;", "&#34;", "&#39;", "&apos;"};
  for (const char* ent : kEntities) {
    const size_t len = std::strlen(ent);
    if (lit(d, q, g, ent, len)) {
      *quote = {0, len, d + q};
      return q + len;
    }
  }
  return q;
}

// Whether the quote's bytes are at d[e] (before g).
bool closes(const uint8_t* d, size_t e, size_t g, const Quote& quote) {
  return e + quote.len <= g && std::memcmp(d + e, quote.at, quote.len) == 0;
}

size_t blanks4(const uint8_t* d, size_t q, size_t g) {
  for (int b = 0; b < 4 && q < g && is(d[q], kBlank); ++b) ++q;
  return q;
}

// From the end of a key name to its value: an optional closing quote, at most 4 blanks,
// one operator (`:=` `=>` `=` `:` `>`), at most 4 blanks, an optional opening quote.
// The value start, or 0 when there is no assignment; `quote` is the value's opening
// quote.
size_t assignment(const uint8_t* d, size_t p, size_t g, Quote* quote) {
  size_t q = blanks4(d, quote_at(d, p, g, quote), g);
  if (q >= g) return 0;
  if (d[q] == ':' || d[q] == '=') {
    const uint8_t second = d[q] == ':' ? '=' : '>';
    ++q;
    if (q < g && d[q] == second) ++q;
  } else if (d[q] == '>') {
    ++q;
  } else {
    return 0;
  }
  return quote_at(d, blanks4(d, q, g), g, quote);
}

// Passwords that are references or documentation, as in URLs: `$VAR`, one repeated
// byte (`****`), or a well-known word; and text holding `[REDACTED:`.
// Text holding a redaction token was redacted by an earlier round (or is the token).
bool has_token(const uint8_t* d, size_t b, size_t e) {
  static const char kToken[] = "[REDACTED:";
  return std::search(d + b, d + e, kToken, kToken + 10) != d + e;
}

bool real_password(const uint8_t* d, size_t b, size_t e) {
  if (e <= b || d[b] == '$' || has_token(d, b, e)) return false;
  bool same = true;
  for (size_t k = b + 1; k < e; ++k) same = same && d[k] == d[b];
  if (same) return false;
  static const char* const kWords[] = {"password", "passwd", "pass",
                                       "pwd",      "secret", "changeme"};
  for (const char* word : kWords)
    if (std::strlen(word) == e - b && ilit(d, b, e, word)) return false;
  return true;
}

// aws: `(aws[_-]?)secret[_-]?(access[_-]?)key` (the `access` part is required without
// the `aws` prefix) + assignment + exactly 40 bytes of [A-Za-z0-9+/], rich.
bool match_aws_key_name(const uint8_t* d, size_t p, size_t g, Span* out) {
  size_t q = p;
  const bool prefixed = ilit(d, q, g, "aws");
  if (prefixed) q += 3;
  q = part(d, q, g, "secret");
  if (!q) return false;
  const size_t a = part(d, q, g, "access");
  if (!a && !prefixed) return false;
  q = part(d, a ? a : q, g, "key");
  Quote quote;
  const size_t v = q ? assignment(d, q, g, &quote) : 0;
  if (!v) return false;
  const size_t e = exact(d, v, g, kB64, 40, kB64Pad);
  if (!e || !rich(d, v, e)) return false;
  return done(out, e, kAws, static_cast<uint32_t>(v - p));
}

// After an AKIA/ASIA id ending at `e`: 1..6 bytes of [ \t:,;|="'] and a 40-byte secret
// of [A-Za-z0-9+/], rich. The end of the pair, or `e` alone.
size_t aws_pair(const uint8_t* d, size_t e, size_t g) {
  size_t q = e;
  while (q < g && q - e < 7 && std::memchr(" \t:,;|=\"'", d[q], 9) && d[q]) ++q;
  if (q == e || q - e > 6) return e;
  const size_t s = exact(d, q, g, kB64, 40, kB64Pad);
  return s && rich(d, q, s) ? s : e;
}

// The value of `password=`, `secret: "..."`, `API_KEY=...`. Quoted: every byte up to
// the closing quote (same quote, escaped alike) but `\\`, CR, LF and control bytes.
// Unquoted: a run of kAssign bytes, not followed by `(` (a call) and not an attribute
// chain (`self.password`, `settings.DB_PASSWORD`). Either way 8..256 bytes with two of
// lowercase / uppercase / digit and at least 8 distinct bytes, not a placeholder, not
// starting with `$` `%` `{` `<` (a reference). The end or 0.
// An HTML entity that an unquoted value may hold (`Tr0ub4dor&amp;3` in XML or HTML):
// its length at d[e], or 0. Entities for quotes end the value instead.
size_t value_entity(const uint8_t* d, size_t e, size_t g) {
  static const char* const kEntities[] = {"&amp;", "&lt;", "&gt;"};
  for (const char* ent : kEntities) {
    const size_t len = std::strlen(ent);
    if (lit(d, e, g, ent, len)) return len;
  }
  return 0;
}

size_t assigned_secret(const uint8_t* d, size_t v, size_t g, Quote quote) {
  size_t e = v;
  if (quote.len) {
    const size_t lim = std::min(g, v + 257);
    while (e < lim && d[e] != '\\' && !(quote.ch && d[e] == quote.ch) &&
           !(d[e] == '&' && closes(d, e, g, quote)) && is(d[e], kVisible | kBlank))
      ++e;
    if (!closes(d, e, g, quote)) return 0;
  } else {
    const size_t lim = std::min(g, v + 257);
    while (e < lim) {
      if (is(d[e], kAssign)) {
        ++e;
      } else if (d[e] == '&' && value_entity(d, e, g)) {
        e += value_entity(d, e, g);
      } else {
        break;
      }
    }
    if (e < g && d[e] == '(') return 0;
  }
  const size_t len = e - v;
  if (len < 8 || len > 256 || std::memchr("$%{<", d[v], 4) || has_token(d, v, e))
    return 0;
  bool seen[256] = {};
  int distinct = 0, lo = 0, up = 0, dg = 0;
  bool dotted = false;
  for (size_t k = v; k < e; ++k) {
    const uint8_t c = d[k];
    lo |= c >= 'a' && c <= 'z';
    up |= c >= 'A' && c <= 'Z';
    dg |= c >= '0' && c <= '9';
    if (!seen[c]) ++distinct;
    seen[c] = true;
    if (c == '.' && k + 1 < e && (is(d[k + 1], kAlnum) || d[k + 1] == '_') &&
        !(d[k + 1] >= '0' && d[k + 1] <= '9'))
      dotted = true;
  }
  if (lo + up + dg < 2 || distinct < 8 || placeholder(d, v, e)) return 0;
  const bool ident_start =
      (d[v] >= 'a' && d[v] <= 'z') || (d[v] >= 'A' && d[v] <= 'Z') || d[v] == '_';
  if (!quote.len && ident_start && dotted) return 0;
  return e;
}

bool match_prefixed(const uint8_t* d, size_t p, size_t g, uint32_t mask, Span* out);

// secret-assignment: a key name ending in password / passwd / pwd / secret / token /
// apikey / api_key, optionally + `[_-]?key`, any case, then an assignment. A value that
// is itself a prefixed shape (`token=sk-...`) is left to that shape's rule, whose kind
// says more. `api` is everywhere in text (`/api/v1`), so an API key is matched from its
// `p`, with the `a` before it (`after_a`).
// A command-line flag's value: `--password VALUE`, `--db-token "VALUE"` (the key name
// right after a `-`): 1..4 blanks, an optional opening quote. The value start or 0.
size_t flag_value(const uint8_t* d, size_t name, size_t q, size_t g,
                  size_t back_of_name, Quote* quote) {
  if (back_of_name < 1 || d[name - 1] != '-') return 0;
  const size_t b = blanks4(d, q, g);
  if (b == q) return 0;
  return quote_at(d, b, g, quote);
}

bool match_assignment(const uint8_t* d, size_t p, size_t g, size_t back, Span* out) {
  static const char* const kKeys[] = {"password", "passwd", "pwd",    "secret",
                                      "token",    "pikey",  "pi_key", "pi-key"};
  const bool after_a = back > 0 && lower(d[p - 1]) == 'a';
  for (const char* key : kKeys) {
    const bool api = key[0] == 'p' && key[1] == 'i';
    if (!ilit(d, p, g, key) || (api && !after_a)) continue;
    size_t q = p + std::strlen(key);
    const size_t k = part(d, q, g, "key");
    if (k) q = k;
    Quote quote;
    size_t v = assignment(d, q, g, &quote);
    if (!v) {
      const size_t name = api ? p - 1 : p;
      v = flag_value(d, name, q, g, back - (p - name), &quote);
    }
    const size_t e = v ? assigned_secret(d, v, g, quote) : 0;
    Span shape;
    if (!e || match_prefixed(d, v, g, kAllKinds, &shape)) return false;
    return done(out, e, kAssignment, static_cast<uint32_t>(v - p));
  }
  return false;
}

bool base64_of_credentials(const uint8_t* d, size_t b, size_t e);

// `PRIVATE_KEY=...` with a bare value (a PEM block is `private-key` already): matched
// at the `v` of `private` (the prefilter's family), `pri` read behind it, then `ate`,
// `[_-]?key` and the value of secret-assignment.
bool match_private_key(const uint8_t* d, size_t p, size_t g, size_t back, Span* out) {
  if (back < 3 || !ilit(d, p - 3, g, "private")) return false;
  size_t q = part(d, p + 4, g, "key");
  if (!q) return false;
  Quote quote;
  size_t v = assignment(d, q, g, &quote);
  if (!v) v = flag_value(d, p - 3, q, g, back - 3, &quote);
  const size_t e = v ? assigned_secret(d, v, g, quote) : 0;
  Span shape;
  if (!e || match_prefixed(d, v, g, kAllKinds, &shape)) return false;
  return done(out, e, kAssignment, static_cast<uint32_t>(v - p));
}

// basic-auth: `basic` (any case, with a left boundary before its `b`), matched at its
// `s`; 1..16 blanks; a run of [A-Za-z0-9+/=] (at most 4096) that is padded base64 of
// `user:password` (an `Authorization: Basic` header).
bool match_basic(const uint8_t* d, size_t p, size_t g, size_t back, Span* out) {
  if (back < 2 || !ilit(d, p - 2, g, "basic")) return false;
  if (back > 2 && is(d[p - 3], kTok)) return false;
  const size_t t0 = run(d, p + 3, g, kBlank, 16);
  if (t0 == p + 3 || t0 - (p + 3) > 16) return false;
  const size_t e = run(d, t0, g, kB64Pad, 4096);
  if (e - t0 > 4096 || (e < g && is(d[e], kTok)) || !base64_of_credentials(d, t0, e))
    return false;
  return done(out, e, kBasicAuth, static_cast<uint32_t>(t0 - p));
}

// cli-password: the MySQL clients' `-pPASSWORD` (`mysql`, `mysqldump`, `mysqladmin`...:
// `mysql` + up to 8 lowercase letters, then a blank), among the next 16 arguments of
// the line (each 1..16 blanks + a run of visible bytes, at most 256); the password is
// the rest of the `-p` argument, redacted unless a reference, one repeated byte, a
// well-known word or holding `[REDACTED:`. `-p` alone (a prompt) and `-P` (a port) are
// not passwords.
bool match_mysql(const uint8_t* d, size_t p, size_t g, Span* out) {
  if (!lit(d, p, g, "mysql", 5)) return false;
  size_t q = p + 5;
  while (q < g && q - (p + 5) < 9 && d[q] >= 'a' && d[q] <= 'z') ++q;
  if (q - (p + 5) > 8) return false;
  for (int arg = 0; arg < 16; ++arg) {
    const size_t a = run(d, q, g, kBlank, 16);
    if (a == q || a - q > 16) return false;
    const size_t e = run(d, a, g, kVisible, 256);
    if (e == a || e - a > 256) return false;
    if (e - a > 2 && d[a] == '-' && d[a + 1] == 'p') {
      if (!real_password(d, a + 2, e)) return false;
      return done(out, e, kCliPassword, static_cast<uint32_t>(a + 2 - p));
    }
    q = e;
  }
  return false;
}

// A key name + assignment + a run of `cls` (lo..hi, rich, not a placeholder).
bool match_keyed_value(const uint8_t* d, size_t p, size_t g, const char* name,
                       uint32_t cls, size_t lo, size_t hi, uint8_t kind, Span* out) {
  if (!lit(d, p, g, name, std::strlen(name))) return false;
  Quote quote;
  const size_t v = assignment(d, p + std::strlen(name), g, &quote);
  if (!v || (v < g && d[v] == '$')) return false;
  const size_t e = body(d, v, g, cls, lo, hi, true);
  if (!e) return false;
  return done(out, e, kind, static_cast<uint32_t>(v - p));
}

// netrc: `machine` HOST, then up to 4 (`login`|`account`|`password`) VALUE pairs with a
// `login` before the `password`; tokens are separated by 1..16 whitespace bytes and are
// runs of visible bytes (host at most 253, values at most 256). The password is
// redacted unless it is a reference or a well-known word.
bool match_netrc(const uint8_t* d, size_t p, size_t g, Span* out) {
  if (!lit(d, p, g, "machine", 7)) return false;
  auto spaces = [&](size_t q) {
    const size_t e = run(d, q, g, kSpace, 16);
    return e > q && e - q <= 16 ? e : 0;
  };
  size_t q = spaces(p + 7);
  size_t e = q ? run(d, q, g, kVisible, 253) : 0;
  if (!q || e == q || e - q > 253) return false;
  bool login = false;
  for (int pair = 0; pair < 4; ++pair) {
    q = spaces(e);
    if (!q) return false;
    const bool is_login = lit(d, q, g, "login", 5);
    const bool is_password = lit(d, q, g, "password", 8);
    if (!is_login && !is_password && !lit(d, q, g, "account", 7)) return false;
    q += is_login ? 5 : is_password ? 8 : 7;
    const size_t v = spaces(q);
    e = v ? run(d, v, g, kVisible, 256) : 0;
    if (!v || e == v || e - v > 256 || (e < g && !is(d[e], kSpace))) return false;
    if (is_password) {
      if (!login || !real_password(d, v, e)) return false;
      return done(out, e, kNetrc, static_cast<uint32_t>(v - p));
    }
    login = login || is_login;
  }
  return false;
}

// pgpass: at the last byte of a host (a lowercase letter or `*`; a host ending in a
// digit, such as an IPv4 address, or in an uppercase letter is not recognised): `:`
// PORT (`*` or 4..5 digits) `:` DB `:` USER
// `:` PASSWORD, the fields runs of visible bytes but `:` (at most 128; the password at
// most 256) and the password ending the line (a CR, LF or the end of the text). The
// password is redacted unless it is a reference or a well-known word.
bool match_pgpass(const uint8_t* d, size_t p, size_t g, Span* out) {
  if (!is(d[p], kPgEnd) || p + 1 >= g || d[p + 1] != ':') return false;
  size_t q = p + 2;
  if (q < g && d[q] == '*') {
    ++q;
  } else {
    const size_t port = q;
    while (q < g && q - port < 6 && d[q] >= '0' && d[q] <= '9') ++q;
    if (q - port < 4 || q - port > 5) return false;
  }
  for (int field = 0; field < 2; ++field) {
    if (q >= g || d[q] != ':') return false;
    const size_t e = run(d, q + 1, g, kPgField, 128);
    if (e == q + 1 || e - (q + 1) > 128) return false;
    q = e;
  }
  if (q >= g || d[q] != ':') return false;
  const size_t v = q + 1;
  const size_t e = run(d, v, g, kPgField, 256);
  if (e == v || e - v > 256 || (e < g && d[e] != '\n' && d[e] != '\r')) return false;
  // A token's own ':' can line up as a field separator: a line holding one is done.
  if (!real_password(d, v, e) || has_token(d, p, e)) return false;
  return done(out, e, kPgpass, static_cast<uint32_t>(v - p));
}

int b64_value(uint8_t c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  return c == '+' ? 62 : c == '/' ? 63 : -1;
}

// Whether d[b, e) is padded base64 of `user:password` (both non-empty, no control
// bytes): what Docker's config.json keeps under "auth".
bool base64_of_credentials(const uint8_t* d, size_t b, size_t e) {
  const size_t n = e - b;
  if (n < 4 || n % 4) return false;
  size_t pad = 0;
  while (pad < 2 && d[e - 1 - pad] == '=') ++pad;
  const size_t out_len = n / 4 * 3 - pad;
  size_t colon = 0;
  bool found = false;
  uint32_t acc = 0;
  size_t produced = 0;
  for (size_t k = b; k < e - pad; ++k) {
    const int v = b64_value(d[k]);
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    if ((k - b) % 4 == 3) {
      for (int s = 16; s >= 0; s -= 8) {
        const uint8_t c = static_cast<uint8_t>(acc >> s);
        if (c < 0x20 || c == 0x7f) return false;
        if (c == ':' && !found) {
          found = true;
          colon = produced;
        }
        ++produced;
      }
      acc = 0;
    }
  }
  const size_t tail = (n - pad) % 4;  // 2 or 3 symbols left: 1 or 2 bytes
  if (tail) {
    acc <<= 6 * (4 - tail);
    for (size_t t = 0; t + 1 < tail; ++t) {
      const uint8_t c = static_cast<uint8_t>(acc >> (16 - 8 * t));
      if (c < 0x20 || c == 0x7f) return false;
      if (c == ':' && !found) {
        found = true;
        colon = produced;
      }
      ++produced;
    }
  }
  return produced == out_len && found && colon > 0 && colon + 1 < out_len;
}

// docker-auth: `auth` + assignment + 4..4096 bytes of [A-Za-z0-9+/=] that decode to
// `user:password`.
bool match_docker_auth(const uint8_t* d, size_t p, size_t g, Span* out) {
  if (!lit(d, p, g, "auth", 4)) return false;
  Quote quote;
  const size_t v = assignment(d, p + 4, g, &quote);
  if (!v) return false;
  const size_t e = run(d, v, g, kB64Pad, 4096);
  if (e - v > 4096 || !base64_of_credentials(d, v, e)) return false;
  return done(out, e, kDockerAuth, static_cast<uint32_t>(v - p));
}

// Secrets found by their key name, which may end a longer identifier
// (`DB_PASSWORD=...`), so no left boundary; and a .pgpass line at its host's end.
bool match_key_name(const uint8_t* d, size_t p, size_t g, size_t back, uint32_t mask,
                    Span* out) {
  if (on(mask, kPgpass) && match_pgpass(d, p, g, out)) return true;
  switch (d[p]) {
    case 'a':
    case 'A':
      if (on(mask, kAws) && match_aws_key_name(d, p, g, out)) return true;
      if (on(mask, kAzure) &&
          match_keyed_value(d, p, g, "AccountKey", kB64Pad, 40, 128, kAzure, out))
        return true;
      return false;
    case 's':
    case 'S':
      if (on(mask, kAws) && match_aws_key_name(d, p, g, out)) return true;
      if (on(mask, kAzure) &&
          match_keyed_value(d, p, g, "SharedAccessKey", kB64Pad, 40, 128, kAzure, out))
        return true;
      if (on(mask, kBasicAuth) && match_basic(d, p, g, back, out)) return true;
      return on(mask, kAssignment) && match_assignment(d, p, g, back, out);
    case 'p':
    case 'P':
    case 't':
    case 'T':
      return on(mask, kAssignment) && match_assignment(d, p, g, back, out);
    case 'v':
    case 'V':
      return on(mask, kAssignment) && match_private_key(d, p, g, back, out);
    default:
      return false;
  }
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
  set_range(cls, '0', '9', kHex | kB64 | kB64Pad | kSas);
  set_range(cls, 'a', 'f', kHex);
  set_range(cls, 'A', 'F', kHex);
  set_range(cls, 'a', 'z', kB64 | kB64Pad | kSas);
  set_range(cls, 'A', 'Z', kB64 | kB64Pad | kSas);
  set_chars(cls, "+/", kB64 | kB64Pad | kSas);
  set_chars(cls, "=", kB64Pad | kSas);
  set_chars(cls, "%", kSas);
  set_range(cls, 0x21, 0x7e, kAssign | kVisible | kPgField);
  set_range(cls, 0x80, 0xff, kAssign | kVisible | kPgField);
  for (const char* c = "\"'`()[]{}<>,;&\\"; *c; ++c)
    cls[static_cast<uint8_t>(*c)] &= ~static_cast<uint32_t>(kAssign);
  cls[static_cast<uint8_t>(':')] &= ~static_cast<uint32_t>(kPgField);
  set_range(cls, 'a', 'z', kPgEnd);
  set_chars(cls, "*", kPgEnd);

  trig(*this, "sr", "k", "-_", kTrigSk, 0);
  trig(*this, "f", "w", "_", kTrigFw, 1);
  trig(*this, "g", "h", "pousr", kTrigGh, 2);
  trig(*this, "g", "i", "t", kTrigGit, 3);
  trig(*this, "A", "KSI", "Iz", kTrigA, 4);
  trig(*this, "x", "o", "x", kTrigXox, 5);
  trig(*this, "Bb", "Ee", "Aa", kTrigBearer, 6);
  trig(*this, "e", "y", "J", kTrigJwt, 7);
  trig(*this, "h", "f", "_", kTrigHf, 0);
  trig(*this, ":", "/", "/", kTrigUrl, 1);
  // The families of the rules added for issue 12 have sets whose nibble halves are
  // (nearly) exact, in bank 1, sharing slots where the mixed sets stay rarest (chosen
  // by counting SIMD candidates on the benchmark corpus and this repository's code).
  trig(*this, "S", "h", "a", kTrigSha, 8);
  trig(*this, "S", "KG", ".0123456789abcdefABCDEF", kTrigS, 8);
  trig(*this, "*", ":", "0123456789*", kTrigPgAll, 8);
  trig(*this, "abcdefghijklmnopqrstuvwxyz", ":", "0123456789", kTrigPg, 9);
  trig(*this, "pP", "wW", "dD", kTrigPwd, 10);
  trig(*this, "n", "p", "m", kTrigNpm, 10);
  trig(*this, "pP", "iI", "_kK", kTrigApi, 10);
  trig(*this, "m", "a", "c", kTrigMac, 11);
  trig(*this, "pP", "aA", "sS", kTrigPass, 11);
  trig(*this, "A", "c", "c", kTrigAcc, 12);
  trig(*this, "sS", "eE", "cC", kTrigSecret, 12);
  trig(*this, "tT", "oO", "kK", kTrigToken, 12);
  trig(*this, "aA", "wW", "sS", kTrigAws, 13);
  trig(*this, "a", "u", "t", kTrigAuth, 13);
  trig(*this, "abcdefghijklmnopqrstuvwxyz", ":", "*", kTrigPgAny, 14);
  trig(*this, "p", "y", "p", kTrigPypi, 15);
  trig(*this, "s", "i", "g", kTrigSig, 15);
  // Rules added for issue 27: `api-key` (the `pi-` of the API family), `basic`,
  // `private_key` and `mysql`, from their rarest three bytes, each in the slot where it
  // adds the fewest SIMD candidates on the benchmark corpus (a `-` in slot 10 tripled
  // them: its nibble halves alias much of ASCII).
  trig(*this, "pP", "iI", "-", kTrigApi, 5);
  trig(*this, "sS", "iI", "cC", kTrigSic, 12);
  trig(*this, "vV", "aA", "tT", kTrigVat, 13);
  trig(*this, "m", "y", "s", kTrigMysql, 7);
}

const Tables kTables;

size_t next_trigger(const uint8_t* d, size_t i, size_t end, size_t n) {
  static const bool avx2 = has_avx2();
#ifdef GAIA_SCRUB_AVX2
  if (avx2) {
    bool hit = false;
    i = nibble_blocks_avx2<Tables::kBanks>(kTables.nib, d, i, end, n, &hit, &kTables);
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
    i = nibble_blocks_avx2<1>(&t, d, i, end, n, &hit, nullptr);
    if (hit) return i;
  }
#else
  (void)avx2;
#endif
  return nibble_scan_scalar(t, d, i, end, n);
}

namespace {

bool hex(uint8_t c) { return is(c, kHex); }

// The left boundary of a prefixed shape: the text start, a byte that does not continue
// an identifier or token, a `-` or `_` separator (`notes-ghp_...txt`), or an escape
// that ends in a letter or digit: JSON's `\n` `\r` `\t` `\b` `\f` and `\u` + 4 hex
// digits, a URL's `%` + 2 hex digits (`token%3Dghp_...`).
bool left_boundary(const uint8_t* d, size_t p, size_t back) {
  if (back == 0) return true;
  const uint8_t c = d[p - 1];
  if (!is(c, kTok) || c == '-' || c == '_') return true;
  if (back >= 2 && d[p - 2] == '\\' && std::memchr("nrtbf", c, 5)) return true;
  if (back >= 3 && d[p - 3] == '%' && hex(d[p - 2]) && hex(c)) return true;
  return back >= 6 && d[p - 6] == '\\' && d[p - 5] == 'u' && hex(d[p - 4]) &&
         hex(d[p - 3]) && hex(d[p - 2]) && hex(c);
}

}  // namespace

bool match_shape(const uint8_t* d, size_t p, size_t g, bool left_edge, size_t back,
                 uint32_t mask, Span* out) {
  // A prefixed shape needs a left boundary (above). A key name may end a longer
  // identifier (`DB_PASSWORD=`).
  if ((left_edge || left_boundary(d, p, back)) && match_prefixed(d, p, g, mask, out))
    return true;
  return match_key_name(d, p, g, back, mask, out);
}

namespace {

// Shapes that start with a fixed prefix; the caller checked the left boundary.
bool match_prefixed(const uint8_t* d, size_t p, size_t g, uint32_t mask, Span* out) {
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
      if (on(mask, kAzure) && lit(d, p, g, "sig=", 4) &&
          (e = body(d, p + 4, g, kSas, 30, 256, true)))
        return done(out, e, kAzure, 4);
      return false;
    case 'S':
      if (on(mask, kTwilio) && lit(d, p, g, "SK", 2) &&
          (e = exact(d, p + 2, g, kHex, 32, kAlnum)) && rich(d, p + 2, e) &&
          !placeholder(d, p + 2, e))
        return done(out, e, kTwilio);
      if (on(mask, kSendgrid) && lit(d, p, g, "SG.", 3) &&
          (e = exact(d, p + 3, g, kTok, 22, kTok)) && e < g && d[e] == '.' &&
          (e = exact(d, e + 1, g, kTok, 43, kTok)) && !placeholder(d, p + 3, e))
        return done(out, e, kSendgrid);
      return false;
    case 'n':
      if (on(mask, kNpm) && lit(d, p, g, "npm_", 4) &&
          (e = exact(d, p + 4, g, kAlnum, 36, kAlnum)) && rich(d, p + 4, e) &&
          !placeholder(d, p + 4, e))
        return done(out, e, kNpm);
      return false;
    case 'p':
      if (on(mask, kPypi) &&
          (lit(d, p, g, "pypi-AgEIcHlwaS5vcmc", 20) ||
           lit(d, p, g, "pypi-AgENdGVzdC5weXBpLm9yZw", 27)) &&
          (e = body(d, p + 5, g, kTok, 50, 1024, true)))
        return done(out, e, kPypi);
      return false;
    case 'a':
      return on(mask, kDockerAuth) && match_docker_auth(d, p, g, out);
    case 'm':
      if (on(mask, kNetrc) && match_netrc(d, p, g, out)) return true;
      return on(mask, kCliPassword) && match_mysql(d, p, g, out);

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
          return done(out, aws_pair(d, e, g), kAws);
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

}  // namespace

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
