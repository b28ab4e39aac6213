#pragma once
// FNV-1a, 64-bit (Fowler, Noll, Vo): a fast, non-cryptographic hash of bytes.
// fsicut uses it to detect truncated or corrupted files (checkpoints, the
// output manifest) and to derive deterministic identifiers (VDB UUIDs); it does
// not protect against deliberate tampering.
#include <cstddef>
#include <cstdint>
#include <string>

namespace fsicut {

inline constexpr std::uint64_t FNV_OFFSET = 0xcbf29ce484222325ULL;  // the published 64-bit offset basis
inline constexpr std::uint64_t FNV_PRIME = 0x100000001b3ULL;        // the published 64-bit prime

// FNV-1a 64 of the `size` bytes at `data`, starting from `basis`. With the
// default basis this is the standard hash; passing the hash of earlier bytes
// as `basis` continues it, so hashing a stream chunk by chunk gives the hash of
// the whole (fnv1a(b, nb, fnv1a(a, na)) == fnv1a of a followed by b).
inline std::uint64_t fnv1a(const char* data, std::size_t size, std::uint64_t basis = FNV_OFFSET) {
  std::uint64_t hash = basis;
  for (std::size_t i = 0; i < size; ++i) {
    hash ^= static_cast<unsigned char>(data[i]);
    hash *= FNV_PRIME;
  }
  return hash;
}

inline std::uint64_t fnv1a(const std::string& bytes, std::uint64_t basis = FNV_OFFSET) {
  return fnv1a(bytes.data(), bytes.size(), basis);
}

}  // namespace fsicut
