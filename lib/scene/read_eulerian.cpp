#include "lib/scene/read_eulerian.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "lib/scene/names.hpp"

namespace fsicut::scene {
namespace {

constexpr Real MAX_CONTACT_STIFFNESS = 1e12;  // [N/m], far past the paper's 2000..10000
constexpr Real MAX_BUOYANCY = 1e4;            // [m/s^2 per unit smoke density], a thousand g
constexpr Real MAX_SMOKE_DENSITY = 1e3;       // dimensionless (1 is a source's usual value)
constexpr Real MAX_YIELD_STRAIN = 10;         // a stretch of e^10: past it nothing would ever yield

SmokeSource read_source(const json& j, const Where& w, const Grid& grid) {
  Object o(j, w);
  SmokeSource s;
  s.pointer = w.pointer;
  o.require("min", s.min);
  o.require("max", s.max);
  check_box(s.min, s.max, w);
  o.get("density", s.density, non_negative_at_most(MAX_SMOKE_DENSITY, "(dimensionless)"));
  if (o.has("velocity")) {
    o.get("velocity", s.velocity);
    s.inflow = true;
  }
  o.get("from", s.from, non_negative());
  if (o.has("until")) {
    o.get("until", s.until, positive());
    if (!(s.until > s.from)) (w / "until").fail("must be later than from (" + num(s.from) + " s), got " + num(s.until));
  }
  o.finish();
  const Vec3 lo = grid.origin, hi = grid.max();
  for (int i = 0; i < 3; ++i)
    if (s.max[i] <= lo[i] || s.min[i] >= hi[i]) w.fail("lies outside the grid along axis " + std::to_string(i));
  return s;
}

}  // namespace

void read_fluid_kind(Object& f, const Where& fw, const Grid& grid, Fluid& fluid) {
  fluid.kind = read_enum(f, "kind", names<Fluid::Kind>(), false, Fluid::Kind::liquid);
  if (!f.has("smoke")) return;
  const Where sw = fw / "smoke";
  if (fluid.kind != Fluid::Kind::smoke) sw.fail("applies to \"kind\": \"smoke\" only; this fluid is a liquid");
  Object s(f.at("smoke"), sw);
  s.get("buoyancy", fluid.smoke.buoyancy, [](const Real& v, const Where& at) {
    if (!(std::abs(v) <= MAX_BUOYANCY)) at.fail("must be within +-" + num(MAX_BUOYANCY) + " m/s^2, got " + num(v));
  });
  s.get("vorticity_confinement", fluid.smoke.vorticity_confinement, non_negative_at_most(10, "(dimensionless)"));
  if (s.has("sources"))
    fluid.smoke.sources = read_array<SmokeSource>(
        s.at("sources"), sw / "sources", [&grid](const json& j, const Where& at) { return read_source(j, at, grid); });
  s.finish();
}

void read_representation(Object& o, const Where& w, const json& mesh, SolidDesc& s) {
  s.representation =
      read_enum(o, "representation", names<SolidDesc::Representation>(), false, SolidDesc::Representation::lagrangian);
  const bool eulerian = s.representation == SolidDesc::Representation::eulerian;
  if (eulerian) {
    for (const char* key : {"element", "model", "modes", "pinned"})
      if (o.has(key))
        (w / key).fail("makes no sense for \"representation\": \"eulerian\" (a displacement field on the grid, no "
                       "tetrahedra)");
    if (mesh.is_object())
      for (const char* key : {"max_tet_volume", "quality"})
        if (mesh.contains(key))
          (w / "mesh" / key).fail("makes no sense for \"representation\": \"eulerian\": the mesh is not "
                                  "tetrahedralized, it gives the solid's shape and output surface only");
  }
  for (const char* key : {"incompressible", "contact", "plasticity"})
    if (!eulerian && o.has(key))
      (w / key).fail("applies to \"representation\": \"eulerian\" only; this solid is lagrangian");
  o.get("incompressible", s.incompressible);
  if (o.has("contact")) {
    Object c(o.at("contact"), w / "contact");
    c.get("stiffness", s.contact.stiffness, non_negative_at_most(MAX_CONTACT_STIFFNESS, "N/m"));
    c.get("friction", s.contact.friction, non_negative_at_most(10, "(dimensionless)"));
    c.finish();
  }
  if (o.has("plasticity")) {
    Object p(o.at("plasticity"), w / "plasticity");
    Plasticity plasticity;
    p.require("yield", plasticity.yield, non_negative_at_most(MAX_YIELD_STRAIN, "(Hencky strain)"));
    p.get("flow", plasticity.flow, positive_at_most(1, "(share of the excess per step)"));
    p.finish();
    s.plasticity = plasticity;
  }
}

void read_eulerian_coupling(Object& c, const Where& cw, Coupling& coupling) {
  // The cut-cell solve's keys: the Eulerian step has its own solves
  // (coupling/eulerian) and no liquid block, solid block or partitioning, so
  // a value other than the default would be ignored. (The default is
  // accepted: it changes nothing, and scenes written back by to_json carry it.)
  if (coupling.scheme == Coupling::Scheme::eulerian) {
    const Coupling d;
    const Partitioned &p = coupling.partitioned, &dp = d.partitioned;
    const std::pair<const char*, bool> changed[] = {
        {"preconditioner", coupling.preconditioner != d.preconditioner},
        {"sigma", coupling.sigma != d.sigma},
        {"alpha", coupling.alpha_auto != d.alpha_auto || coupling.alpha != d.alpha},
        {"tolerance", coupling.tolerance != d.tolerance},
        {"allow_unconverged", coupling.allow_unconverged != d.allow_unconverged},
        {"partitioned", p.relaxation != dp.relaxation || p.tolerance != dp.tolerance ||
                            p.max_iterations != dp.max_iterations || p.recompute_geometry != dp.recompute_geometry ||
                            p.impulses != dp.impulses}};
    for (const auto& [key, differs] : changed)
      if (differs)
        (cw / key).fail("makes no sense with \"scheme\": \"eulerian\" (its solves take coupling/eulerian's "
                        "tolerances and coupling/max_iterations)");
  }
  if (!c.has("eulerian")) return;
  const Where ew = cw / "eulerian";
  if (coupling.scheme != Coupling::Scheme::eulerian)
    ew.fail(std::string("applies to \"scheme\": \"eulerian\" only; this scene's scheme is \"") +
            name_of(coupling.scheme) + "\"");
  Object e(c.at("eulerian"), ew);
  EulerianCoupling& eu = coupling.eulerian;
  e.get("pressure_tolerance", eu.pressure_tolerance, open_interval(0, 1));
  e.get("velocity_tolerance", eu.velocity_tolerance, open_interval(0, 1));
  eu.solver = read_enum(e, "solver", names<EulerianCoupling::Solver>(), false, EulerianCoupling::Solver::pcr);
  eu.integration = read_enum(e, "integration", names<EulerianCoupling::Integration>(), false,
                             EulerianCoupling::Integration::semi_implicit);
  e.get("contact_cfl", eu.contact_cfl, positive());
  e.finish();
}

void check_eulerian(const Scene& scene, const Where& root) {
  const bool scheme = scene.coupling.scheme == Coupling::Scheme::eulerian;
  const bool smoke = scene.fluid.kind == Fluid::Kind::smoke;
  if (smoke && !scene.fluid.regions.empty())
    (root / "fluid" / "regions").fail("liquid regions make no sense with \"kind\": \"smoke\" (the smoke fills the box)");
  for (const char* key : {"sources", "drains"}) {
    const bool used = std::string(key) == "sources" ? !scene.fluid.sources.empty() : !scene.fluid.drains.empty();
    if (used && (smoke || scheme))
      (root / "fluid" / key).fail("are liquid sources and drains; not implemented for smoke or \"coupling/scheme\": "
                                  "\"eulerian\" (smoke sources are \"fluid/smoke/sources\")");
  }
  if ((smoke || scheme) && std::find(scene.grid.open.begin(), scene.grid.open.end(), true) != scene.grid.open.end())
    (root / "grid" / "open").fail("open sides are implemented for liquids only, not for smoke or \"coupling/scheme\": "
                                  "\"eulerian\"");
  if (smoke && !scheme)
    (root / "fluid" / "kind").fail("\"smoke\" needs \"coupling\": { \"scheme\": \"eulerian\" } (smoke is the fluid of "
                                   "the Eulerian solids)");
  bool compressible = false, incompressible = false;
  for (std::size_t i = 0; i < scene.solids.size(); ++i) {
    const SolidDesc& s = scene.solids[i];
    const Where at = root / "solids" / i;
    const bool eulerian = s.representation == SolidDesc::Representation::eulerian;
    if (eulerian && !scheme)
      (at / "representation").fail(std::string("\"eulerian\" needs \"coupling\": { \"scheme\": \"eulerian\" }; this "
                                               "scene's scheme is \"") + name_of(scene.coupling.scheme) + "\"");
    if (!eulerian && scheme)
      (at / "representation").fail("is lagrangian; \"coupling/scheme\": \"eulerian\" steps Eulerian solids only "
                                   "(set \"representation\": \"eulerian\")");
    if (eulerian) (s.incompressible ? incompressible : compressible) = true;
    if (smoke && s.name == "smoke")
      (at / "name").fail("\"smoke\" is reserved for the smoke's output files in a scene with smoke");
    if (eulerian && !s.incompressible && smoke)
      (at / "incompressible").fail("false is not implemented with smoke: the smoke box constrains every cell");
  }
  if (compressible && incompressible)
    (root / "solids").fail("mixes incompressible and compressible Eulerian solids; not implemented (the step "
                           "constrains all solids or none)");
  if (!scheme) return;
  if (!scene.fluid.regions.empty())
    (root / "fluid" / "regions").fail("\"coupling/scheme\": \"eulerian\" has no liquid (the paper's fluid is smoke; "
                                      "set \"fluid/kind\": \"smoke\" or remove the regions)");
  if (!scene.obstacles.empty())
    (root / "obstacles").fail("not implemented with \"coupling/scheme\": \"eulerian\" (the box walls are its only "
                              "obstacles)");
  if (!scene.probes.empty())
    (root / "probes").fail("not implemented with \"coupling/scheme\": \"eulerian\"");
}

}  // namespace fsicut::scene
