#pragma once
// The liquid volume beside thin walls: the regions of split cells
// (cutcell/split_cells.hpp) counted one by one, and the cells a thin wall
// covers in part counted by their open part.
//
// levelset::liquid_volume_from_particles counts a cell whole when it and its
// neighbours hold bulk liquid, and by its particles' shares otherwise. A cell
// a wall thinner than a cell divides is neither: its centre may lie inside the
// wall, and its slivers' particles, kept on their side, spread their shares
// into the bulk cell beside them, which counts one cell regardless. So the
// water in the slivers went uncounted, and the measure moved as a wave ran up
// a wall (the gate scene read -0.90 % with the gate held still, -0.07 % for
// the same particles measured as if the panel were not there).
//
// Here each region r of a split cell, of measured volume V_r
// (cutcell::region_volumes, a fraction of the cell), holds the particles that
// cutcell::region_of puts in it, their seeded volume n_r v_p, and its density
// is rho_r = n_r v_p / (V_r dx^3). A region counts V_r dx^3 when rho_r >= 1/2
// and every cell or region its open pieces join it to has rho >= 1/2 (the
// bulk rule of the cells, region by region: packed or thinned particles in a
// full sliver are not volume), and min(n_r v_p, V_r dx^3) otherwise. The
// cells around take rho_r into their own bulk test through the face's pieces.
// Particles inside the wall (region -1) count for none.
//
// A cell a thin wall covers in part without dividing it (one region,
// SplitCells::partial) counts the same way with its one region's volume: the
// cells alone counted it whole when its centre was open, the wall's volume as
// water, and nothing when its centre was in the wall, so the reading jumped
// each time a moving wall's face crossed a cell centre.
#include <functional>
#include <unordered_map>
#include <vector>

#include "lib/fluid/liquid.hpp"
#include "lib/fluid/pieces.hpp"

namespace fsicut::fluid {

// Per split cell (linear index), each region's volume as a fraction of the
// cell (cutcell::region_volumes).
using RegionVolumes = std::unordered_map<Index, std::vector<Real>>;
// The region volumes of the given split cells (cutcell::region_volumes with
// the surfaces bound). Asked only for the cells that hold particles (about
// 0.3 ms per cell: 0.03 s per frame in the gate scene).
using MeasureRegions = std::function<RegionVolumes(const std::vector<Index>& cells)>;

// Liquid volume [m^3] with the split cells' regions counted as above; the
// same as liquid_volume(liquid) when nothing is split or `region_of` is empty.
Real liquid_volume(const Liquid& liquid, const RegionOf& region_of, const MeasureRegions& measure);

}  // namespace fsicut::fluid
