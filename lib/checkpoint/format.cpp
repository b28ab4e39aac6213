#include "lib/checkpoint/format.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <utility>

#include "lib/core/hash.hpp"

namespace fsicut::checkpoint {

namespace {

constexpr char MAGIC[8] = {'F', 'S', 'I', 'C', 'U', 'T', 'C', 'K'};
// Header fields after the magic: version, section count, payload size, payload hash.
constexpr std::size_t COUNT_OFFSET = 8 + 4;
constexpr std::size_t SIZE_OFFSET = COUNT_OFFSET + 4;
constexpr std::size_t HASH_OFFSET = SIZE_OFFSET + 8;
constexpr std::size_t HEADER_SIZE = HASH_OFFSET + 8;

// The order of the sections in a file (format.hpp); META comes first.
const char* const SECTION_ORDER[] = {SECTION_CLOCK,    SECTION_STATS,    SECTION_SOLIDS, SECTION_LIQUID,
                                     SECTION_REDUCED,  SECTION_SURFACES, SECTION_MEASURES,
                                     SECTION_PIECES,   SECTION_EULERIAN, SECTION_FLOWS,
                                     SECTION_PARTICLE_STEPS, SECTION_PENDING_FRAME};

std::size_t rank(const std::string& tag) {
  const auto* end = std::end(SECTION_ORDER);
  return static_cast<std::size_t>(std::find(std::begin(SECTION_ORDER), end, tag) - std::begin(SECTION_ORDER));
}

// Appends section `tag` holding `bytes`, and counts it.
void put_section(ByteWriter& w, const std::string& tag, const std::string& bytes, std::uint32_t& count) {
  w.raw(tag.data(), 4);
  w.u32(0);
  w.u64(bytes.size());
  w.raw(bytes.data(), bytes.size());
  ++count;
}

void put_meta(ByteWriter& w, const Snapshot& s) {
  w.str(s.fsicut_version);
  w.u64(fnv1a(s.scene));
  w.str(s.scene);
}

struct Span {
  std::string tag;
  const char* data;
  std::size_t size;
};

// The payload's sections in file order, in place, after the header has been
// checked.
std::vector<Span> sections(const std::string& bytes, const std::string& file) {
  ByteReader header(bytes.data() + COUNT_OFFSET, HEADER_SIZE - COUNT_OFFSET, file);
  const std::uint32_t count = header.u32();
  std::vector<Span> result;
  ByteReader r(bytes.data() + HEADER_SIZE, bytes.size() - HEADER_SIZE, file);
  for (std::uint32_t i = 0; i < count; ++i) {
    std::string tag(r.take(4), 4);
    r.u32();
    const std::uint64_t size = r.u64();
    result.push_back({std::move(tag), r.take(size), static_cast<std::size_t>(size)});
  }
  if (!r.done()) r.fail("data after the last section");
  return result;
}

// A reader of section `tag` (a repeated tag: the last one).
ByteReader section(const std::vector<Span>& all, const char* tag, const std::string& file) {
  const auto it = std::find_if(all.rbegin(), all.rend(), [&](const Span& s) { return s.tag == tag; });
  if (it == all.rend()) throw CorruptError(file + ": section " + tag + " is missing");
  return ByteReader(it->data, it->size, section_where(file, tag));
}

}  // namespace

std::string encode(const Snapshot& s) {
  ByteWriter w;
  w.raw(MAGIC, sizeof MAGIC);
  w.u32(FORMAT_VERSION);
  w.u32(0);  // sections, payload size and hash: patched below
  w.u64(0);
  w.u64(0);
  std::uint32_t count = 0;
  ByteWriter meta;
  put_meta(meta, s);
  put_section(w, SECTION_META, meta.bytes(), count);
  std::vector<const Section*> ordered;
  for (const Section& section : s.sections)
    if (section.tag != SECTION_META) ordered.push_back(&section);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const Section* a, const Section* b) { return rank(a->tag) < rank(b->tag); });
  for (const Section* section : ordered) put_section(w, section->tag, section->bytes, count);
  const std::size_t payload = w.size() - HEADER_SIZE;
  w.patch_u32(COUNT_OFFSET, count);
  w.patch_u64(SIZE_OFFSET, payload);
  w.patch_u64(HASH_OFFSET, fnv1a(w.bytes().data() + HEADER_SIZE, payload));
  return std::move(w.bytes());
}

Info inspect(const std::string& bytes, const std::string& file) {
  if (bytes.size() < HEADER_SIZE) throw CorruptError(file + ": truncated (" + std::to_string(bytes.size()) + " bytes)");
  if (std::memcmp(bytes.data(), MAGIC, sizeof MAGIC) != 0) throw CorruptError(file + ": not an fsicut checkpoint");
  ByteReader header(bytes.data() + sizeof MAGIC, HEADER_SIZE - sizeof MAGIC, file);
  const std::uint32_t version = header.u32();
  if (version != FORMAT_VERSION)
    throw CorruptError(file + ": checkpoint format version " + std::to_string(version) + ", this fsicut reads version " +
                       std::to_string(FORMAT_VERSION));
  header.u32();
  const std::uint64_t size = header.u64();
  const std::uint64_t hash = header.u64();
  if (size != bytes.size() - HEADER_SIZE)
    throw CorruptError(file + ": truncated or padded: the header announces " + std::to_string(size) +
                       " bytes of data, the file holds " + std::to_string(bytes.size() - HEADER_SIZE));
  if (hash != fnv1a(bytes.data() + HEADER_SIZE, bytes.size() - HEADER_SIZE))
    throw CorruptError(file + ": corrupted (checksum mismatch)");

  const std::vector<Span> all = sections(bytes, file);
  Info info;
  ByteReader meta = section(all, SECTION_META, file);
  info.fsicut_version = meta.str();
  info.scene_hash = meta.u64();
  info.scene = meta.str();
  ByteReader clock = section(all, SECTION_CLOCK, file);
  info.time = clock.f64();
  info.frame = clock.i32();
  info.mid_frame = clock.u8() != 0;
  return info;
}

Snapshot decode(const std::string& bytes, const std::string& file) {
  const Info info = inspect(bytes, file);
  Snapshot s;
  for (const Span& span : sections(bytes, file))
    if (span.tag != SECTION_META) s.add(span.tag, std::string(span.data, span.size));
  s.fsicut_version = info.fsicut_version;
  s.scene = info.scene;
  return s;
}

}  // namespace fsicut::checkpoint
