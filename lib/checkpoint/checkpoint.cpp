#include "lib/checkpoint/checkpoint.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "fsicut/core/version.hpp"
#include "lib/core/log.hpp"
#include "lib/io/atomic.hpp"
#include "lib/scene/load.hpp"
#include "lib/solid/corotation.hpp"

// What is stored, member by member. When a member is added to one of these
// structs, decide here whether it is state (store it, bump FORMAT_VERSION) or
// derived (rebuilt by build_state or recomputed); tests/checkpoint checks the
// struct sizes so the question cannot be missed.
//   sim::SimState   scene: not stored (the caller builds the state from the
//                          scene; its fingerprint is stored and compared)
//                   solids, liquid: below; time, frame: stored
//                   reduced: the ReducedState of each reduced body (R, T, q,
//                          v, omega, qdot) stored in section REDU, written only
//                          when the scene has reduced bodies (so other scenes'
//                          checkpoints are unchanged); its basis is rebuilt by
//                          build_state (deterministic: same scene, same basis)
//                   surfaces: the moving bodies' vertices as the last stage 4
//                          saw them stored (section SURF, scenes with liquid
//                          and solids), since stage 2 of the next substep reads
//                          the surfaces and the cells' reach of that stage 4
//                          (particle paths, sim/couple.hpp) and stage 6 may
//                          have moved the solids since (walls); restore re-runs
//                          stage 4's solid part on them. Without SURF (older
//                          checkpoints), on the stored x. The rest is derived
//                          from the solids' x at stage 4
//                          of every substep before stages 5 and 6 read it; the
//                          obstacles' surfaces and `fixed` (static fields
//                          computed) are built by build_state from the scene;
//                          static_fractions is recomputed from static_phi
//                          when empty
//   solid::Body     x, v: stored. R: recomputed from x (update_rotations).
//                   name: stored and checked. Everything else (mesh, material,
//                   mass, pinned, dofs, rest_volume, Dm_inv, K0, K0q, layouts) is
//                   built from the scene.
//   fluid::Liquid   markers, velocity, pressure, liquid_phi, static_phi,
//                   solid_phi, fractions, valid: stored. particle_radius, particle_volume:
//                   stored and checked. grid, density, gravity, solid,
//                   projection, extrapolation_layers: built from the scene.
//                   scratch: not stored, a workspace every stage overwrites
//                   before reading (fluid/velocity.cpp copy_into). reach: not
//                   stored, derived from the solids at stage 4 of every substep
//                   (sim/couple.cpp update_solid_fields) before anything reads it.
//   sim::FrameStats frame, time, substeps, cfl_exceeded, solver (every member
//                   of linsolve::Report), solves, seconds, partitioned (every
//                   member of coupling::PartitionedReport, when present):
//                   stored (mid-frame checkpoints).
//   scene::Coupling::Partitioned: in the scene (fingerprinted), not stored.

