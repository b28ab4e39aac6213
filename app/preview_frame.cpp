// fsicut_preview_frame: one frame's preview volume for scripts/preview.
//
//   fsicut_preview_frame OUT.vdb VOXEL_SIZE LIQUID.vdb|- [SOLID.obj ...]
//
// Writes OUT.vdb (io::write_preview_vdb): the liquid level set ("-": none) and
// the solids' OBJ surfaces as one level set `surface` with a colour grid
// `color` for vdb_render. Exit codes as fsicut's (docs/reliability.md "Exit codes").
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/io/vdb.hpp"
#include "lib/mesh/obj.hpp"

namespace {
constexpr std::size_t MAX_MESSAGE = 400;  // characters of an error message
}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s OUT.vdb VOXEL_SIZE LIQUID.vdb|- [SOLID.obj ...]\n", argv[0]);
    return 64;
  }
  try {
    const double voxel = std::atof(argv[2]);
    if (!(voxel > 0)) {
      std::fprintf(stderr, "fsicut_preview_frame: voxel size %s is not a positive length\n", argv[2]);
      return 64;
    }
    std::vector<fsicut::io::PreviewSolid> solids;
    for (int i = 4; i < argc; ++i) {
      fsicut::mesh::SurfaceMesh m = fsicut::mesh::read_obj(argv[i]);
      solids.push_back({std::move(m.vertices), std::move(m.triangles)});
    }
    const std::string liquid = argv[3];
    fsicut::io::write_preview_vdb(argv[1], liquid == "-" ? std::string() : liquid, solids, voxel);
    return 0;
  } catch (const fsicut::Error& e) {
    // OpenVDB's messages about a damaged file can quote gigabytes of what it
    // read as a name: one line of a readable length is what the user needs.
    std::string message = e.what();
    if (message.size() > MAX_MESSAGE) message = message.substr(0, MAX_MESSAGE) + "...";
    for (char& c : message)
      if (c == '\n' || c == '\r') c = ' ';
    std::fprintf(stderr, "fsicut_preview_frame: %s\n", message.c_str());
    return static_cast<int>(e.code());
  }
}
