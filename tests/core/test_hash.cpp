// FNV-1a 64 (lib/core/hash.hpp): the published test vectors, and hashing in
// chunks gives the hash of the whole.
#include <doctest/doctest.h>

#include <string>

#include "lib/core/hash.hpp"

using fsicut::fnv1a;

TEST_CASE("fnv1a gives the published FNV-1a 64 test vectors") {
  CHECK(fnv1a(std::string()) == 0xcbf29ce484222325ULL);
  CHECK(fnv1a(std::string("a")) == 0xaf63dc4c8601ec8cULL);
  CHECK(fnv1a(std::string("foobar")) == 0x85944171f73967e8ULL);
  CHECK(fnv1a("foobar", 6) == 0x85944171f73967e8ULL);
  CHECK(fnv1a("", 0) == fsicut::FNV_OFFSET);
}

TEST_CASE("fnv1a continued from the hash of a prefix is the hash of the whole") {
  const std::string text = "the liquid surface as OpenVDB level sets";
  for (std::size_t cut = 0; cut <= text.size(); cut += 7) {
    CAPTURE(cut);
    const std::uint64_t head = fnv1a(text.data(), cut);
    CHECK(fnv1a(text.data() + cut, text.size() - cut, head) == fnv1a(text));
  }
}

TEST_CASE("fnv1a from another offset basis gives another hash of the same bytes") {
  const std::string bytes = "foobar";
  CHECK(fnv1a(bytes, 0x84222325cbf29ce4ULL) != fnv1a(bytes));
  // Bytes are hashed as unsigned: a byte above 0x7f is not sign-extended.
  const std::string high(1, static_cast<char>(0xff));
  CHECK(fnv1a(high) == ((fsicut::FNV_OFFSET ^ 0xffULL) * fsicut::FNV_PRIME));
}