namespace fsicut::checkpoint {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The byte order of the file. The writer copies arrays with memcpy, which
// gives little-endian bytes only on a little-endian machine; every platform
// fsicut builds on (x86-64, arm64) is one, and this makes sure of it.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "checkpoints are little-endian; port put/get first");
static_assert(sizeof(Real) == 8, "checkpoints store Real as IEEE double");

constexpr char MAGIC[8] = {'F', 'S', 'I', 'C', 'U', 'T', 'C', 'K'};
constexpr std::size_t HEADER_SIZE = 8 + 4 + 4 + 8 + 8;
constexpr std::size_t SECTION_HEADER_SIZE = 4 + 4 + 8;

constexpr std::uint64_t FNV_OFFSET = 0xcbf29ce484222325ULL;
constexpr std::uint64_t FNV_PRIME = 0x100000001b3ULL;

// Element kinds of stored arrays.
constexpr std::uint8_t KIND_F64 = 1;
constexpr std::uint8_t KIND_U8 = 2;

const char* const FILE_PREFIX = "checkpoint.";
const char* const FILE_SUFFIX = ".bin";
constexpr int FRAME_DIGITS = 4;

// Keys that may differ between a run and its resume (see scene_fingerprint).
// The preconditioner changes the solution only within the solve's tolerance;
// strict only decides whether inverted elements stop the run (and checkpoints
// written before these keys existed lack them).
const char* const VOLATILE_KEYS[] = {"/output/directory", "/output/checkpoint_every", "/output/checkpoint_keep",
                                     "/time/frames", "/coupling/preconditioner", "/strict"};

// ---------------------------------------------------------------- writing

class Writer {
 public:
  void u8(std::uint8_t v) { bytes_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v) { raw(&v, sizeof v); }
  void i32(std::int32_t v) { raw(&v, sizeof v); }
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void str(const std::string& s) {
    u64(s.size());
    bytes_.append(s);
  }
  void raw(const void* data, std::size_t n) { bytes_.append(static_cast<const char*>(data), n); }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

template <class T>
void put_array(Writer& w, std::uint8_t kind, const grid::Array3<T>& a) {
  w.u8(kind);
  for (int d = 0; d < 3; ++d) w.i32(a.size()[d]);
  w.raw(a.data().data(), a.data().size() * sizeof(T));
}
void put_array(Writer& w, const grid::Array3<Real>& a) { put_array(w, KIND_F64, a); }
void put_array(Writer& w, const grid::Array3<char>& a) { put_array(w, KIND_U8, a); }

void put_points(Writer& w, const Points& p) {
  w.u64(static_cast<std::uint64_t>(p.cols()));
  w.raw(p.data(), static_cast<std::size_t>(p.size()) * sizeof(Real));
}

void put_stats(Writer& w, const sim::FrameStats& s) {
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
    const coupling::PartitionedReport& p = *s.partitioned;
    w.u8(p.converged ? 1 : 0);
    w.i32(p.iterations);
    w.f64(p.interface_residual);
    w.f64(p.fluid_seconds);
    w.f64(p.solid_seconds);
    w.f64(p.interface_seconds);
  }
}

void put_section(Writer& out, const char (&tag)[5], Writer& section) {
  out.raw(tag, 4);
  out.u32(0);
  out.u64(section.bytes().size());
  out.raw(section.bytes().data(), section.bytes().size());
}

// ---------------------------------------------------------------- reading

// Reads little-endian values from a byte range, throwing CorruptError (naming
// the file and what was being read) instead of reading past its end.
class Reader {
 public:
  Reader(const char* data, std::size_t size, std::string file) : p_(data), end_(data + size), file_(std::move(file)) {}
  std::uint8_t u8() { return static_cast<std::uint8_t>(*take(1)); }
  std::uint32_t u32() { return value<std::uint32_t>(); }
  std::int32_t i32() { return value<std::int32_t>(); }
  std::uint64_t u64() { return value<std::uint64_t>(); }
  double f64() { return value<double>(); }
  std::string str() {
    const std::uint64_t n = u64();
    const char* s = take(n);
    return std::string(s, n);
  }
  const char* take(std::uint64_t n) {
    if (n > static_cast<std::uint64_t>(end_ - p_)) fail("unexpected end of data");
    const char* at = p_;
    p_ += n;
    return at;
  }
  bool done() const { return p_ == end_; }
  std::uint64_t remaining() const { return static_cast<std::uint64_t>(end_ - p_); }
  [[noreturn]] void fail(const std::string& why) const { throw CorruptError(file_ + ": " + why); }
  const std::string& file() const { return file_; }

