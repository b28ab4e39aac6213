#include "lib/sim/frame_output.hpp"

#include <cstdio>

#include "lib/io/fog_vdb.hpp"
#include "lib/io/obj.hpp"
#include "lib/io/vdb.hpp"

namespace fsicut::sim {

Real vdb_voxel_size(const scene::Scene& scene) {
  return scene.output.voxel_size ? *scene.output.voxel_size : scene.grid.cell_size / 2;
}

io::UpAxis up_axis(const scene::Scene& scene) {
  return scene.output.up_axis == scene::Output::UpAxis::z ? io::UpAxis::z : io::UpAxis::y;
}

std::string numbered(const std::string& stem, int frame, const char* extension) {
  char digits[16];
  std::snprintf(digits, sizeof digits, "%04d", frame);
  return stem + "." + digits + extension;
}

std::vector<std::string> file_names(const FrameOutput& out) {
  std::vector<std::string> names;
  if (out.liquid) names.push_back(numbered("liquid", out.frame, ".vdb"));
  for (const SolidOutput& s : out.solids) names.push_back(numbered(s.name, out.frame, ".obj"));
  if (out.smoke) names.push_back(numbered("smoke", out.frame, ".vdb"));
  return names;
}

std::map<std::string, io::FileDigest> write_frame(const FrameOutput& out, const std::filesystem::path& dir,
                                                  const AbandonRequest* abandon) {
  std::map<std::string, io::FileDigest> written;
  const auto check = [abandon] {
    if (abandon) abandon->check();
  };
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
                                         io::VdbMetadata{out.frame, out.time}, velocity, l.with_particles, abandon);
  }
  for (const SolidOutput& s : out.solids) {
    check();
    const std::string name = numbered(s.name, out.frame, ".obj");
    written[name] = io::write_obj(dir / name, s.vertices, s.triangles, s.name);
  }
  if (out.smoke) {
    check();
    const std::string name = numbered("smoke", out.frame, ".vdb");
    written[name] = io::write_fog_vdb(dir / name, out.smoke->grid, out.smoke->density, out.up,
                                      io::VdbMetadata{out.frame, out.time});
  }
  return written;
}

}  // namespace fsicut::sim
