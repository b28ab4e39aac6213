#include "lib/mesh/tetgen.hpp"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <tetgen.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>

#include "lib/core/error.hpp"
#include "lib/mesh/box.hpp"
#include "lib/mesh/check.hpp"

namespace fsicut::mesh {
namespace {

// A region is kept when the winding number of the surface around one of its
// tets is at least this: exactly 1 inside, 0 outside or in a cavity, up to
// round-off, so any threshold well inside (0, 1) separates them.
constexpr Real INSIDE_WINDING = 0.5;

// The solid angle of the whole sphere, 4 pi [sr].
constexpr Real FULL_SOLID_ANGLE = 4 * 3.14159265358979323846;

// Status word the child writes first: TetGen returned normally.
constexpr std::int32_t CHILD_OK = 0;

// What TetGen produced, copied out of its tetgenio.
struct TetgenOutput {
  std::vector<double> points;      // 3 per point
  std::vector<std::int32_t> tets;  // 4 per tet, 0-based
  std::vector<double> regions;     // one region attribute per tet, or empty
};

// TetGen's exit codes (terminatetetgen) in words.
std::string tetgen_reason(int code) {
  switch (code) {
    case 1: return "out of memory";
    case 2: return "internal error in TetGen";
    case 3: return "the surface intersects itself";
    case 4: return "the surface has a feature too small for TetGen's tolerance";
    case 5: return "two surface facets are too close to each other";
    case 10: return "TetGen rejected the input surface";
    default: return "TetGen failed with code " + std::to_string(code);
  }
}

// TetGen's messages, squeezed onto one line for the error message.
std::string one_line(const std::string& text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
    } else {
      if (space) out += ' ';
      out += c;
      space = false;
    }
  }
  return out;
}

// The TetGen switch string; numbers printed with round-trip precision.
std::string switches(const TetgenOptions& options) {
  // p: the input is a surface (PLC); z: number from 0; A: label the regions
  // bounded by the surface (to find cavities). Not Q: TetGen's progress lines
  // go to the child's log, and the lines it prints before giving up are the
  // only explanation it offers.
  std::ostringstream s;
  s.precision(17);
  s << "pzA";
  if (options.max_tet_volume > 0) {
    // a: the volume bound. Y (keep the input triangles) is left out: next to
    // large surface triangles TetGen could not honour the bound without
    // splitting them. TetGen's final mesh optimization (flips, smoothing)
    // stays on: without it (O0) the refinement leaves slivers, even flat tets
    // (quality 1e-15 in scenes/paper/fluid_in_sphere.json's shell). It does not
    // re-check the bound; split_oversized() restores it.
    s << "a" << options.max_tet_volume;
  } else {
    s << "Y";  // keep the input surface triangles as they are
  }
  if (options.quality > 0) s << "q" << options.quality;
  return s.str();
}

// The lines TetGen printed after its last progress line ("Recovering
// boundaries..."): its reason for giving up. Point lists "[i, j, k]" use
// TetGen's point numbers; they are rewritten as the mesh's 1-based vertex
// numbers (`used` maps TetGen points to mesh vertices).
std::string tetgen_complaint(const std::string& log, const std::vector<int>& used) {
  std::vector<std::string> lines;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    const auto last = line.find_last_not_of(" \t\r");
    if (last == std::string::npos) continue;
    line.resize(last + 1);
    if (line.size() >= 3 && line.compare(line.size() - 3, 3, "...") == 0)
      lines.clear();
    else
      lines.push_back(line);
  }
  std::string text;
  for (const std::string& l : lines) text += (text.empty() ? "" : " ") + l;
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::size_t close = text[i] == '[' ? text.find(']', i) : std::string::npos;
    if (close == std::string::npos) {
      out += text[i];
      continue;
    }
    std::istringstream numbers(text.substr(i + 1, close - i - 1));
    std::string mapped;
    bool ok = true;
    for (std::string token; ok && std::getline(numbers, token, ',');) {
      std::istringstream t(token);
      long v = -1;
      ok = static_cast<bool>(t >> v) && v >= 0 && v < static_cast<long>(used.size());
      if (ok) mapped += (mapped.empty() ? "" : ", ") + std::to_string(used[v] + 1);
    }
    out += ok ? "vertices (" + mapped + ")" : text.substr(i, close - i + 1);
    i = close;
    // TetGen follows a point list with its internal facet marker ("[1, 2] 7."),
    // which means nothing to the user: skip it.
    std::size_t j = i + 1;
    while (j < text.size() && text[j] == ' ') ++j;
    std::size_t k = j;
    while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]))) ++k;
    if (ok && k > j && (k == text.size() || text[k] == ' ' || text[k] == '.')) i = k - 1;
  }
  return one_line(out);
}