 private:
  template <class T>
  T value() {
    T v;
    std::memcpy(&v, take(sizeof v), sizeof v);
    return v;
  }
  const char* p_;
  const char* end_;
  std::string file_;
};

std::string shape_text(const Vec3i& s) {
  return std::to_string(s.x()) + " x " + std::to_string(s.y()) + " x " + std::to_string(s.z());
}

// A checkpoint that is intact but does not fit the state the scene builds.
[[noreturn]] void mismatch(const std::string& file, const std::string& what) {
  throw Error(ExitCode::data, file + ": does not fit this scene: " + what);
}

template <class T>
void get_array(Reader& r, std::uint8_t kind, grid::Array3<T>& a, const std::string& name) {
  if (r.u8() != kind) r.fail(name + ": unexpected element type");
  Vec3i size;
  for (int d = 0; d < 3; ++d) size[d] = r.i32();
  if (size.minCoeff() < 0 || static_cast<std::uint64_t>(size.cast<Index>().prod()) > r.remaining() / sizeof(T))
    r.fail(name + ": " + shape_text(size) + " is more than the data holds");
  // An empty array (static_phi before it is first computed) fits any grid;
  // otherwise the grid must be the one the scene builds.
  if (size != a.size() && a.count() != 0 && size.prod() != 0)
    mismatch(r.file(), name + " is " + shape_text(size) + ", the scene's grid needs " + shape_text(a.size()));
  a.resize(size);
  const std::size_t bytes = a.data().size() * sizeof(T);
  const char* from = r.take(bytes);
  if (bytes > 0) std::memcpy(a.data().data(), from, bytes);
}

void get_points(Reader& r, Points& p, Index expected_columns, const std::string& name) {
  const std::uint64_t cols = r.u64();
  if (expected_columns >= 0 && cols != static_cast<std::uint64_t>(expected_columns))
    mismatch(r.file(), name + " has " + std::to_string(cols) + " nodes in the checkpoint, " +
                           std::to_string(expected_columns) + " in the scene");
  // Checked before allocating: a corrupt count must not ask for terabytes.
  if (cols > r.remaining() / (3 * sizeof(Real))) r.fail(name + ": more columns than the data holds");
  p.resize(3, static_cast<Index>(cols));
  const std::size_t bytes = static_cast<std::size_t>(p.size()) * sizeof(Real);
  const char* from = r.take(bytes);
  if (bytes > 0) std::memcpy(p.data(), from, bytes);
}

sim::FrameStats get_stats(Reader& r) {
  sim::FrameStats s;
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
    coupling::PartitionedReport p;
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

// The payload's sections by tag, after the header has been checked.
std::map<std::string, std::pair<const char*, std::size_t>> sections(const std::string& bytes, const std::string& file) {
  Reader header(bytes.data(), bytes.size(), file);
  header.take(sizeof MAGIC);
  header.u32();
  const std::uint32_t count = header.u32();
  header.u64();
  header.u64();
  std::map<std::string, std::pair<const char*, std::size_t>> result;
  Reader r(bytes.data() + HEADER_SIZE, bytes.size() - HEADER_SIZE, file);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::string tag(r.take(4), 4);
    r.u32();
    const std::uint64_t size = r.u64();
    result[tag] = {r.take(size), static_cast<std::size_t>(size)};
  }
  if (!r.done()) r.fail("data after the last section");
  return result;
}

Reader section(const std::map<std::string, std::pair<const char*, std::size_t>>& all, const std::string& tag,
               const std::string& file) {
  const auto it = all.find(tag);
  if (it == all.end()) throw CorruptError(file + ": section " + tag + " is missing");
  return Reader(it->second.first, it->second.second, file + " (section " + tag + ")");
}

// Flattens JSON into pointer -> value text (arrays of numbers stay whole, so a
// changed vector reads as one key).
void flatten(const json& j, const std::string& pointer, std::map<std::string, std::string>& out) {
  const bool leaf_array =
      j.is_array() && std::all_of(j.begin(), j.end(), [](const json& e) { return e.is_primitive(); });
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) flatten(it.value(), pointer + "/" + it.key(), out);
  } else if (j.is_array() && !leaf_array) {
    for (std::size_t i = 0; i < j.size(); ++i) flatten(j[i], pointer + "/" + std::to_string(i), out);
  } else {
    out[pointer] = j.dump();
  }
}

// How many of the state's solids are reduced bodies (section REDU).
std::uint32_t reduced_solids(const sim::SimState& state) {
  return static_cast<std::uint32_t>(std::count_if(state.reduced.begin(), state.reduced.end(),
                                                  [](const auto& r) { return r.has_value(); }));
}

}  // namespace

std::uint64_t fnv1a(const char* data, std::size_t size) {
  std::uint64_t h = FNV_OFFSET;
  for (std::size_t i = 0; i < size; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= FNV_PRIME;
  }
  return h;
}

std::uint64_t fnv1a(const std::string& bytes) { return fnv1a(bytes.data(), bytes.size()); }

std::string scene_fingerprint(const scene::Scene& scene) {
  json j = json::parse(scene::to_json(scene));
  for (const char* key : VOLATILE_KEYS) {
    const json::json_pointer p(key);
    if (j.contains(p)) j[p.parent_pointer()].erase(p.back());
  }
  return j.dump();
}

