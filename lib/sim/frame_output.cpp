#include "lib/sim/frame_output.hpp"

#include <cstdio>

#include "lib/io/fog_vdb.hpp"
#include "lib/io/obj.hpp"
#include "lib/io/vdb.hpp"

namespace fsicut::sim {
namespace {

// Liquid VDB voxels default to half a grid cell: the particles resolve the
// surface finer than the grid does, and a renderer sees less voxel stepping.
Real vdb_voxel_size(const scene::Scene& scene) {
  return scene.output.voxel_size ? *scene.output.voxel_size : scene.grid.cell_size / 2;
}

}  // namespace

std::string numbered(const std::string& stem, int frame, const char* extension) {
  char digits[16];
  std::snprintf(digits, sizeof digits, "%04d", frame);
  return stem + "." + digits + extension;
}

FrameOutput capture_frame(const SimState& state) {
  const scene::Output& options = state.scene.output;
  FrameOutput out;
  out.frame = state.frame;
  out.time = state.time;
  out.up = options.up_axis == scene::Output::UpAxis::z ? io::UpAxis::z : io::UpAxis::y;
  if (state.liquid && options.liquid) {
    const fluid::Liquid& liquid = *state.liquid;
    LiquidOutput& l = out.liquid.emplace();
    l.particles = io::to_output_frame(liquid.particles, out.up);
    l.particle_radius = liquid.particle_radius;
    l.voxel_size = vdb_voxel_size(state.scene);
    l.with_particles = options.liquid_particles;
    if (options.liquid_velocity) {
      l.velocity_grid = liquid.grid;
      l.velocity = liquid.velocity;
    }
  }
  if (options.solids)
    for (const solid::Body& b : state.solids)
      out.solids.push_back(SolidOutput{b.name, io::to_output_frame(b.x, out.up), b.mesh.boundary});
  if (options.solids && state.eulerian)
    for (const EulerianSurface& s : state.eulerian->surfaces)
      out.solids.push_back(SolidOutput{s.name, io::to_output_frame(s.vertices, out.up), s.triangles});
  if (state.eulerian && state.eulerian->world.smoke)
    out.smoke = SmokeOutput{state.eulerian->world.grid, state.eulerian->world.smoke->density};
  return out;
}

std::vector<std::string> file_names(const FrameOutput& out) {
  std::vector<std::string> names;
  if (out.liquid) names.push_back(numbered("liquid", out.frame, ".vdb"));
  for (const SolidOutput& s : out.solids) names.push_back(numbered(s.name, out.frame, ".obj"));
  if (out.smoke) names.push_back(numbered("smoke", out.frame, ".vdb"));
  return names;
}

std::vector<std::string> frame_file_names(const SimState& state, int frame) {
  const scene::Output& options = state.scene.output;
  std::vector<std::string> names;
  if (state.liquid && options.liquid) names.push_back(numbered("liquid", frame, ".vdb"));
  if (options.solids)
    for (const solid::Body& b : state.solids) names.push_back(numbered(b.name, frame, ".obj"));
  if (options.solids && state.eulerian)
    for (const EulerianSurface& s : state.eulerian->surfaces) names.push_back(numbered(s.name, frame, ".obj"));
  if (state.eulerian && state.eulerian->world.smoke) names.push_back(numbered("smoke", frame, ".vdb"));
  return names;
}

std::map<std::string, io::FileDigest> write_frame(const FrameOutput& out, const std::filesystem::path& dir) {
  std::map<std::string, io::FileDigest> written;
  if (out.liquid) {
    const LiquidOutput& l = *out.liquid;
    const std::string name = numbered("liquid", out.frame, ".vdb");
    io::VelocityField velocity;
    if (l.velocity_grid)
      velocity = [&l, up = out.up](const Vec3& x) {
        const Vec3 u = grid::interpolate_velocity(*l.velocity_grid, l.velocity, io::from_output_frame(x, up));
        return io::to_output_frame(u, up);
      };
    written[name] = io::write_liquid_vdb(dir / name, l.particles, l.particle_radius, l.voxel_size,
                                         io::VdbMetadata{out.frame, out.time}, velocity, l.with_particles);
  }
  for (const SolidOutput& s : out.solids) {
    const std::string name = numbered(s.name, out.frame, ".obj");
    written[name] = io::write_obj(dir / name, s.vertices, s.triangles, s.name);
  }
  if (out.smoke) {
    const std::string name = numbered("smoke", out.frame, ".vdb");
    written[name] = io::write_fog_vdb(dir / name, out.smoke->grid, out.smoke->density, out.up,
                                      io::VdbMetadata{out.frame, out.time});
  }
  return written;
}

}  // namespace fsicut::sim