bool write_all(int fd, const void* data, std::size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = write(fd, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
  return true;
}

template <class T>
bool write_array(int fd, const T* data, std::int64_t count) {
  return write_all(fd, &count, sizeof count) && write_all(fd, data, sizeof(T) * count);
}

// Reads fixed-size records back from the child's byte stream.
class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}
  template <class T>
  bool read(T& value) {
    if (pos_ + sizeof(T) > bytes_.size()) return false;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  template <class T>
  bool read_array(std::vector<T>& values) {
    std::int64_t count = 0;
    if (!read(count) || count < 0 || pos_ + sizeof(T) * count > bytes_.size()) return false;
    values.resize(count);
    std::memcpy(values.data(), bytes_.data() + pos_, sizeof(T) * count);
    pos_ += sizeof(T) * count;
    return true;
  }

 private:
  const std::string& bytes_;
  std::size_t pos_ = 0;
};

// Reads `fd` to its end, for at most `limit_seconds` of wall time; sets
// `timed_out` (and returns what came so far) when the time is up.
std::string read_fd(int fd, double limit_seconds, bool& timed_out) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_seconds));
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd ready{fd, POLLIN, 0};
    const int polled = ::poll(&ready, 1, static_cast<int>(std::min<long long>(left, INT_MAX)));
    if (polled < 0 && errno == EINTR) continue;
    if (polled == 0) continue;
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

// The child's side: run TetGen, send the result (or its error code) down
// `result_fd`, and leave without running any of the parent's exit handlers.
[[noreturn]] void run_child(char* switches, tetgenio& in, int result_fd, int log_fd, pid_t parent) {
  // The child dies with fsicut: killed, interrupted or crashed, fsicut must
  // not leave an orphan TetGen behind growing its memory. The check after
  // prctl closes the window in which the parent died before it took effect.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(EXIT_FAILURE);
  // A crash must end the child with its signal, not run handlers inherited
  // from the parent (a test framework's, a crash reporter's).
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL}) std::signal(sig, SIG_DFL);
  // TetGen prints with printf; send that to the log file, unbuffered so that
  // the text survives if TetGen crashes right after printing it.
  dup2(log_fd, STDOUT_FILENO);
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  tetgenio out;
  std::int32_t status = CHILD_OK;
  try {
    ::tetrahedralize(switches, &in, &out);
  } catch (int code) {
    status = code;
  } catch (...) {
    status = 2;  // TetGen's "internal error"
  }
  bool ok = write_all(result_fd, &status, sizeof status);
  if (ok && status == CHILD_OK) {
    const std::int32_t first = out.firstnumber;
    ok = write_all(result_fd, &first, sizeof first) &&
         write_array(result_fd, out.pointlist, 3 * std::int64_t(out.numberofpoints));
    std::vector<std::int32_t> tets;
    if (out.numberofcorners == 4) tets.assign(out.tetrahedronlist, out.tetrahedronlist + 4 * out.numberoftetrahedra);
    std::vector<double> regions;
    const int na = out.numberoftetrahedronattributes;
    if (na > 0)
      for (int e = 0; e < out.numberoftetrahedra; ++e) regions.push_back(out.tetrahedronattributelist[e * na]);
    ok = ok && write_array(result_fd, tets.data(), std::int64_t(tets.size())) &&
         write_array(result_fd, regions.data(), std::int64_t(regions.size()));
  }
  _exit(ok ? 0 : 1);
}