std::vector<std::string> changed_keys(const std::string& old_fingerprint, const std::string& new_fingerprint) {
  std::map<std::string, std::string> a, b;
  flatten(json::parse(old_fingerprint), "", a);
  flatten(json::parse(new_fingerprint), "", b);
  std::vector<std::string> changed;
  for (const auto& [key, value] : a) {
    const auto it = b.find(key);
    if (it == b.end()) changed.push_back(key + ": " + value + " -> (absent)");
    else if (it->second != value) changed.push_back(key + ": " + value + " -> " + it->second);
  }
  for (const auto& [key, value] : b)
    if (!a.count(key)) changed.push_back(key + ": (absent) -> " + value);
  return changed;
}

std::string encode(const sim::SimState& state, const Progress& progress) {
  Writer meta;
  const std::string fingerprint = scene_fingerprint(state.scene);
  meta.str(VERSION);
  meta.u64(fnv1a(fingerprint));
  meta.str(fingerprint);

  Writer clock;
  clock.f64(state.time);
  clock.i32(state.frame);
  clock.u8(progress.mid_frame ? 1 : 0);
  put_stats(clock, progress.partial);

  Writer stats;
  stats.str(progress.stats);

  Writer solids;
  solids.u32(static_cast<std::uint32_t>(state.solids.size()));
  for (const solid::Body& b : state.solids) {
    solids.str(b.name);
    put_points(solids, b.x);
    put_points(solids, b.v);
  }

  Writer reduced;
  const std::uint32_t reduced_count = reduced_solids(state);
  reduced.u32(reduced_count);
  for (std::size_t b = 0; b < state.solids.size(); ++b) {
    if (!sim::is_reduced(state, b)) continue;
    const solid::ReducedState& r = state.reduced[b]->state;
    reduced.str(state.solids[b].name);
    for (Real x : {r.R(0, 0), r.R(1, 0), r.R(2, 0), r.R(0, 1), r.R(1, 1), r.R(2, 1), r.R(0, 2), r.R(1, 2), r.R(2, 2)})
      reduced.f64(x);
    for (const Vec3* x : {&r.T, &r.v, &r.omega})
      for (int d = 0; d < 3; ++d) reduced.f64((*x)[d]);
    reduced.u32(static_cast<std::uint32_t>(r.q.size()));
    for (Index k = 0; k < r.q.size(); ++k) reduced.f64(r.q[k]);
    for (Index k = 0; k < r.qdot.size(); ++k) reduced.f64(r.qdot[k]);
  }

  const bool moving_surfaces = state.liquid && !state.solids.empty();
  Writer surfaces;
  if (moving_surfaces)
    for (std::size_t b = 0; b < state.solids.size(); ++b) put_points(surfaces, state.surfaces.distance[b].vertices());

  Writer liquid;
  liquid.u8(state.liquid ? 1 : 0);
  if (state.liquid) {
    const fluid::Liquid& l = *state.liquid;
    liquid.f64(l.particle_radius);
    liquid.f64(l.particle_volume);
    put_points(liquid, l.markers);
    for (int a = 0; a < 3; ++a) put_array(liquid, l.velocity[a]);
    put_array(liquid, l.pressure);
    put_array(liquid, l.liquid_phi);
    put_array(liquid, l.static_phi);
    put_array(liquid, l.solid_phi);
    for (int a = 0; a < 3; ++a) put_array(liquid, l.fractions[a]);
    for (int a = 0; a < 3; ++a) put_array(liquid, l.valid[a]);
  }

  Writer payload;
  put_section(payload, "META", meta);
  put_section(payload, "CLCK", clock);
  put_section(payload, "STAT", stats);
  put_section(payload, "SOLD", solids);
  put_section(payload, "LIQD", liquid);
  std::uint32_t section_count = 5;
  if (reduced_count > 0) {
    put_section(payload, "REDU", reduced);
    ++section_count;
  }
  if (moving_surfaces) {
    put_section(payload, "SURF", surfaces);
    ++section_count;
  }

  Writer file;
  file.raw(MAGIC, sizeof MAGIC);
  file.u32(FORMAT_VERSION);
  file.u32(section_count);
  file.u64(payload.bytes().size());
  file.u64(fnv1a(payload.bytes()));
  file.bytes() += payload.bytes();
  return std::move(file.bytes());
}

