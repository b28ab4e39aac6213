#pragma once
// The scene's `probes` list (scenes/README.md "Probes"): named measurement points
// that sim/cutcell/probes.hpp samples every substep into probes.csv.
#include <vector>

#include "lib/scene/json_reader.hpp"
#include "lib/scene/scene.hpp"

namespace fsicut::scene {

// Reads the array at `w` (/probes). Each entry is an object with `name`
// (letters, digits, '_' and '-', not "time", unique) and `type`:
//   "pressure": `position` [x, y, z] [m];
//   "gauge":    `position` [x, z] (the whole grid height) or a vertical segment
//               [[x, y0, z], [x, y1, z]] with y0 < y1 [m];
//   "point":    `solid` (a name in `solids`) and `position` [x, y, z], a point
//               of that solid at rest [m] (sim checks it lies in the solid).
// A gauge given as [x, z] spans `grid`'s height.
std::vector<Probe> read_probes(const json& j, const Where& w, const Grid& grid, const std::vector<SolidDesc>& solids);

}  // namespace fsicut::scene