// Runs TetGen in a child process. TetGen 1.5.0 (Debian's libtet) frees its
// mesh twice when it gives up on an input (terminatetetgen() frees it, then
// the unwinding destroys it again), which crashes the caller on every
// self-intersecting surface; in a child that crash is only an error message.
// The child also keeps TetGen's printf output away from our stdout.
TetgenOutput run_tetgen(const std::string& switches, tetgenio& in, const std::vector<int>& used,
                        const std::string& name, double time_limit_seconds) {
  const std::string prefix = name + ": cannot tetrahedralize: ";
  int result_pipe[2];
  std::FILE* log = std::tmpfile();
  if (!log || pipe(result_pipe) != 0) {
    if (log) std::fclose(log);
    throw MeshError(prefix + "cannot start TetGen: " + std::strerror(errno));
  }
  std::vector<char> sw(switches.begin(), switches.end());
  sw.push_back('\0');
  std::fflush(stdout);  // so the child does not inherit (and repeat) buffered output
  const pid_t parent = ::getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const int err = errno;
    close(result_pipe[0]);
    close(result_pipe[1]);
    std::fclose(log);
    throw MeshError(prefix + "cannot start TetGen: " + std::strerror(err));
  }
  if (pid == 0) {
    close(result_pipe[0]);
    run_child(sw.data(), in, result_pipe[1], fileno(log), parent);
  }
  close(result_pipe[1]);
  bool timed_out = false;
  const std::string bytes = read_fd(result_pipe[0], time_limit_seconds, timed_out);
  close(result_pipe[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    std::fclose(log);
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", time_limit_seconds);
    throw MeshError(prefix + "TetGen did not finish within " + limit +
                    " s and was stopped (a larger max_tet_volume, a quality bound nearer 2 or a simpler surface help)");
  }
  std::rewind(log);
  std::string said;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, log)) > 0;) said.append(buffer, n);
  std::fclose(log);
  said = tetgen_complaint(said, used);
  const std::string detail = said.empty() ? "" : " (TetGen: " + said + ")";

  Reader reader(bytes);
  std::int32_t status = -1;
  if (!reader.read(status)) {
    // A crash is TetGen giving up on the input (see above), most often
    // because the surface intersects itself; its own message says where.
    std::string why = "TetGen gave up on this surface";
    if (WIFSIGNALED(wstatus) && WTERMSIG(wstatus) != SIGSEGV)
      why = "TetGen was stopped by signal " + std::to_string(WTERMSIG(wstatus));
    else if (said.empty())
      why += " (does it intersect itself?)";
    throw MeshError(prefix + why + detail);
  }
  if (status != CHILD_OK) throw MeshError(prefix + tetgen_reason(status) + detail);
  std::int32_t first = 0;
  TetgenOutput result;
  if (!reader.read(first) || !reader.read_array(result.points) || !reader.read_array(result.tets) ||
      !reader.read_array(result.regions))
    throw MeshError(prefix + "lost TetGen's result" + detail);
  for (auto& v : result.tets) v -= first;
  return result;
}

// Generalized winding number of the oriented surface around p: the sum of the
// triangles' signed solid angles / 4 pi (Van Oosterom & Strackee 1983).
Real winding_number(const SurfaceMesh& s, const Vec3& p) {
  Real sum = 0;
  for (const Triangle& t : s.triangles) {
    const Vec3 a = s.vertices.col(t[0]) - p, b = s.vertices.col(t[1]) - p, c = s.vertices.col(t[2]) - p;
    const Real la = a.norm(), lb = b.norm(), lc = c.norm();
    sum += 2 * std::atan2(a.dot(b.cross(c)), la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb);
  }
  return sum / FULL_SOLID_ANGLE;
}

// Splits every tet larger than `bound` at its centroid into four, until none
// is: TetGen's optimization may leave a few tets up to ~25% above its bound.
// Conforming (the faces stay), and the new nodes go after the existing ones.
void split_oversized(TetMesh& mesh, Real bound) {
  // Not ++e after a split: tet e is then the first sub-tet, checked again.
  for (std::size_t e = 0; e < mesh.tets.size();) {
    const Tet t = mesh.tets[e];
    const Vec3 a = mesh.rest.col(t[0]), b = mesh.rest.col(t[1]), c = mesh.rest.col(t[2]), d = mesh.rest.col(t[3]);
    if (tet_volume(a, b, c, d) <= bound) {
      ++e;
      continue;
    }
    const int m = static_cast<int>(mesh.rest.cols());
    mesh.rest.conservativeResize(3, m + 1);
    mesh.rest.col(m) = (a + b + c + d) / 4;
    // Each sub-tet replaces one corner by the centroid: orientation kept.
    mesh.tets[e] = Tet(m, t[1], t[2], t[3]);
    mesh.tets.emplace_back(t[0], m, t[2], t[3]);
    mesh.tets.emplace_back(t[0], t[1], m, t[3]);
    mesh.tets.emplace_back(t[0], t[1], t[2], m);
  }
}

