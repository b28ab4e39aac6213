#include "lib/checkpoint/format.hpp"

#include <cstring>
#include <map>
#include <utility>

#include "lib/checkpoint/eulerian_section.hpp"
#include "lib/core/hash.hpp"

namespace fsicut::checkpoint {

namespace {

constexpr char MAGIC[8] = {'F', 'S', 'I', 'C', 'U', 'T', 'C', 'K'};
// Header fields after the magic: version, section count, payload size, payload hash.
constexpr std::size_t COUNT_OFFSET = 8 + 4;
constexpr std::size_t SIZE_OFFSET = COUNT_OFFSET + 4;
constexpr std::size_t HASH_OFFSET = SIZE_OFFSET + 8;
constexpr std::size_t HEADER_SIZE = HASH_OFFSET + 8;

// Element kinds of stored arrays.
template <class T>
struct Kind;
template <>
struct Kind<Real> {
  static constexpr std::uint8_t value = 1;  // f64
};
template <>
struct Kind<char> {
  static constexpr std::uint8_t value = 2;  // u8
};

// ---------------------------------------------------------------- values

void put_points(ByteWriter& w, const Points& p) {
  w.u64(static_cast<std::uint64_t>(p.cols()));
  w.raw(p.data(), static_cast<std::size_t>(p.size()) * sizeof(Real));
}

// Checked before allocating: a corrupt count must not ask for terabytes.
Points get_points(ByteReader& r, const std::string& name) {
  const std::uint64_t cols = r.u64();
  if (cols > r.remaining() / (3 * sizeof(Real))) r.fail(name + ": more columns than the data holds");
  Points p(3, static_cast<Index>(cols));
  const std::size_t bytes = static_cast<std::size_t>(p.size()) * sizeof(Real);
  const char* from = r.take(bytes);
  if (bytes > 0) std::memcpy(p.data(), from, bytes);
  return p;
}

template <class T>
void put_array(ByteWriter& w, const Array3Data<T>& a) {
  w.u8(Kind<T>::value);
  for (int d = 0; d < 3; ++d) w.i32(a.size[d]);
  w.raw(a.values.data(), a.values.size() * sizeof(T));
}

template <class T>
Array3Data<T> get_array(ByteReader& r, const std::string& name) {
  if (r.u8() != Kind<T>::value) r.fail(name + ": unexpected element type");
  Array3Data<T> a;
  for (int d = 0; d < 3; ++d) a.size[d] = r.i32();
  if (a.size.minCoeff() < 0 || static_cast<std::uint64_t>(a.size.template cast<Index>().prod()) > r.remaining() / sizeof(T))
    r.fail(name + ": " + shape_text(a.size) + " is more than the data holds");
  a.values.resize(static_cast<std::size_t>(a.size.template cast<Index>().prod()));
  const std::size_t bytes = a.values.size() * sizeof(T);
  const char* from = r.take(bytes);
  if (bytes > 0) std::memcpy(a.values.data(), from, bytes);
  return a;
}

void put_frame(ByteWriter& w, const FrameRecord& s) {
  w.i32(s.frame);
  w.f64(s.time);
  w.i32(s.substeps);
  w.i32(s.cfl_exceeded);
  w.i32(s.solves);
  w.u8(s.solver.converged ? 1 : 0);
  w.u8(s.solver.met_tolerance ? 1 : 0);
  w.i32(s.solver.iterations);
  w.f64(s.solver.relative_residual);
  w.f64(s.solver.round_off_floor);
  w.i32(s.solver.unknowns);
  w.str(s.solver.failure);
  w.u32(static_cast<std::uint32_t>(s.seconds.size()));
  for (const auto& [stage, seconds] : s.seconds) {
    w.str(stage);
    w.f64(seconds);
  }
  w.u8(s.partitioned ? 1 : 0);
  if (s.partitioned) {
    const PartitionedRecord& p = *s.partitioned;
    w.u8(p.converged ? 1 : 0);
    w.i32(p.iterations);
    w.f64(p.interface_residual);
    w.f64(p.fluid_seconds);
    w.f64(p.solid_seconds);
    w.f64(p.interface_seconds);
  }
}

FrameRecord get_frame(ByteReader& r) {
  FrameRecord s;
  s.frame = r.i32();
  s.time = r.f64();
  s.substeps = r.i32();
  s.cfl_exceeded = r.i32();
  s.solves = r.i32();
  s.solver.converged = r.u8() != 0;
  s.solver.met_tolerance = r.u8() != 0;
  s.solver.iterations = r.i32();
  s.solver.relative_residual = r.f64();
  s.solver.round_off_floor = r.f64();
  s.solver.unknowns = r.i32();
  s.solver.failure = r.str();
  const std::uint32_t n = r.u32();
  for (std::uint32_t i = 0; i < n; ++i) {
    std::string stage = r.str();
    s.seconds[stage] = r.f64();
  }
  if (r.u8() != 0) {
    PartitionedRecord p;
    p.converged = r.u8() != 0;
    p.iterations = r.i32();
    p.interface_residual = r.f64();
    p.fluid_seconds = r.f64();
    p.solid_seconds = r.f64();
    p.interface_seconds = r.f64();
    s.partitioned = p;
  }
  return s;
}

// ---------------------------------------------------------------- sections

bool has_measures(const Snapshot& s) {
  return !s.probes.empty() || !s.partial.probe_rows.empty() || s.partial.load_seconds != 0;
}

void put_doubles(ByteWriter& w, const std::vector<double>& v) {
  w.u64(v.size());
  w.raw(v.data(), v.size() * sizeof(double));
}

std::vector<double> get_doubles(ByteReader& r, const std::string& name) {
  const std::uint64_t n = r.u64();
  if (n > r.remaining() / sizeof(double)) r.fail(name + ": more values than the data holds");
  std::vector<double> v(static_cast<std::size_t>(n));
  const char* from = r.take(v.size() * sizeof(double));
  if (n > 0) std::memcpy(v.data(), from, v.size() * sizeof(double));
  return v;
}

void put_measures(ByteWriter& w, const Snapshot& s) {
  w.str(s.probes);
  w.str(s.partial.probe_rows);
  w.f64(s.partial.load_seconds);
  put_doubles(w, s.partial.solid_loads);
  put_doubles(w, s.partial.obstacle_loads);
}

void get_measures(ByteReader& r, Snapshot& s) {
  s.probes = r.str();
  s.partial.probe_rows = r.str();
  s.partial.load_seconds = r.f64();
  s.partial.solid_loads = get_doubles(r, "solid loads");
  s.partial.obstacle_loads = get_doubles(r, "obstacle loads");
}

void put_meta(ByteWriter& w, const Snapshot& s) {
  w.str(s.fsicut_version);
  w.u64(fnv1a(s.scene));
  w.str(s.scene);
}

void put_clock(ByteWriter& w, const Snapshot& s) {
  w.f64(s.time);
  w.i32(s.frame);
  w.u8(s.mid_frame ? 1 : 0);
  put_frame(w, s.partial);
}

void put_solids(ByteWriter& w, const std::vector<SolidRecord>& solids) {
  w.u32(static_cast<std::uint32_t>(solids.size()));
  for (const SolidRecord& b : solids) {
    w.str(b.name);
    put_points(w, b.x);
    put_points(w, b.v);
  }
}

std::vector<SolidRecord> get_solids(ByteReader& r) {
  std::vector<SolidRecord> solids(r.u32());
  for (SolidRecord& b : solids) {
    b.name = r.str();
    b.x = get_points(r, "solid \"" + b.name + "\" positions");
    b.v = get_points(r, "solid \"" + b.name + "\" velocities");
  }
  return solids;
}

void put_reduced(ByteWriter& w, const std::vector<ReducedRecord>& reduced) {
  w.u32(static_cast<std::uint32_t>(reduced.size()));
  for (const ReducedRecord& r : reduced) {
    w.str(r.name);
    for (int c = 0; c < 3; ++c)
      for (int d = 0; d < 3; ++d) w.f64(r.R(d, c));
    for (const Vec3* x : {&r.T, &r.v, &r.omega})
      for (int d = 0; d < 3; ++d) w.f64((*x)[d]);
    w.u32(static_cast<std::uint32_t>(r.q.size()));
    for (Real x : r.q) w.f64(x);
    for (Real x : r.qdot) w.f64(x);
  }
}

std::vector<ReducedRecord> get_reduced(ByteReader& in) {
  const std::uint32_t count = in.u32();
  std::vector<ReducedRecord> reduced;
  for (std::uint32_t i = 0; i < count; ++i) {
    ReducedRecord r;
    r.name = in.str();
    for (int c = 0; c < 3; ++c)
      for (int d = 0; d < 3; ++d) r.R(d, c) = in.f64();
    for (Vec3* x : {&r.T, &r.v, &r.omega})
      for (int d = 0; d < 3; ++d) (*x)[d] = in.f64();
    const std::uint32_t modes = in.u32();
    if (modes > in.remaining() / (2 * sizeof(double)))
      in.fail("reduced solid \"" + r.name + "\": more modes than the data holds");
    r.q.resize(modes);
    r.qdot.resize(modes);
    for (Real& x : r.q) x = in.f64();
    for (Real& x : r.qdot) x = in.f64();
    reduced.push_back(std::move(r));
  }
  return reduced;
}

void put_liquid(ByteWriter& w, const std::optional<LiquidRecord>& liquid) {
  w.u8(liquid ? 1 : 0);
  if (!liquid) return;
  const LiquidRecord& l = *liquid;
  w.f64(l.particle_radius);
  w.f64(l.particle_volume);
  put_points(w, l.particles);
  for (int a = 0; a < 3; ++a) put_array(w, l.velocity[a]);
  put_array(w, l.pressure);
  put_array(w, l.liquid_phi);
  put_array(w, l.static_phi);
  put_array(w, l.solid_phi);
  for (int a = 0; a < 3; ++a) put_array(w, l.fractions[a]);
  for (int a = 0; a < 3; ++a) put_array(w, l.valid[a]);
}

std::optional<LiquidRecord> get_liquid(ByteReader& r) {
  if (r.u8() == 0) return std::nullopt;
  LiquidRecord l;
  l.particle_radius = r.f64();
  l.particle_volume = r.f64();
  l.particles = get_points(r, "liquid particles");
  for (int a = 0; a < 3; ++a) l.velocity[a] = get_array<Real>(r, "face velocities");
  l.pressure = get_array<Real>(r, "pressure");
  l.liquid_phi = get_array<Real>(r, "liquid distance field");
  l.static_phi = get_array<Real>(r, "obstacle distance field");
  l.solid_phi = get_array<Real>(r, "solid distance field");
  for (int a = 0; a < 3; ++a) l.fractions[a] = get_array<Real>(r, "face fractions");
  for (int a = 0; a < 3; ++a) l.valid[a] = get_array<char>(r, "valid faces");
  return l;
}

std::vector<Points> get_surfaces(ByteReader& r, const std::vector<SolidRecord>& solids) {
  std::vector<Points> surfaces;
  for (const SolidRecord& b : solids) surfaces.push_back(get_points(r, "solid \"" + b.name + "\" surface"));
  return surfaces;
}

// Appends section `tag` holding what `body` writes, and counts it.
template <class Body>
void put_section(ByteWriter& w, const char* tag, std::uint32_t& count, Body body) {
  w.raw(tag, 4);
  w.u32(0);
  const std::size_t size_at = w.size();
  w.u64(0);
  body(w);
  w.patch_u64(size_at, w.size() - size_at - sizeof(std::uint64_t));
  ++count;
}

// ---------------------------------------------------------------- reading the file

using Sections = std::map<std::string, std::pair<const char*, std::size_t>>;

// The payload's sections by tag, after the header has been checked.
Sections sections(const std::string& bytes, const std::string& file) {
  ByteReader header(bytes.data() + COUNT_OFFSET, HEADER_SIZE - COUNT_OFFSET, file);
  const std::uint32_t count = header.u32();
  Sections result;
  ByteReader r(bytes.data() + HEADER_SIZE, bytes.size() - HEADER_SIZE, file);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::string tag(r.take(4), 4);
    r.u32();
    const std::uint64_t size = r.u64();
    result[tag] = {r.take(size), static_cast<std::size_t>(size)};
  }
  if (!r.done()) r.fail("data after the last section");
  return result;
}

bool has(const Sections& all, const char* tag) { return all.count(tag) > 0; }

ByteReader section(const Sections& all, const char* tag, const std::string& file) {
  const auto it = all.find(tag);
  if (it == all.end()) throw CorruptError(file + ": section " + tag + " is missing");
  return ByteReader(it->second.first, it->second.second, section_where(file, tag));
}

}  // namespace

