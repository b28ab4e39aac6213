#pragma once
// The content of one checkpoint: who wrote it, for which scene, and its
// sections as bytes, each under a 4-byte tag (format.hpp lists them and their
// layouts). The container knows no simulation type: the sections' bytes are
// written and read by the codecs of the runtime types (reports.hpp,
// solids.hpp, liquid.hpp, eulerian_world.hpp, over values.hpp and bytes.hpp),
// which the driver (lib/sim/snapshot.hpp) and each simulator's save/restore
// call; format.hpp puts a Snapshot into a file's bytes and back, files.hpp and
// resume.hpp keep it in an output folder.
#include <string>
#include <vector>

#include "lib/checkpoint/bytes.hpp"

namespace fsicut::checkpoint {

struct Section {
  std::string tag;    // 4 characters
  std::string bytes;  // the section's content
};

struct Snapshot {
  std::string fsicut_version;     // of the program that wrote it (section META)
  std::string scene;              // the scene fingerprint (canonical JSON of the resolved scene)
  std::vector<Section> sections;  // all but META, in the order added (encode orders them as format.hpp lists)

  // Adds section `tag` holding `bytes`, replacing one of the same tag.
  void add(const std::string& tag, std::string bytes);
  bool has(const char* tag) const;
  // The bytes of section `tag`; nullptr without one.
  const std::string* find(const char* tag) const;
  // A reader of section `tag` whose messages name "<file> (section <tag>)".
  // Throws CorruptError "<file>: section <tag> is missing" without one.
  ByteReader read(const char* tag, const std::string& file) const;
};

// Appends section `tag` to `snapshot` holding what `body(ByteWriter&)` writes.
template <class Body>
void add_section(Snapshot& snapshot, const char* tag, Body&& body) {
  ByteWriter w;
  body(w);
  snapshot.add(tag, std::move(w.bytes()));
}

// How messages name section `tag` of `file`: "<file> (section <tag>)".
std::string section_where(const std::string& file, const char* tag);

// A checkpoint that is intact but does not fit the state the scene builds:
// throws Error(data) "<where>: does not fit this scene: <what>". The codecs
// pass their reader's where(), "<file> (section <tag>)".
[[noreturn]] void throw_mismatch(const std::string& where, const std::string& what);

// Throws CorruptError "<where>: <n> bytes after the end of its content"
// unless `r` has been read to its end (a section's reader, once its codec is
// done: what a writer wrote and a reader read must be the same bytes).
void expect_end(const ByteReader& r);

}  // namespace fsicut::checkpoint
