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
// (cutcell::region_volumes, a fraction of the cell), takes the place of a cell
// in the particles' shares (levelset::CountedApart): a particle whose kernel
// reaches the cell puts its share there into the region on its side
// (cutcell::region_in_sight from the particle's position: its own region
// when it is inside; none when the wall hides the cell's open part from
// it) weighted by V_r, and the particles inside spread over the cells and
// regions around as any other, so the shares s_r still sum to the
// particles' volume. Its density is rho_r = s_r / V_r. A region counts V_r dx^3
// when rho_r >= 1/2 and every cell or region its open pieces join it to has
// rho >= 1/2 (the bulk rule of the cells, region by region: packed or thinned
// particles in a full sliver are not volume), and min(s_r, V_r) dx^3
// otherwise. The cells around take rho_r into their own bulk test through the
// face's pieces. Particles inside the wall (region -1) count for none.
//
// Why shares and not the particles each region holds: with the regions
// counting their own particles and the cells beside renormalising their
// kernels away from the split cell, a particle next to a sliver put the share
// its kernel gave the sliver into its own cell, over that cell's cap, while
// the sliver counted none of it: the soft half-cell wall read -0.63 % at its
// first impact and the gate -0.71 % at 0.40 s; with the shares they stay
// within -0.23 .. +0.32 % and -0.49 .. +0.13 % over 2 s (the bound of
// tests/sim/test_leak_proof.cpp is 0.5 %).
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
// the surfaces bound). Asked only for the cells a particle's kernel reaches
// (about 0.3 ms per cell: 0.03 s per frame in the gate scene).
using MeasureRegions = std::function<RegionVolumes(const std::vector<Index>& cells)>;

// Liquid volume [m^3] with the split cells' regions counted as above; the
// same as liquid_volume(liquid) when nothing is split or `region_of` is empty.
// `region_of`: the region of a cell counted apart that a point sees
// (cutcell::region_in_sight with the surfaces bound; -1: none).
Real liquid_volume(const Liquid& liquid, const RegionOf& region_of, const MeasureRegions& measure);

}  // namespace fsicut::fluid
