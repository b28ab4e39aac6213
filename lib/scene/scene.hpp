#pragma once
// SceneDesc: the plain-data description of a scene file (scenes/README.md).
//
// Defaults live here, in the member initializers, and nowhere else: the loader
// starts from a default-constructed struct and overwrites what the file sets,
// scenes/schema.json and scenes/README.md document the same values, and a test
// checks that they agree. Units are SI throughout.
//
// Every element that later stages may complain about carries `pointer`, its
// JSON pointer in the scene file, so that errors raised while building the
// simulation (a mesh that does not close, a solid outside the grid) still point
// into the file.
#include <array>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "lib/core/types.hpp"
#include "lib/scene/motion.hpp"

namespace fsicut::scene {

// The six sides of the grid's box, in the order of `open`: -x, +x, -y, +y, -z, +z
// (side = 2 axis + (1 for the + side)).
using Sides = std::array<bool, 6>;
inline constexpr const char* SIDE_NAMES[6] = {"-x", "+x", "-y", "+y", "-z", "+z"};

struct Grid {
  Vec3i resolution{0, 0, 0};  // cells per axis, required
  Vec3 origin{0, 0, 0};       // world position of the grid's min corner [m]
  Real cell_size = 0;         // edge of a cubic cell [m], required
  // Open sides: a free surface (p = 0) instead of a wall, and liquid that
  // leaves through them is removed (fluid/flows.hpp). Default: a closed box.
  Sides open{};
  Vec3 max() const { return origin + cell_size * resolution.cast<Real>(); }
};

struct Time {
  Real fps = 30;          // output frames per simulated second
  int frames = 120;       // frames after the initial state (frame 0)
  Real cfl = 1.0;         // substep dt <= cfl * cell_size / (max speed + sqrt(cell_size |g|)) (sim/advance.hpp)
  int max_substeps = 50;  // per frame; a frame that needs more takes max_substeps equal ones (stats cfl_exceeded)
  // The marker particles' sub-step [cells]: within a substep they advance in
  // equal RK2 steps of at most particle_cfl cells each at the fastest liquid
  // face (sim/cutcell/particle_steps.hpp). 0: absent, one RK2 step per substep.
  Real particle_cfl = 0;
};

// A region of space: fluid regions, obstacles and pinned regions use it.
struct Shape {
  enum class Type { box, sphere, obj };
  Type type = Type::box;
  Vec3 min{0, 0, 0}, max{0, 0, 0};  // box [m]
  Vec3 center{0, 0, 0};             // sphere [m]
  Real radius = 0;                  // sphere [m]
  std::string path;                 // obj, resolved against the scene folder
  Vec3 velocity{0, 0, 0};           // fluid regions: initial velocity [m/s]; sources: inflow velocity [m/s]
  bool inside_out = false;          // obstacles: solid outside the shape (a container)
  Real from = 0;                    // sources and drains: act while from <= t < until [s]
  Real until = std::numeric_limits<Real>::infinity();
  std::optional<Motion> motion;     // obstacles, pinned regions: prescribed rigid motion; none: static
  std::string pointer;              // JSON pointer of this shape in the scene
};

// A rigid placement applied to a solid's mesh after it is built:
// x' = translate + R * (scale * x), R = Rz * Ry * Rx from `rotate` in degrees.
struct Transform {
  Vec3 translate{0, 0, 0};  // [m]
  Vec3 rotate{0, 0, 0};     // Euler angles about x, then y, then z [degrees]
  Real scale = 1;           // uniform
};

struct MeshDesc {
  enum class Type { box, sphere, shell, obj };
  Type type = Type::box;
  // box: structured hexahedral cells, each split into 6 tetrahedra
  Vec3 min{0, 0, 0}, max{0, 0, 0};
  Vec3i cells{1, 1, 1};
  // sphere / shell: icosphere surfaces tetrahedralized by TetGen
  Vec3 center{0, 0, 0};
  Real radius = 0;        // sphere [m]
  Real outer_radius = 0;  // shell [m]
  Real inner_radius = 0;  // shell [m]
  int subdivisions = 2;   // icosphere level: 20 * 4^n surface triangles
  // obj
  std::string path;
  // TetGen options (sphere, shell, obj)
  Real max_tet_volume = 0;  // [m^3]; 0 = no volume constraint
  Real quality = 2.0;       // radius-edge ratio bound (TetGen -q); 0 = no quality refinement
  Transform transform;
  std::string pointer;
};

struct Damping {
  Real mass = 0;       // tau_m [1/s]
  Real stiffness = 0;  // tau_k [s]
};

// Contact between Eulerian solids (Teng, Levin & Kim 2016, Eqs. 14-15).
struct Contact {
  Real stiffness = 0;  // k [N/m]; 0 = off
  Real friction = 0;   // mu
};

// Plastic flow of an Eulerian solid (eulerian/plasticity.hpp): F = F_e F_p,
// F_p updated each step by a yield condition on F_e's deviatoric Hencky strain.
struct Plasticity {
  Real yield = 0;  // deviatoric Hencky strain where flow begins (dimensionless, >= 0)
  Real flow = 1;   // share of the excess over `yield` that flows per step, in (0, 1]
};

struct SolidDesc {
  std::string name;  // output files are <name>.NNNN.obj
  MeshDesc mesh;
  Real density = 1000;        // [kg/m^3]
  Real youngs_modulus = 1e5;  // [Pa]
  Real poisson_ratio = 0.3;   // in [0, 0.5)
  Damping damping;
  Vec3 velocity{0, 0, 0};  // initial [m/s]
  std::vector<Shape> pinned;
  Real initial_scale = 1;  // < 1: starts compressed about its centroid
  // Finite element: 4-node tets (the paper's) or 10-node tets (solid/body.hpp).
  enum class Element { linear, quadratic };
  Element element = Element::linear;
  // Full: every node a dof (the paper's). Reduced: a rigid frame carrying the
  // `modes` lowest vibration modes of the rest mesh (Lu, Jin & Fedkiw 2016;
  // solid/reduced.hpp); modes = 0 is a rigid body.
  enum class Model { full, reduced };
  Model model = Model::full;
  int modes = 10;
  // Lagrangian: a tetrahedral mesh (everything above). Eulerian: a displacement
  // field on the scene grid (Teng, Levin & Kim 2016; lib/eulerian), the mesh
  // giving its material shape and its output surface; coupling/scheme
  // "eulerian" only.
  enum class Representation { lagrangian, eulerian };
  Representation representation = Representation::lagrangian;
  bool incompressible = true;  // eulerian: div v = 0 in the solid's cells (the paper's)
  Contact contact;             // eulerian
  std::optional<Plasticity> plasticity;  // eulerian; none: elastic
  std::string pointer;
};

// A box that fills its cells with smoke every step and, with `inflow`,
// prescribes `velocity` on its nodes (eulerian/smoke.hpp).
struct SmokeSource {
  Vec3 min{0, 0, 0}, max{0, 0, 0};  // [m]
  Real density = 1;                 // smoke density set in the box (dimensionless)
  bool inflow = false;              // `velocity` given in the scene
  Vec3 velocity{0, 0, 0};           // [m/s]
  Real from = 0;                    // acts while from <= t < until [s]
  Real until = std::numeric_limits<Real>::infinity();
  std::string pointer;
};

// fluid/smoke: the single-phase fluid of the eulerian scheme (eulerian/smoke.hpp).
struct Smoke {
  Real buoyancy = 0;               // upward push per unit smoke density [m/s^2]
  Real vorticity_confinement = 0;  // epsilon (dimensionless); 0 = off
  std::vector<SmokeSource> sources;
};

struct Fluid {
  // liquid: marker particles in `regions` (free surface). smoke: a fluid of
  // `density` filling the whole box around Eulerian solids (coupling/scheme
  // "eulerian" only).
  enum class Kind { liquid, smoke };
  Kind kind = Kind::liquid;
  Smoke smoke;
  Real density = 1000;          // [kg/m^3]
  int particles_per_cell = 8;
  unsigned seed = 1;            // particle jitter
  bool density_correction = true;  // move packed particles apart each substep (fluid/density_correction.hpp)
  Real viscosity = 0;           // dynamic viscosity mu [Pa s]; 0 = inviscid, no viscosity stage (fluid/viscosity.hpp)
  std::vector<Shape> regions;   // empty: no liquid
  // Liquid that comes and goes (fluid/flows.hpp): sources fill their shape
  // with liquid moving at their velocity, drains remove what is inside.
  std::vector<Shape> sources;
  std::vector<Shape> drains;
};

// The partitioned schemes' iteration (coupling/partitioned.hpp).
struct Partitioned {
  Real relaxation = 1;     // omega in (0, 1], scheme "partitioned" only
  Real tolerance = 0.05;   // on the solids' velocity change per iteration, in cells per substep:
                           // max |v_k+1 - v_k| dt <= tolerance dx (Akbay et al.'s 0.05 dx)
  int max_iterations = 30; // solid solves per substep; more is a solver failure
  bool recompute_geometry = false;  // every liquid solve sees the solids moved by dt v (black-box coupling)
  // What the liquid hands the solids: "pressure", J^T p, the work-conjugate of
  // the boundary flux (the partitioned fixed point is the monolithic
  // solution); "conservative", the impulse its faces lost to the solids (Akbay
  // et al.'s (8): momentum conserved to round-off, a different fixed point).
  enum class Impulses { pressure, conservative };
  Impulses impulses = Impulses::pressure;
};

// coupling/eulerian: the solves of the eulerian scheme (Teng, Levin & Kim 2016).
struct EulerianCoupling {
  Real pressure_tolerance = 0.02;   // relative residual of Eq. 12 (the paper's PCR threshold)
  Real velocity_tolerance = 1e-3;   // relative residual of Eq. 8 (the paper's)
  // pcr: the primal-dual solve (Eqs. 8, 12, 13 in turn, the paper's). minres:
  // lines 9-11 as one saddle-point system of Eq. 11 (eulerian/projection.hpp
  // solve_kkt), to velocity_tolerance.
  enum class Solver { pcr, minres };
  Solver solver = Solver::pcr;
  // semi_implicit: Eq. 8; explicit: forward Euler (the paper's Fig. 3 comparison);
  // newmark: average acceleration, ours (eulerian/velocity_solve.hpp), either solver.
  enum class Integration { semi_implicit, explicit_euler, newmark };
  Integration integration = Integration::semi_implicit;
  // The CFL number while two solids are less than 2 cells apart, time/cfl
  // otherwise (the paper's Party: 0.6 near, 1.8 apart; eulerian/time_step.hpp);
  // 0: absent, time/cfl throughout.
  Real contact_cfl = 0;
};

struct Coupling {
  // eulerian: every solid "representation": "eulerian", with smoke or in void
  // (Teng, Levin & Kim 2016); the others couple Lagrangian solids to a liquid.
  enum class Scheme { spd, indefinite, damping_only, weak, partitioned, xpm, eulerian };
  // Of the pressure block in every PCG solve of the liquid (see linsolve/pcg.hpp).
  enum class Preconditioner { multigrid, mic, ic };
  Scheme scheme = Scheme::spd;
  Preconditioner preconditioner = Preconditioner::multigrid;
  Real sigma = 0.9;        // split of the mass term between Z1 and Z2, in (0, 1)
  bool alpha_auto = false; // alpha = |b1| / |b2| each solve
  Real alpha = 1e-3;       // scaling of the solid block
  Real tolerance = 1e-10;  // relative residual of every linear solve
  int max_iterations = 2000;
  bool allow_unconverged = false;  // true: a solve that stops early is logged, not fatal
  Partitioned partitioned;
  EulerianCoupling eulerian;
};

struct Output {
  std::string directory = "out";  // resolved against the scene folder
  bool liquid = true;
  bool solids = true;
  int checkpoint_every = 10;           // frames; 0 = never
  int checkpoint_keep = 2;             // checkpoints kept in the folder, the newest ones; >= 1
  std::optional<Real> voxel_size;      // liquid VDB [m]; default: half the grid cell
  // The frame every output file is written in (io/frame.hpp): y up as simulated
  // (Houdini, Maya), or z up (Blender: x, y, z -> x, -z, y).
  enum class UpAxis { y, z };
  UpAxis up_axis = UpAxis::y;
  bool liquid_velocity = false;   // the liquid VDB also holds the velocity grid `v`
  bool liquid_particles = false;  // the liquid VDB also holds the marker particles (points grid)
};

// A measurement sampled every substep into probes.csv (sim/cutcell/probes.hpp).
struct Probe {
  enum class Type { pressure, gauge, point };
  std::string name;        // its column(s) in probes.csv: letters, digits, '_' and '-'
  Type type = Type::pressure;
  Vec3 position{0, 0, 0};  // pressure: the point [m]; point: the material point at rest [m];
                           // gauge: the lower end of its vertical segment [m]
  Real top = 0;            // gauge: the segment's upper end, y [m]
  std::string solid;       // point: the solid's name
  std::string pointer;     // JSON pointer of this probe in the scene
};

struct Scene {
  std::string file;       // the scene file as given (for messages)
  std::string directory;  // its folder; relative paths were resolved against it
  Grid grid;
  Time time;
  Vec3 gravity{0, -9.81, 0};  // [m/s^2]
  Fluid fluid;
  std::vector<Shape> obstacles;
  std::vector<SolidDesc> solids;
  Coupling coupling;
  Output output;
  std::vector<Probe> probes;
  // true: a solid with inverted tetrahedra (det F <= 0) stops the run with
  // exit 70 after that frame is written, as --strict does; false: a warning.
  bool strict = false;
  // What a run does when its results turn absurd (sim/absurd.hpp: a solid
  // turned inside out or grown past its bound, a solid faster than the
  // scene's energy explains, liquid lost or made, a state that is not
  // finite): `stop` ends it with exit 70 after that frame is written; `warn`
  // warns once per kind and goes on (stability studies that want to see it).
  enum class OnAbsurd { stop, warn };
  OnAbsurd on_absurd = OnAbsurd::stop;
};

// Whether the scene has a liquid: fluid regions, or sources that bring it.
bool has_liquid(const Scene& scene);

const char* to_string(Coupling::Scheme scheme);
const char* to_string(Coupling::Preconditioner preconditioner);

}  // namespace fsicut::scene