Info inspect(const std::string& bytes, const std::string& file) {
  if (bytes.size() < HEADER_SIZE) throw CorruptError(file + ": truncated (" + std::to_string(bytes.size()) + " bytes)");
  if (std::memcmp(bytes.data(), MAGIC, sizeof MAGIC) != 0) throw CorruptError(file + ": not an fsicut checkpoint");
  Reader header(bytes.data() + sizeof MAGIC, HEADER_SIZE - sizeof MAGIC, file);
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
  if (hash != fnv1a(bytes.data() + HEADER_SIZE, bytes.size() - HEADER_SIZE)) throw CorruptError(file + ": corrupted (checksum mismatch)");

  const auto all = sections(bytes, file);
  Info info;
  Reader meta = section(all, "META", file);
  info.fsicut_version = meta.str();
  info.scene_hash = meta.u64();
  info.scene = meta.str();
  Reader clock = section(all, "CLCK", file);
  info.time = clock.f64();
  info.frame = clock.i32();
  info.mid_frame = clock.u8() != 0;
  return info;
}

void restore(const std::string& bytes, const std::string& file, sim::SimState& state, Progress& progress) {
  const Info info = inspect(bytes, file);
  const auto all = sections(bytes, file);

  Reader clock = section(all, "CLCK", file);
  clock.f64();
  clock.i32();
  progress.mid_frame = clock.u8() != 0;
  progress.partial = get_stats(clock);

  progress.stats = section(all, "STAT", file).str();

  Reader solids = section(all, "SOLD", file);
  const std::uint32_t count = solids.u32();
  if (count != state.solids.size())
    mismatch(file, std::to_string(count) + " solids in the checkpoint, " + std::to_string(state.solids.size()) +
                       " in the scene");
  for (solid::Body& b : state.solids) {
    const std::string name = solids.str();
    if (name != b.name) mismatch(file, "solid \"" + name + "\" in the checkpoint where the scene has \"" + b.name + "\"");
    get_points(solids, b.x, b.num_nodes(), "solid \"" + name + "\" positions");
    get_points(solids, b.v, b.num_nodes(), "solid \"" + name + "\" velocities");
    // Rotations are a function of the positions: recompute, exactly as the
    // step that produced x did (solid::update_positions).
    solid::update_rotations(b);
  }

  const std::uint32_t reduced_count = reduced_solids(state);
  if (reduced_count > 0) {
    if (all.count("REDU") == 0) mismatch(file, "the scene has reduced solids, the checkpoint none");
    Reader reduced = section(all, "REDU", file);
    if (reduced.u32() != reduced_count) mismatch(file, "the number of reduced solids differs from the scene's");
    for (std::size_t b = 0; b < state.solids.size(); ++b) {
      if (!sim::is_reduced(state, b)) continue;
      solid::ReducedBody& body = *state.reduced[b];
      const std::string name = reduced.str();
      if (name != state.solids[b].name)
        mismatch(file, "reduced solid \"" + name + "\" in the checkpoint where the scene has \"" +
                           state.solids[b].name + "\"");
      solid::ReducedState& r = body.state;
      for (int c = 0; c < 3; ++c)
        for (int d = 0; d < 3; ++d) r.R(d, c) = reduced.f64();
      for (Vec3* x : {&r.T, &r.v, &r.omega})
        for (int d = 0; d < 3; ++d) (*x)[d] = reduced.f64();
      const std::uint32_t modes = reduced.u32();
      if (static_cast<int>(modes) != body.basis.modes())
        mismatch(file, "reduced solid \"" + name + "\" has " + std::to_string(modes) + " modes in the checkpoint, " +
                           std::to_string(body.basis.modes()) + " in the scene");
      r.q.resize(modes);
      r.qdot.resize(modes);
      for (std::uint32_t k = 0; k < modes; ++k) r.q[k] = reduced.f64();
      for (std::uint32_t k = 0; k < modes; ++k) r.qdot[k] = reduced.f64();
    }
  } else if (all.count("REDU") > 0) {
    mismatch(file, "the checkpoint has reduced solids, the scene none");
  }

  Reader liquid = section(all, "LIQD", file);
  const bool has_liquid = liquid.u8() != 0;
  if (has_liquid != state.liquid.has_value())
    mismatch(file, has_liquid ? "the checkpoint has liquid, the scene has none" : "the scene has liquid, the checkpoint none");
  if (state.liquid) {
    fluid::Liquid& l = *state.liquid;
    l.particle_radius = liquid.f64();
    l.particle_volume = liquid.f64();
    get_points(liquid, l.markers, -1, "liquid particles");
    for (int a = 0; a < 3; ++a) get_array(liquid, KIND_F64, l.velocity[a], "face velocities");
    get_array(liquid, KIND_F64, l.pressure, "pressure");
    get_array(liquid, KIND_F64, l.liquid_phi, "liquid distance field");
    get_array(liquid, KIND_F64, l.static_phi, "obstacle distance field");
    get_array(liquid, KIND_F64, l.solid_phi, "solid distance field");
    for (int a = 0; a < 3; ++a) get_array(liquid, KIND_F64, l.fractions[a], "face fractions");
    for (int a = 0; a < 3; ++a) get_array(liquid, KIND_U8, l.valid[a], "valid faces");
  }
  if (state.liquid && !state.solids.empty()) {
    // Stage 4's solid part on the vertices it last saw, then the solids back where they are.
    std::vector<Points> now;
    for (solid::Body& b : state.solids) now.push_back(b.x);
    if (all.count("SURF") > 0) {
      Reader surfaces = section(all, "SURF", file);
      for (solid::Body& b : state.solids) get_points(surfaces, b.x, b.num_nodes(), "solid \"" + b.name + "\" surface");
    }
    sim::update_solid_fields(state);
    for (std::size_t b = 0; b < state.solids.size(); ++b) state.solids[b].x = now[b];
  }
  state.time = info.time;
  state.frame = info.frame;
}

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

