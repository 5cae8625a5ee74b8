// Internal to the scrub kernel: byte classes, the trigger prefilter and the shape
// rules.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gaia::scrub::detail {

enum Cls : uint32_t {
  kAlnum = 1 << 0,    // [A-Za-z0-9]
  kUpDigit = 1 << 1,  // [A-Z0-9]
  kRich = 1 << 2,  // [A-Z0-9]: a digit or an uppercase letter (the "not a word" test)
  kTok = 1 << 3,   // [A-Za-z0-9_-]  (also the left-boundary set of every shape)
  kSlackCh = 1 << 4,   // [A-Za-z0-9-]
  kBearerCh = 1 << 5,  // [A-Za-z0-9._~+/=-]
  kUser = 1 << 6,      // RFC 3986 userinfo without ':' : unreserved, %, sub-delims
  kWord = 1 << 7,      // [A-Za-z0-9_]
  kScheme = 1 << 8,    // [A-Za-z0-9+.-]
  kPemBody = 1 << 9,   // [A-Za-z0-9+/=\\:,. \t\r\n-]
  kLabel = 1 << 10,    // [A-Z0-9 ]
  kHost = 1 << 11,     // [A-Za-z0-9[]
  kBlank = 1 << 12,    // [ \t]
  kSpace = 1 << 13,    // ASCII whitespace
  kHex = 1 << 14,      // [0-9a-fA-F]
  kB64 = 1 << 15,      // [A-Za-z0-9+/]
  kB64Pad = 1 << 16,   // [A-Za-z0-9+/=]
  kAssign = 1 << 17,   // a key's value: visible ASCII but "'`()[]{}<>,;&\, or >= 0x80
  kSas = 1 << 18,      // [A-Za-z0-9%+/=]  (a URL-encoded base64 signature)
  kVisible = 1 << 19,  // any byte but ASCII whitespace, control bytes and DEL
  kPgField = 1 << 20,  // kVisible without ':' (a .pgpass field)
  kPgEnd = 1 << 21,    // [a-z*] (the last byte of a .pgpass host)
};

struct Tables {
  uint32_t cls[256];
  // Trigger prefilter: a shape can start at i only if t0[d[i]] & t1[d[i+1]] &
  // t2[d[i+2]].
  uint32_t t0[256], t1[256], t2[256];
  // The same families on 8 bits per bank and split by nibble (the "shufti" layout),
  // for the SIMD prefilter: family bits of byte c at offset k = lo[k][c & 15] &
  // hi[k][c >> 4], in any bank.
  static constexpr int kBanks = 2;
  Nibbles nib[kBanks];
  Tables();
};

// Built once when the library loads (no guard check on the per-byte paths).
extern const Tables kTables;
inline const Tables& tables() { return kTables; }

inline bool is(uint8_t c, uint32_t cls) { return (kTables.cls[c] & cls) != 0; }

// The first position in [i, end) where a shape may start (a superset of the real
// starts; the rules verify). Reads d[p + 2] only while p + 2 < n. Uses AVX2 when the
// CPU has it.
size_t next_trigger(const uint8_t* d, size_t i, size_t end, size_t n);
// The first position in [i, end) whose three bytes share a bucket of `t` (AVX2 when
// available), or end.
size_t nibble_scan(const Nibbles& t, const uint8_t* d, size_t i, size_t end, size_t n);

struct Span {
  size_t end;     // exclusive, relative to the buffer
  uint32_t keep;  // bytes kept before the token (Bearer + blanks)
  uint8_t kind;
};

// Tries every enabled shape rule starting at d[p], in priority order. The candidate may
// not read at or past `g` (the gap end: an A match or the end of the text); `left_edge`
// says the byte before p is a token or the text start (the left boundary holds);
// `back` is how many bytes before p are readable (0 at the text start; rules read at
// most kLookBehind of them).
bool match_shape(const uint8_t* d, size_t p, size_t g, bool left_edge, size_t back,
                 uint32_t mask, Span* out);

// At a "://" found at d[t] (t >= 1 readable before it), returns the password start when
// scheme and user parse (reading at most up to n), else 0.
size_t url_password_start(const uint8_t* d, size_t t, size_t n);
// The password run at d[pw] up to '@' within the gap; `host_edge` says a byte at the
// gap end counts as a host (an A match follows). Returns the '@' position or 0.
size_t url_password_end(const uint8_t* d, size_t pw, size_t g, bool host_edge);

// Length of a PEM private-key block starting at d[0] with n bytes readable, or 0.
size_t pem_length(const uint8_t* d, size_t n);

}  // namespace gaia::scrub::detail
