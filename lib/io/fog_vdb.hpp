#pragma once
// OpenVDB output of a smoke density, one file per frame (`smoke.0001.vdb`,
// docs/outputs.md "Files"): one FloatGrid named `density`, class fog
// volume (Houdini, Blender and every VDB renderer shade it as a participating
// medium), one voxel per simulation cell, the value the cell's smoke density
// (dimensionless; 0 = clear air, the grid's background). Only cells with a
// nonzero density are active. Voxel (i, j, k) is centred at the output-frame
// position of cell (i, j, k)'s centre (io/frame.hpp: y up as simulated, or z
// up with (x, y, z) -> (x, -z, y)). Metadata `frame`, `time` [s] and
// `fsicut_version`, as the liquid's file has.
//
// Written atomically (io/atomic.hpp) from bytes serialized in memory, with
// the file's UUID derived from its other bytes as io/vdb.cpp does, so the
// same density gives the same file.
#include <filesystem>

#include "lib/grid/mac_grid.hpp"
#include "lib/io/atomic.hpp"
#include "lib/io/frame.hpp"
#include "lib/io/vdb.hpp"

namespace fsicut::io {

inline constexpr const char* SMOKE_GRID_NAME = "density";

// `density`: size grid.cell_shape(), per cell. Throws SimulationError (70)
// for a non-finite value, OutputError (73/74) when the file cannot be written.
FileDigest write_fog_vdb(const std::filesystem::path& path, const grid::MacGrid& grid,
                         const grid::Array3<Real>& density, UpAxis up, const VdbMetadata& meta);

}  // namespace fsicut::io