fs::path write(const fs::path& folder, const sim::SimState& state, const Progress& progress, int keep) {
  const fs::path target = file_name(folder, state.frame);
  io::write_text_atomically(target, encode(state, progress));
  // Newest first; the one just written is always kept. A failed removal is
  // harmless (a stale checkpoint costs disk space, not correctness).
  const std::vector<fs::path> all = list(folder);
  for (std::size_t i = static_cast<std::size_t>(std::max(keep, 1)); i < all.size(); ++i) {
    if (all[i] == target) continue;
    std::error_code ec;
    fs::remove(all[i], ec);
  }
  return target;
}

void remove_all(const fs::path& folder) {
  for (const fs::path& f : list(folder)) {
    std::error_code ec;
    fs::remove(f, ec);
  }
}

std::optional<Resumed> resume(const fs::path& folder, sim::SimState& state, Progress& progress, bool force) {
  std::vector<fs::path> unusable;
  for (const fs::path& file : list(folder)) {
    std::string bytes;
    Info info;
    try {
      bytes = read_bytes(file);
      info = inspect(bytes, file.string());
    } catch (const CorruptError& e) {
      log::warn(std::string("skipping a checkpoint: ") + e.what());
      unusable.push_back(file);
      continue;
    }
    Resumed r{file, info, {}};
    const std::string fingerprint = scene_fingerprint(state.scene);
    if (info.scene_hash != fnv1a(fingerprint)) {
      r.changed = changed_keys(info.scene, fingerprint);
      std::string list_text;
      for (const std::string& c : r.changed) list_text += "\n  " + c;
      if (!force)
        throw Error(ExitCode::data, state.scene.file + ": the scene changed since " + file.string() +
                                        " was written:" + list_text +
                                        "\nrun without --resume to start over, or add --force to continue from the "
                                        "checkpoint with the changed scene");
      log::warn(state.scene.file + ": continuing " + file.string() + " with a changed scene (--force):" + list_text);
    }
    if (info.fsicut_version != VERSION)
      log::warn(file.string() + " was written by fsicut " + info.fsicut_version + ", this is " + VERSION +
                "; results may differ from an uninterrupted run");
    restore(bytes, file.string(), state, progress);
    // Newer checkpoints that could not be read would shadow the good ones in
    // pruning and confuse the next resume; the state they held is lost anyway.
    for (const fs::path& bad : unusable) {
      std::error_code ec;
      fs::remove(bad, ec);
    }
    return r;
  }
  return std::nullopt;
}

}  // namespace fsicut::checkpoint
