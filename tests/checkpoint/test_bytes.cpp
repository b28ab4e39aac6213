// The checkpoint byte codec (lib/checkpoint/bytes.hpp): little-endian values,
// length-prefixed strings, patching, and reads that never run past the end.
#include <doctest/doctest.h>

#include <string>

#include "lib/checkpoint/bytes.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using namespace fsicut::checkpoint;

TEST_CASE("values are written little-endian and read back") {
  ByteWriter w;
  w.u8(0xab);
  w.u32(0x01020304u);
  w.i32(-2);
  w.u64(0x1122334455667788ULL);
  w.f64(1.0);
  w.str("hi");
  const std::string& b = w.bytes();
  REQUIRE(b.size() == 1 + 4 + 4 + 8 + 8 + 8 + 2);
  CHECK(static_cast<unsigned char>(b[0]) == 0xab);
  CHECK(b.substr(1, 4) == std::string("\x04\x03\x02\x01", 4));
  CHECK(b.substr(5, 4) == std::string("\xfe\xff\xff\xff", 4));
  CHECK(b.substr(9, 8) == std::string("\x88\x77\x66\x55\x44\x33\x22\x11", 8));
  CHECK(b.substr(17, 8) == std::string("\x00\x00\x00\x00\x00\x00\xf0\x3f", 8));  // IEEE 754 1.0
  CHECK(b.substr(25, 10) == std::string("\x02\x00\x00\x00\x00\x00\x00\x00hi", 10));

  ByteReader r(b.data(), b.size(), "mem");
  CHECK(r.u8() == 0xab);
  CHECK(r.u32() == 0x01020304u);
  CHECK(r.i32() == -2);
  CHECK(r.u64() == 0x1122334455667788ULL);
  CHECK(r.f64() == 1.0);
  CHECK(r.str() == "hi");
  CHECK(r.done());
}

TEST_CASE("patch overwrites a value written earlier") {
  ByteWriter w;
  w.u32(0);
  w.u64(0);
  w.u8(7);
  w.patch_u32(0, 5);
  w.patch_u64(4, 9);
  ByteReader r(w.bytes().data(), w.size(), "mem");
  CHECK(r.u32() == 5);
  CHECK(r.u64() == 9);
  CHECK(r.u8() == 7);
}

TEST_CASE("reading past the end throws CorruptError naming the place") {
  ByteWriter w;
  w.u32(1);
  w.u64(1000);  // a string length longer than what follows
  ByteReader r(w.bytes().data(), w.size(), "f (section X)");
  CHECK(r.remaining() == 12);
  CHECK(r.u32() == 1);
  test::require_error<CorruptError>([&] { r.str(); }, {"f (section X): unexpected end of data"});
  ByteReader empty(nullptr, 0, "e");
  test::require_error<CorruptError>([&] { empty.u8(); }, {"e: unexpected end of data"});
}