void check_input(const SurfaceMesh& surface, const TetgenOptions& options, const std::string& name) {
  if (surface.triangles.empty()) throw MeshError(name + ": mesh is empty: no faces");
  if (options.quality > 0 && options.quality < MIN_QUALITY) {
    std::ostringstream s;
    s << name << ": TetGen quality bound " << options.quality << " is below " << MIN_QUALITY
      << " (refinement would not terminate)";
    throw MeshError(s.str());
  }
  if (!(options.max_tet_volume >= 0) || !std::isfinite(options.max_tet_volume))
    throw MeshError(name + ": max_tet_volume must be a finite number >= 0");
  for (const Triangle& t : surface.triangles)
    for (int k = 0; k < 3; ++k)
      if (t[k] < 0 || t[k] >= surface.vertices.cols())
        throw MeshError(name + ": a face refers to a vertex that does not exist");
}

// TetGen's input: the vertices the triangles use (returned, in vertex order:
// TetGen would insert stray points too), the triangles as facets, the holes.
std::vector<int> fill_input(const SurfaceMesh& surface, const std::vector<Vec3>& holes, tetgenio& in) {
  std::vector<int> to_input(surface.vertices.cols(), -1);
  for (const Triangle& t : surface.triangles)
    for (int k = 0; k < 3; ++k) to_input[t[k]] = 0;
  std::vector<int> used;
  for (int j = 0; j < static_cast<int>(to_input.size()); ++j)
    if (to_input[j] == 0) {
      to_input[j] = static_cast<int>(used.size());
      used.push_back(j);
    }
  in.firstnumber = 0;  // `in` frees the arrays below (allocated with new[]) when destroyed
  in.numberofpoints = static_cast<int>(used.size());
  in.pointlist = new REAL[3 * used.size()];
  for (std::size_t i = 0; i < used.size(); ++i)
    for (int d = 0; d < 3; ++d) in.pointlist[3 * i + d] = surface.vertices(d, used[i]);
  in.numberoffacets = static_cast<int>(surface.triangles.size());
  in.facetlist = new tetgenio::facet[surface.triangles.size()];
  for (std::size_t f = 0; f < surface.triangles.size(); ++f) {
    tetgenio::facet& facet = in.facetlist[f];
    tetgenio::init(&facet);
    facet.numberofpolygons = 1;
    facet.polygonlist = new tetgenio::polygon[1];
    tetgenio::init(&facet.polygonlist[0]);
    facet.polygonlist[0].numberofvertices = 3;
    facet.polygonlist[0].vertexlist = new int[3];
    for (int k = 0; k < 3; ++k) facet.polygonlist[0].vertexlist[k] = to_input[surface.triangles[f][k]];
  }
  if (!holes.empty()) {
    in.numberofholes = static_cast<int>(holes.size());
    in.holelist = new REAL[3 * holes.size()];
    for (std::size_t h = 0; h < holes.size(); ++h)
      for (int d = 0; d < 3; ++d) in.holelist[3 * h + d] = holes[h][d];
  }
  return used;
}

Vec3 output_point(const TetgenOutput& o, Index i) { return Vec3(o.points[3 * i], o.points[3 * i + 1], o.points[3 * i + 2]); }

