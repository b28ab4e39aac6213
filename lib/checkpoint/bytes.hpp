#pragma once
// The byte codec of checkpoint files: little-endian integers, IEEE doubles,
// length-prefixed strings and raw arrays, written into a growing buffer and
// read back from a byte range with every read bounds-checked.
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "lib/core/error.hpp"
#include "lib/core/types.hpp"

namespace fsicut::checkpoint {

// The writer copies arrays with memcpy, which gives little-endian bytes only on
// a little-endian machine; every platform fsicut builds on (x86-64, arm64) is
// one, and this makes sure of it.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "checkpoints are little-endian; port the codec first");
static_assert(sizeof(Real) == 8, "checkpoints store Real as IEEE double");

// A checkpoint file that cannot be used: truncated, corrupted, another format
// version, not a checkpoint. The message names the file and the reason.
class CorruptError : public Error {
 public:
  explicit CorruptError(const std::string& message) : Error(ExitCode::data, message) {}
};

// Appends values to a byte buffer. Strings are a u64 length and the bytes.
class ByteWriter {
 public:
  void u8(std::uint8_t v) { bytes_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v) { raw(&v, sizeof v); }
  void i32(std::int32_t v) { raw(&v, sizeof v); }
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void str(const std::string& s) {
    u64(s.size());
    bytes_.append(s);
  }
  void raw(const void* data, std::size_t n) { bytes_.append(static_cast<const char*>(data), n); }

  // Overwrites the value written earlier at byte offset `at` (a size or count
  // known only once what follows it is written).
  void patch_u32(std::size_t at, std::uint32_t v) { std::memcpy(&bytes_[at], &v, sizeof v); }
  void patch_u64(std::size_t at, std::uint64_t v) { std::memcpy(&bytes_[at], &v, sizeof v); }

  std::size_t size() const { return bytes_.size(); }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

// Reads values from a byte range it does not own, throwing CorruptError
// ("<where>: <why>") instead of reading past its end.
class ByteReader {
 public:
  ByteReader(const char* data, std::size_t size, std::string where)
      : p_(data), end_(data + size), where_(std::move(where)) {}
  std::uint8_t u8() { return static_cast<std::uint8_t>(*take(1)); }
  std::uint32_t u32() { return value<std::uint32_t>(); }
  std::int32_t i32() { return value<std::int32_t>(); }
  std::uint64_t u64() { return value<std::uint64_t>(); }
  double f64() { return value<double>(); }
  std::string str() {
    const std::uint64_t n = u64();
    const char* s = take(n);
    return std::string(s, n);
  }
  // The next `n` bytes, in place.
  const char* take(std::uint64_t n) {
    if (n > remaining()) fail("unexpected end of data");
    const char* at = p_;
    p_ += n;
    return at;
  }
  bool done() const { return p_ == end_; }
  std::uint64_t remaining() const { return static_cast<std::uint64_t>(end_ - p_); }
  [[noreturn]] void fail(const std::string& why) const { throw CorruptError(where_ + ": " + why); }
  // The file (and section) being read, as messages name it.
  const std::string& where() const { return where_; }

 private:
  template <class T>
  T value() {
    T v;
    std::memcpy(&v, take(sizeof v), sizeof v);
    return v;
  }
  const char* p_;
  const char* end_;
  std::string where_;
};

}  // namespace fsicut::checkpoint
