#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/io/atomic.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using test::read_file;
namespace fs = std::filesystem;

namespace {

// Names of everything in `folder`, hidden files included.
std::vector<std::string> folder_entries(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(folder)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("write_text_atomically: exact content, no temporary left behind, overwrites") {
  test::ScratchDir dir("io-atomic");
  const fs::path target = dir / "stats.jsonl";
  io::write_text_atomically(target, "first\n");
  CHECK(read_file(target) == "first\n");
  io::write_text_atomically(target, std::string("second\0with nul\n", 16));
  CHECK(read_file(target) == std::string("second\0with nul\n", 16));
  io::write_text_atomically(target, "");
  CHECK(fs::file_size(target) == 0);
  CHECK(folder_entries(dir.path()) == std::vector<std::string>{"stats.jsonl"});
}

TEST_CASE("write_atomically: the callback gets a hidden temporary in the target's folder") {
  test::ScratchDir dir("io-atomic");
  const fs::path target = dir / "deep" / "er" / "liquid.0001.vdb";  // missing folders are created
  fs::path seen;
  io::write_atomically(target, [&](const fs::path& temporary) {
    seen = temporary;
    CHECK(fs::exists(temporary));
    CHECK(fs::file_size(temporary) == 0);
    std::ofstream(temporary) << "payload";
  });
  CHECK(seen.parent_path() == target.parent_path());
  CHECK(seen.filename().string().rfind(".liquid.0001.vdb.tmp-", 0) == 0);
  CHECK_FALSE(fs::exists(seen));
  CHECK(read_file(target) == "payload");
  CHECK(folder_entries(target.parent_path()) == std::vector<std::string>{"liquid.0001.vdb"});
}

TEST_CASE("write_atomically: a throwing callback leaves the previous target intact and no temporary") {
  test::ScratchDir dir("io-atomic");
  const fs::path target = dir / "beam.0003.obj";
  io::write_text_atomically(target, "previous complete content\n");

  fs::path temporary_seen;
  auto failing = [&](const fs::path& temporary) {
    temporary_seen = temporary;
    std::ofstream(temporary) << "half a fra";
    throw std::runtime_error("disk on fire");
  };
  try {
    io::write_atomically(target, failing);
    FAIL("no exception");
  } catch (const OutputError& e) {
    MESSAGE("message: " << std::string(e.what()));
    CHECK(e.code() == ExitCode::io);
    CHECK(std::string(e.what()).find(target.string()) != std::string::npos);
    CHECK(std::string(e.what()).find("disk on fire") != std::string::npos);
  }
  CHECK(read_file(target) == "previous complete content\n");
  CHECK_FALSE(fs::exists(temporary_seen));
  CHECK(folder_entries(dir.path()) == std::vector<std::string>{"beam.0003.obj"});

  // fsicut errors keep their own type and exit code.
  CHECK_THROWS_AS(io::write_atomically(target, [](const fs::path&) { throw SimulationError("NaN"); }),
                  SimulationError);
  CHECK(read_file(target) == "previous complete content\n");
  CHECK(folder_entries(dir.path()) == std::vector<std::string>{"beam.0003.obj"});
}

TEST_CASE("write_atomically / ensure_output_directory: a folder that cannot be created is exit code 73") {
  // Tests may run as root, which ignores permission bits: a regular file in the
  // place of a parent folder stops everybody.
  test::ScratchDir dir("io-atomic");
  const fs::path blocker = dir / "not_a_folder";
  io::write_text_atomically(blocker, "I am a file\n");

  const fs::path target = blocker / "out" / "liquid.0000.vdb";
  try {
    io::write_text_atomically(target, "x");
    FAIL("no exception");
  } catch (const OutputError& e) {
    MESSAGE("message: " << std::string(e.what()));
    CHECK(e.code() == ExitCode::cant_create);
    CHECK(std::string(e.what()).find(target.string()) != std::string::npos);
  }
  try {
    io::ensure_output_directory(blocker / "out");
    FAIL("no exception");
  } catch (const OutputError& e) {
    MESSAGE("message: " << std::string(e.what()));
    CHECK(e.code() == ExitCode::cant_create);
    CHECK(std::string(e.what()).find((blocker / "out").string()) != std::string::npos);
  }
  // The folder itself is a regular file.
  try {
    io::ensure_output_directory(blocker);
    FAIL("no exception");
  } catch (const OutputError& e) {
    MESSAGE("message: " << std::string(e.what()));
    CHECK(e.code() == ExitCode::cant_create);
  }
  CHECK(read_file(blocker) == "I am a file\n");
  CHECK(folder_entries(dir.path()) == std::vector<std::string>{"not_a_folder"});
}

TEST_CASE("ensure_output_directory creates nested folders and accepts existing ones") {
  test::ScratchDir dir("io-atomic");
  const fs::path out = dir / "a" / "b" / "c";
  io::ensure_output_directory(out);
  CHECK(fs::is_directory(out));
  io::ensure_output_directory(out);
  CHECK(fs::is_directory(out));
}

TEST_CASE("write_atomically: a failed rename is exit code 74 and removes the temporary") {
  test::ScratchDir dir("io-atomic");
  const fs::path target = dir / "occupied";
  fs::create_directories(target / "inside");  // rename(2) cannot replace a non-empty folder
  try {
    io::write_text_atomically(target, "x");
    FAIL("no exception");
  } catch (const OutputError& e) {
    MESSAGE("message: " << std::string(e.what()));
    CHECK(e.code() == ExitCode::io);
    CHECK(std::string(e.what()).find(target.string()) != std::string::npos);
  }
  CHECK(fs::is_directory(target / "inside"));
  CHECK(folder_entries(dir.path()) == std::vector<std::string>{"occupied"});
}

TEST_CASE("write_atomically: a concurrent reader only ever sees complete contents") {
  test::ScratchDir dir("io-atomic");
  const fs::path target = dir / "frame.bin";
  // Many read chunks long and of different sizes, so a torn read (an inode
  // truncated and refilled under the reader, or a mix of both) cannot look
  // complete.
  const std::string a(1 << 20, 'a');
  const std::string b = std::string(3 << 18, 'b') + "end";
  constexpr int REWRITES = 200;
  io::write_text_atomically(target, a);

  std::atomic<bool> done{false};
  std::atomic<int> reads{0}, torn{0}, saw_a{0}, saw_b{0};
  std::thread reader([&] {
    while (!done) {
      const std::string s = read_file(target);
      ++reads;
      if (s == a) ++saw_a;
      else if (s == b) ++saw_b;
      else ++torn;
    }
  });
  for (int i = 0; i < REWRITES; ++i) io::write_text_atomically(target, i % 2 ? a : b);
  done = true;
  reader.join();
  MESSAGE(REWRITES << " rewrites, " << reads.load() << " reads: " << saw_a.load() << " a, "
                   << saw_b.load() << " b, " << torn.load() << " torn");
  CHECK(torn == 0);
  CHECK(reads > 0);
  CHECK(read_file(target) == a);
  CHECK(folder_entries(dir.path()) == std::vector<std::string>{"frame.bin"});
}
