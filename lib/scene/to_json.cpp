#include <cmath>

#include "lib/scene/json_reader.hpp"
#include "lib/scene/load.hpp"
#include "lib/scene/names.hpp"
#include "lib/scene/read.hpp"

// The inverse of read_scene: every key with its value, defaults included (run.json,
// the checkpoint's scene fingerprint). Keys added after checkpoints existed are
// written only when they differ from their default, so older fingerprints still match.
namespace fsicut::scene {
namespace {

json vec(const Vec3& v) { return json::array({v[0], v[1], v[2]}); }
json vec(const Vec3i& v) { return json::array({v[0], v[1], v[2]}); }

// Written only when present (a key added after checkpoints existed).
json motion_json(const Motion& m) {
  if (m.type == Motion::Type::sine)
    return {{"sine", {{"amplitude", vec(m.sine.amplitude)}, {"period", m.sine.period}, {"phase", m.sine.phase}}}};
  json keys = json::array();
  for (const Keyframe& k : m.keyframes)
    keys.push_back({{"time", k.time}, {"translate", vec(k.translate)}, {"rotate", vec(k.rotate)}});
  json j = {{"keyframes", keys}};
  if (m.pivot) j["pivot"] = vec(*m.pivot);
  return j;
}

json shape_json(const Shape& s, ShapeUse use) {
  json j;
  switch (s.type) {
    case Shape::Type::box: j = {{"type", name_of(s.type)}, {"min", vec(s.min)}, {"max", vec(s.max)}}; break;
    case Shape::Type::sphere: j = {{"type", name_of(s.type)}, {"center", vec(s.center)}, {"radius", s.radius}}; break;
    case Shape::Type::obj: j = {{"type", name_of(s.type)}, {"path", s.path}}; break;
  }
  if (use == FLUID_REGION || use == SOURCE) j["velocity"] = vec(s.velocity);
  if (use == OBSTACLE) j["inside_out"] = s.inside_out;
  if (use == SOURCE || use == DRAIN) {
    j["from"] = s.from;
    if (std::isfinite(s.until)) j["until"] = s.until;
  }
  if (s.motion) j["motion"] = motion_json(*s.motion);
  return j;
}

json mesh_json(const MeshDesc& m) {
  json j;
  switch (m.type) {
    case MeshDesc::Type::box:
      j = {{"type", name_of(m.type)}, {"min", vec(m.min)}, {"max", vec(m.max)}, {"cells", vec(m.cells)}};
      break;
    case MeshDesc::Type::sphere:
      j = {{"type", name_of(m.type)}, {"center", vec(m.center)}, {"radius", m.radius}, {"subdivisions", m.subdivisions}};
      break;
    case MeshDesc::Type::shell:
      j = {{"type", name_of(m.type)},           {"center", vec(m.center)},          {"outer_radius", m.outer_radius},
           {"inner_radius", m.inner_radius}, {"subdivisions", m.subdivisions}};
      break;
    case MeshDesc::Type::obj: j = {{"type", name_of(m.type)}, {"path", m.path}}; break;
  }
  if (m.type != MeshDesc::Type::box) {
    j["max_tet_volume"] = m.max_tet_volume;
    j["quality"] = m.quality;
  }
  j["transform"] = {{"translate", vec(m.transform.translate)},
                    {"rotate", vec(m.transform.rotate)},
                    {"scale", m.transform.scale}};
  return j;
}

json solid_json(const SolidDesc& d) {
  json sj = {{"name", d.name},
             {"mesh", mesh_json(d.mesh)},
             {"density", d.density},
             {"youngs_modulus", d.youngs_modulus},
             {"poisson_ratio", d.poisson_ratio},
             {"damping", {{"mass", d.damping.mass}, {"stiffness", d.damping.stiffness}}},
             {"velocity", vec(d.velocity)},
             {"pinned", json::array()},
             {"initial_scale", d.initial_scale}};
  for (const Shape& p : d.pinned) sj["pinned"].push_back(shape_json(p, PINNED));
  // Written only when not the default, so linear scenes' checkpoints keep their fingerprint.
  if (d.element == SolidDesc::Element::quadratic) sj["element"] = name_of(d.element);
  if (d.model == SolidDesc::Model::reduced) {
    sj["model"] = name_of(d.model);
    sj["modes"] = d.modes;
  }
  if (d.representation == SolidDesc::Representation::eulerian) {
    sj["representation"] = name_of(d.representation);
    sj["incompressible"] = d.incompressible;
    sj["contact"] = {{"stiffness", d.contact.stiffness}, {"friction", d.contact.friction}};
    // Written only when set, so elastic scenes' checkpoints keep their fingerprint.
    if (d.plasticity) sj["plasticity"] = {{"yield", d.plasticity->yield}, {"flow", d.plasticity->flow}};
    // Keys of the tetrahedral representation, which the loader refuses here.
    sj.erase("pinned");
    sj["mesh"].erase("max_tet_volume");
    sj["mesh"].erase("quality");
  }
  return sj;
}

json smoke_json(const Smoke& smoke) {
  json j = {{"buoyancy", smoke.buoyancy},
            {"vorticity_confinement", smoke.vorticity_confinement},
            {"sources", json::array()}};
  for (const SmokeSource& src : smoke.sources) {
    json sj = {{"min", vec(src.min)}, {"max", vec(src.max)}, {"density", src.density}};
    if (src.inflow) sj["velocity"] = vec(src.velocity);
    if (src.from != 0) sj["from"] = src.from;
    if (std::isfinite(src.until)) sj["until"] = src.until;
    j["sources"].push_back(sj);
  }
  return j;
}

}  // namespace

std::string to_json(const Scene& s) {
  json j;
  j["grid"] = {{"resolution", vec(s.grid.resolution)}, {"origin", vec(s.grid.origin)}, {"cell_size", s.grid.cell_size}};
  j["time"] = {{"fps", s.time.fps}, {"frames", s.time.frames}, {"cfl", s.time.cfl}, {"max_substeps", s.time.max_substeps}};
  if (s.time.particle_cfl > 0) j["time"]["particle_cfl"] = s.time.particle_cfl;
  j["gravity"] = vec(s.gravity);
  j["fluid"] = {{"density", s.fluid.density}, {"particles_per_cell", s.fluid.particles_per_cell},
                {"seed", s.fluid.seed}, {"density_correction", s.fluid.density_correction},
                {"regions", json::array()}};
  for (const Shape& r : s.fluid.regions) j["fluid"]["regions"].push_back(shape_json(r, FLUID_REGION));
  // Only a viscous liquid writes its viscosity: the inviscid scenes' checkpoints keep their fingerprint.
  if (s.fluid.viscosity > 0) j["fluid"]["viscosity"] = s.fluid.viscosity;
  // Sources, drains and open sides only where a scene has them: checkpoints
  // of the other scenes keep their fingerprint.
  for (const Shape& r : s.fluid.sources) j["fluid"]["sources"].push_back(shape_json(r, SOURCE));
  for (const Shape& r : s.fluid.drains) j["fluid"]["drains"].push_back(shape_json(r, DRAIN));
  for (int side = 0; side < 6; ++side)
    if (s.grid.open[side]) j["grid"]["open"].push_back(SIDE_NAMES[side]);
  // The eulerian scheme's keys only where they are used: checkpoints of the
  // other scenes keep their fingerprint.
  if (s.fluid.kind == Fluid::Kind::smoke) {
    j["fluid"]["kind"] = name_of(s.fluid.kind);
    j["fluid"]["smoke"] = smoke_json(s.fluid.smoke);
  }
  j["obstacles"] = json::array();
  for (const Shape& r : s.obstacles) j["obstacles"].push_back(shape_json(r, OBSTACLE));
  j["solids"] = json::array();
  for (const SolidDesc& d : s.solids) j["solids"].push_back(solid_json(d));
  j["coupling"] = {{"scheme", name_of(s.coupling.scheme)},
                   {"preconditioner", name_of(s.coupling.preconditioner)},
                   {"sigma", s.coupling.sigma},
                   {"tolerance", s.coupling.tolerance},
                   {"max_iterations", s.coupling.max_iterations},
                   {"allow_unconverged", s.coupling.allow_unconverged},
                   {"partitioned", {{"relaxation", s.coupling.partitioned.relaxation},
                                    {"tolerance", s.coupling.partitioned.tolerance},
                                    {"max_iterations", s.coupling.partitioned.max_iterations},
                                    {"recompute_geometry", s.coupling.partitioned.recompute_geometry}}}};
  // Only when not the default: checkpoints written before the key existed
  // fingerprint the scene without it and must keep resuming.
  if (s.coupling.partitioned.impulses == Partitioned::Impulses::conservative)
    j["coupling"]["partitioned"]["impulses"] = name_of(s.coupling.partitioned.impulses);
  j["coupling"]["alpha"] = s.coupling.alpha_auto ? json("auto") : json(s.coupling.alpha);
  if (s.coupling.scheme == Coupling::Scheme::eulerian) {
    const EulerianCoupling& e = s.coupling.eulerian;
    j["coupling"]["eulerian"] = {{"pressure_tolerance", e.pressure_tolerance},
                                 {"velocity_tolerance", e.velocity_tolerance},
                                 {"solver", name_of(e.solver)},
                                 {"integration", name_of(e.integration)}};
    // Only when set: checkpoints written before the key existed keep resuming.
    if (e.contact_cfl > 0) j["coupling"]["eulerian"]["contact_cfl"] = e.contact_cfl;
  }
  j["output"] = {{"directory", s.output.directory},
                 {"liquid", s.output.liquid},
                 {"solids", s.output.solids},
                 {"checkpoint_every", s.output.checkpoint_every},
                 {"checkpoint_keep", s.output.checkpoint_keep},
                 {"up_axis", name_of(s.output.up_axis)},
                 {"liquid_velocity", s.output.liquid_velocity},
                 {"liquid_particles", s.output.liquid_particles}};
  if (s.output.voxel_size) j["output"]["voxel_size"] = *s.output.voxel_size;
  // Only with probes: checkpoints of scenes without them keep their fingerprint.
  for (const Probe& p : s.probes) {
    json pj = {{"name", p.name}, {"type", name_of(p.type)}, {"position", vec(p.position)}};
    if (p.type == Probe::Type::gauge)
      pj["position"] = json::array({vec(p.position), vec(Vec3(p.position.x(), p.top, p.position.z()))});
    if (p.type == Probe::Type::point) pj["solid"] = p.solid;
    j["probes"].push_back(pj);
  }
  j["strict"] = s.strict;
  j["on_absurd"] = name_of(s.on_absurd);
  return j.dump(2);
}

}  // namespace fsicut::scene
