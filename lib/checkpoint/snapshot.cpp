#include "lib/checkpoint/snapshot.hpp"

#include <algorithm>
#include <stdexcept>

namespace fsicut::checkpoint {

void Snapshot::add(const std::string& tag, std::string bytes) {
  if (tag.size() != 4) throw std::invalid_argument("checkpoint section tag \"" + tag + "\" is not 4 bytes");
  const auto it = std::find_if(sections.begin(), sections.end(), [&](const Section& s) { return s.tag == tag; });
  if (it != sections.end()) it->bytes = std::move(bytes);
  else sections.push_back({tag, std::move(bytes)});
}

const std::string* Snapshot::find(const char* tag) const {
  const auto it = std::find_if(sections.begin(), sections.end(), [&](const Section& s) { return s.tag == tag; });
  return it == sections.end() ? nullptr : &it->bytes;
}

bool Snapshot::has(const char* tag) const { return find(tag) != nullptr; }

ByteReader Snapshot::read(const char* tag, const std::string& file) const {
  const std::string* bytes = find(tag);
  if (!bytes) throw CorruptError(file + ": section " + tag + " is missing");
  return ByteReader(bytes->data(), bytes->size(), section_where(file, tag));
}

std::string section_where(const std::string& file, const char* tag) { return file + " (section " + tag + ")"; }

void throw_mismatch(const std::string& where, const std::string& what) {
  throw Error(ExitCode::data, where + ": does not fit this scene: " + what);
}

void expect_end(const ByteReader& r) {
  if (!r.done()) r.fail(std::to_string(r.remaining()) + " bytes after the end of its content");
}

}  // namespace fsicut::checkpoint