std::string shape_text(const Vec3i& s) {
  return std::to_string(s.x()) + " x " + std::to_string(s.y()) + " x " + std::to_string(s.z());
}

std::string section_where(const std::string& file, const char* tag) { return file + " (section " + tag + ")"; }

void throw_mismatch(const std::string& where, const std::string& what) {
  throw Error(ExitCode::data, where + ": does not fit this scene: " + what);
}

std::string encode(const Snapshot& s) {
  ByteWriter w;
  w.raw(MAGIC, sizeof MAGIC);
  w.u32(FORMAT_VERSION);
  w.u32(0);  // sections, payload size and hash: patched below
  w.u64(0);
  w.u64(0);
  std::uint32_t count = 0;
  put_section(w, SECTION_META, count, [&](ByteWriter& b) { put_meta(b, s); });
  put_section(w, SECTION_CLOCK, count, [&](ByteWriter& b) { put_clock(b, s); });
  put_section(w, SECTION_STATS, count, [&](ByteWriter& b) { b.str(s.stats); });
  put_section(w, SECTION_SOLIDS, count, [&](ByteWriter& b) { put_solids(b, s.solids); });
  put_section(w, SECTION_LIQUID, count, [&](ByteWriter& b) { put_liquid(b, s.liquid); });
  if (!s.reduced.empty()) put_section(w, SECTION_REDUCED, count, [&](ByteWriter& b) { put_reduced(b, s.reduced); });
  if (!s.surfaces.empty())
    put_section(w, SECTION_SURFACES, count, [&](ByteWriter& b) {
      for (const Points& p : s.surfaces) put_points(b, p);
    });
  if (has_measures(s)) put_section(w, SECTION_MEASURES, count, [&](ByteWriter& b) { put_measures(b, s); });
  if (!s.pieces[0].empty() || !s.pieces[1].empty() || !s.pieces[2].empty())
    put_section(w, SECTION_PIECES, count, [&](ByteWriter& b) {
      for (const std::vector<double>& axis : s.pieces) put_doubles(b, axis);
    });
  if (s.eulerian) put_section(w, SECTION_EULERIAN, count, [&](ByteWriter& b) { put_eulerian(b, *s.eulerian); });
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

  const Sections all = sections(bytes, file);
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
  const Sections all = sections(bytes, file);
  Snapshot s;
  s.fsicut_version = info.fsicut_version;
  s.scene = info.scene;
  s.time = info.time;
  s.frame = info.frame;
  s.mid_frame = info.mid_frame;
  ByteReader clock = section(all, SECTION_CLOCK, file);
  clock.f64();
  clock.i32();
  clock.u8();
  s.partial = get_frame(clock);
  s.stats = section(all, SECTION_STATS, file).str();
  ByteReader solids = section(all, SECTION_SOLIDS, file);
  s.solids = get_solids(solids);
  if (has(all, SECTION_REDUCED)) {
    ByteReader reduced = section(all, SECTION_REDUCED, file);
    s.reduced = get_reduced(reduced);
  }
  ByteReader liquid = section(all, SECTION_LIQUID, file);
  s.liquid = get_liquid(liquid);
  if (has(all, SECTION_SURFACES)) {
    ByteReader surfaces = section(all, SECTION_SURFACES, file);
    s.surfaces = get_surfaces(surfaces, s.solids);
  }
  if (has(all, SECTION_MEASURES)) {
    ByteReader measures = section(all, SECTION_MEASURES, file);
    get_measures(measures, s);
  }
  if (has(all, SECTION_PIECES)) {
    ByteReader pieces = section(all, SECTION_PIECES, file);
    for (std::vector<double>& axis : s.pieces) axis = get_doubles(pieces, "piece velocities");
  }
  if (has(all, SECTION_EULERIAN)) {
    ByteReader eulerian = section(all, SECTION_EULERIAN, file);
    s.eulerian = get_eulerian(eulerian);
  }
  return s;
}

}  // namespace fsicut::checkpoint