// TetGen's tets (TetGen's point numbers) less the cavities: regions of winding number 0.
std::vector<Tet> enclosed_tets(const TetgenOutput& out, const SurfaceMesh& surface, const std::string& name) {
  const Index n_points = static_cast<Index>(out.points.size() / 3);
  const Index n_tets = static_cast<Index>(out.tets.size() / 4);
  if (n_tets == 0) throw MeshError(name + ": cannot tetrahedralize: TetGen produced no tetrahedra");
  for (std::int32_t v : out.tets)
    if (v < 0 || v >= n_points) throw MeshError(name + ": cannot tetrahedralize: TetGen output is inconsistent");
  std::vector<char> keep(n_tets, 1);
  if (static_cast<Index>(out.regions.size()) == n_tets) {
    std::map<double, bool> inside;  // region attribute -> kept
    for (Index e = 0; e < n_tets; ++e) {
      auto it = inside.find(out.regions[e]);
      if (it == inside.end()) {
        Vec3 centroid = Vec3::Zero();
        for (int k = 0; k < 4; ++k) centroid += output_point(out, out.tets[4 * e + k]) / 4;
        it = inside.emplace(out.regions[e], winding_number(surface, centroid) >= INSIDE_WINDING).first;
      }
      keep[e] = it->second;
    }
  }
  std::vector<Tet> tets;
  for (Index e = 0; e < n_tets; ++e)
    if (keep[e]) tets.emplace_back(out.tets[4 * e], out.tets[4 * e + 1], out.tets[4 * e + 2], out.tets[4 * e + 3]);
  if (tets.empty()) throw MeshError(name + ": cannot tetrahedralize: the surface encloses no volume");
  return tets;
}

// The points the tets use, in TetGen's order (the input points first, in input
// order, then its Steiner points), and the tets positively oriented.
void compact_points(const TetgenOutput& out, TetMesh& mesh, const std::string& name) {
  const Index n_points = static_cast<Index>(out.points.size() / 3);
  std::vector<int> node(n_points, -1);
  for (const Tet& t : mesh.tets)
    for (int k = 0; k < 4; ++k) node[t[k]] = 0;
  int n_nodes = 0;
  for (Index i = 0; i < n_points; ++i)
    if (node[i] == 0) node[i] = n_nodes++;
  mesh.rest.resize(3, n_nodes);
  for (Index i = 0; i < n_points; ++i)
    if (node[i] >= 0) mesh.rest.col(node[i]) = output_point(out, i);
  for (Tet& t : mesh.tets) {
    for (int k = 0; k < 4; ++k) t[k] = node[t[k]];
    const Real v = tet_volume(mesh.rest.col(t[0]), mesh.rest.col(t[1]), mesh.rest.col(t[2]), mesh.rest.col(t[3]));
    if (v == 0) throw MeshError(name + ": cannot tetrahedralize: TetGen produced a flat tetrahedron");
    if (v < 0) std::swap(t[2], t[3]);
  }
}

void check_quality(const TetMesh& mesh, const std::string& name) {
  const WorstTet worst = worst_tet(mesh);
  if (worst.quality >= MIN_TET_QUALITY) return;
  const Tet& t = mesh.tets[worst.tet];
  const Vec3 at = (mesh.rest.col(t[0]) + mesh.rest.col(t[1]) + mesh.rest.col(t[2]) + mesh.rest.col(t[3])) / 4;
  std::ostringstream s;
  s << name << ": cannot tetrahedralize: TetGen produced a nearly flat tetrahedron at (" << at.x() << ", " << at.y()
    << ", " << at.z() << "), shape quality " << worst.quality << " (1 = regular, at least " << MIN_TET_QUALITY
    << " needed); the surface has nearly coincident or coplanar features there";
  throw MeshError(s.str());
}

}  // namespace

TetMesh tetrahedralize(const SurfaceMesh& surface, const TetgenOptions& options, const std::string& name,
                       const std::vector<Vec3>& holes) {
  check_input(surface, options, name);
  tetgenio in;
  const std::vector<int> used = fill_input(surface, holes, in);
  const TetgenOutput out = run_tetgen(switches(options), in, used, name, options.time_limit_seconds);
  TetMesh mesh;
  mesh.tets = enclosed_tets(out, surface, name);
  compact_points(out, mesh, name);
  if (options.max_tet_volume > 0) split_oversized(mesh, options.max_tet_volume);
  check_quality(mesh, name);
  mesh.boundary = extract_boundary(mesh.tets);
  return mesh;
}

}  // namespace fsicut::mesh
