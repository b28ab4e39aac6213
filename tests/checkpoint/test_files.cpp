// Checkpoint files (lib/checkpoint/files.hpp): names, newest first, only the
// newest `keep` kept, no temporaries left behind.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "lib/checkpoint/files.hpp"
#include "lib/checkpoint/format.hpp"
#include "tests/checkpoint/fixtures.hpp"
#include "tests/support.hpp"

namespace fs = std::filesystem;
using namespace fsicut;
using test::ScratchDir;

TEST_CASE("checkpoint files are checkpoint.NNNN.bin holding the encoded snapshot") {
  ScratchDir dir("checkpoint");
  CHECK(checkpoint::file_name(dir.path(), 7).filename() == "checkpoint.0007.bin");
  CHECK(checkpoint::file_name(dir.path(), 12345).filename() == "checkpoint.12345.bin");
  const fs::path file = checkpoint::write(dir.path(), test::snapshot_at(7), 2);
  CHECK(file == checkpoint::file_name(dir.path(), 7));
  CHECK(checkpoint::read_bytes(file) == checkpoint::encode(test::snapshot_at(7)));
  test::require_error<checkpoint::CorruptError>([&] { checkpoint::read_bytes(dir / "absent.bin"); },
                                                {"absent.bin: cannot be read"});
}

TEST_CASE("only the newest checkpoint_keep checkpoints are kept - other files are left alone") {
  ScratchDir dir("checkpoint");
  std::ofstream(dir / "checkpoint.notes.bin") << "not a checkpoint name";
  std::ofstream(dir / "liquid.0001.vdb") << "x";
  for (int f = 1; f <= 5; ++f) checkpoint::write(dir.path(), test::snapshot_at(f), 2);
  const auto files = checkpoint::list(dir.path());
  REQUIRE(files.size() == 2);
  CHECK(files[0].filename() == "checkpoint.0005.bin");
  CHECK(files[1].filename() == "checkpoint.0004.bin");
  // Nothing else is left in the folder (no temporaries), the other files stay.
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) entries += e.is_regular_file() ? 1 : 0;
  CHECK(entries == 4);
  // Writing an older frame keeps it even though newer ones exist.
  const fs::path old = checkpoint::write(dir.path(), test::snapshot_at(2), 1);
  CHECK(fs::exists(old));
  CHECK(checkpoint::list(dir.path()).size() == 2);
}

TEST_CASE("list orders by frame number newest first - remove_all deletes only checkpoints") {
  ScratchDir dir("checkpoint");
  for (int f : {9, 10, 100, 1}) checkpoint::write(dir.path(), test::snapshot_at(f), 10);
  std::ofstream(dir / "stats.jsonl") << "{}\n";
  const auto files = checkpoint::list(dir.path());
  REQUIRE(files.size() == 4);
  CHECK(files[0].filename() == "checkpoint.0100.bin");
  CHECK(files[1].filename() == "checkpoint.0010.bin");
  CHECK(files[2].filename() == "checkpoint.0009.bin");
  CHECK(files[3].filename() == "checkpoint.0001.bin");
  CHECK(checkpoint::list(dir / "absent").empty());
  checkpoint::remove_all(dir.path());
  CHECK(checkpoint::list(dir.path()).empty());
  CHECK(fs::exists(dir / "stats.jsonl"));
}
