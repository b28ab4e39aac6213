#include "lib/checkpoint/files.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "lib/checkpoint/bytes.hpp"
#include "lib/checkpoint/format.hpp"
#include "lib/io/atomic.hpp"

namespace fsicut::checkpoint {
namespace fs = std::filesystem;

namespace {

const char* const FILE_PREFIX = "checkpoint.";
const char* const FILE_SUFFIX = ".bin";
constexpr int FRAME_DIGITS = 4;

}  // namespace

fs::path file_name(const fs::path& folder, int frame) {
  std::ostringstream name;
  name << FILE_PREFIX;
  name.width(FRAME_DIGITS);
  name.fill('0');
  name << frame << FILE_SUFFIX;
  return folder / name.str();
}

std::vector<fs::path> list(const fs::path& folder) {
  std::vector<std::pair<long, fs::path>> found;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::size_t prefix = std::strlen(FILE_PREFIX), suffix = std::strlen(FILE_SUFFIX);
    if (name.size() <= prefix + suffix || name.compare(0, prefix, FILE_PREFIX) != 0 ||
        name.compare(name.size() - suffix, suffix, FILE_SUFFIX) != 0)
      continue;
    const std::string digits = name.substr(prefix, name.size() - prefix - suffix);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    found.emplace_back(std::stol(digits), it->path());
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<fs::path> paths;
  for (auto& f : found) paths.push_back(std::move(f.second));
  return paths;
}

std::string read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw CorruptError(file.string() + ": cannot be read");
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw CorruptError(file.string() + ": read error");
  return s.str();
}

fs::path write(const fs::path& folder, int frame, const Snapshot& snapshot, int keep) {
  const fs::path target = file_name(folder, frame);
  io::write_text_atomically(target, encode(snapshot));
  const std::vector<fs::path> all = list(folder);
  std::vector<fs::path> old;
  for (std::size_t i = static_cast<std::size_t>(std::max(keep, 1)); i < all.size(); ++i)
    if (all[i] != target) old.push_back(all[i]);
  remove_files(old);
  return target;
}

void remove_files(const std::vector<fs::path>& files) {
  for (const fs::path& f : files) {
    std::error_code ec;
    fs::remove(f, ec);
  }
}

void remove_all(const fs::path& folder) { remove_files(list(folder)); }

}  // namespace fsicut::checkpoint
