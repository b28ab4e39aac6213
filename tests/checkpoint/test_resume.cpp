// Choosing the checkpoint to resume from (lib/checkpoint/resume.hpp): the
// newest intact one, damaged newer ones skipped and listed.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "lib/checkpoint/files.hpp"
#include "lib/checkpoint/resume.hpp"
#include "tests/checkpoint/fixtures.hpp"
#include "tests/support.hpp"

namespace fs = std::filesystem;
using namespace fsicut;
using test::ScratchDir;

TEST_CASE("newest_intact skips a truncated and a corrupted newer checkpoint and lists them") {
  ScratchDir dir("checkpoint");
  for (int f = 1; f <= 3; ++f) checkpoint::write(dir.path(), test::snapshot_at(f), 3);
  const fs::path third = checkpoint::file_name(dir.path(), 3), second = checkpoint::file_name(dir.path(), 2);
  fs::resize_file(third, fs::file_size(third) - 10);
  std::string bytes = checkpoint::read_bytes(second);
  bytes[bytes.size() - 3] ^= 0x01;
  std::ofstream(second, std::ios::binary) << bytes;

  const auto found = checkpoint::newest_intact(dir.path());
  REQUIRE(found);
  CHECK(found->file == checkpoint::file_name(dir.path(), 1));
  CHECK(found->info.frame == 1);
  CHECK(found->info.time == 0.5);
  CHECK(found->bytes == checkpoint::encode(test::snapshot_at(1)));
  CHECK(found->unusable == std::vector<fs::path>{third, second});
  // Choosing deletes nothing: the caller does once it has restored the one found.
  CHECK(fs::exists(third));
}

TEST_CASE("newest_intact finds nothing in a folder without usable checkpoints") {
  ScratchDir dir("checkpoint");
  CHECK_FALSE(checkpoint::newest_intact(dir.path()));
  std::ofstream(dir / "checkpoint.0001.bin") << "garbage";
  CHECK_FALSE(checkpoint::newest_intact(dir.path()));
}
