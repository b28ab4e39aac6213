#include "lib/sim/output_folder.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/core/log.hpp"
#include "lib/core/parallel.hpp"
#include "lib/io/atomic.hpp"
#include "lib/sim/stats.hpp"

namespace fsicut::sim {

namespace fs = std::filesystem;

namespace {

// The frames up to `last` that a resumed run keeps without simulating them
// again, checked against the manifest by size and checksum (each file is read
// back once: FNV-1a runs at about 0.4 GB/s, 200 MB in 0.47 s, far less than
// simulating the frame took). Returns the files that are missing, of another
// size or another checksum (`damaged`) and those the manifest does not list
// (`unlisted`: written by an older fsicut, or the manifest was lost).
struct EarlierFrames {
  std::vector<std::string> damaged, unlisted;
};
EarlierFrames check_earlier_frames(const Simulator& sim, const fs::path& dir, const Manifest& manifest, int last) {
  EarlierFrames out;
  for (int frame = 0; frame <= last; ++frame)
    for (const std::string& name : sim.frame_file_names(frame)) {
      const auto recorded = manifest.find(name);
      if (recorded == manifest.end()) {
        out.unlisted.push_back(name);
        continue;
      }
      const std::optional<io::FileDigest> on_disk = io::digest_file(dir / name);
      if (!on_disk || *on_disk != recorded->second) out.damaged.push_back(name);
    }
  return out;
}

std::string list_names(const std::vector<std::string>& names) {
  constexpr std::size_t SHOWN = 10;
  std::string list;
  for (std::size_t i = 0; i < std::min(names.size(), SHOWN); ++i) list += (i ? ", " : "") + names[i];
  if (names.size() > SHOWN) list += " and " + std::to_string(names.size() - SHOWN) + " more";
  return list;
}

// Whether `name` is "<stem>.<4 or more digits><extension>".
bool is_numbered(const std::string& name, const std::string& stem, const std::string& extension) {
  if (name.size() < stem.size() + 1 + 4 + extension.size() || name.compare(0, stem.size() + 1, stem + ".") != 0 ||
      name.compare(name.size() - extension.size(), extension.size(), extension) != 0)
    return false;
  const std::string digits = name.substr(stem.size() + 1, name.size() - stem.size() - 1 - extension.size());
  return std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// A fresh run (not --resume) starts from an empty set of frames: it deletes
// the frame files of an earlier run in the folder, so a shorter run does not
// leave the longer run's later frames beside its own. Only names fsicut
// writes: `liquid.NNNN.vdb`, the numbered files this scene's frames write
// (`<solid>.NNNN.obj`, `smoke.NNNN.vdb`), and every file the earlier run's
// manifest lists (its solids may have had other names), then the manifest
// itself.
void remove_earlier_frames(const Simulator& sim, const fs::path& dir) {
  const Manifest earlier = read_manifest(dir);
  std::vector<std::pair<std::string, std::string>> ours = {{"liquid", ".vdb"}};
  const std::string frame_zero = numbered("", 0, "");  // ".0000"
  for (const std::string& name : sim.frame_file_names(0)) {
    const std::size_t at = name.rfind(frame_zero);
    if (at != std::string::npos) ours.emplace_back(name.substr(0, at), name.substr(at + frame_zero.size()));
  }
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    // A manifest entry counts only if it has the form of a frame file: a
    // damaged or hand-edited manifest must not delete anything else.
    const std::size_t dot = name.find('.');
    const bool frame_form = dot != std::string::npos && (is_numbered(name, name.substr(0, dot), ".obj") ||
                                                         is_numbered(name, name.substr(0, dot), ".vdb"));
    bool remove = earlier.count(name) > 0 && frame_form;
    for (const auto& [stem, extension] : ours) remove = remove || is_numbered(name, stem, extension);
    std::error_code ignored;
    if (remove && it->is_regular_file(ignored)) fs::remove(it->path(), ignored);
  }
  std::error_code ignored;
  fs::remove(dir / MANIFEST_FILE, ignored);
  fs::remove(dir / PROBES_FILE, ignored);
}


}  // namespace

Manifest read_manifest(const fs::path& dir) {
  Manifest manifest;
  std::ifstream in(dir / MANIFEST_FILE);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string name;
    io::FileDigest d;
    // A damaged line loses its entry, and its frame counts as unverified.
    if (std::getline(fields, name, '\t') && fields >> d.size >> std::hex >> d.fnv1a) manifest[name] = d;
  }
  return manifest;
}

void write_manifest(const fs::path& dir, const Manifest& manifest) {
  std::string text;
  char line[64];
  for (const auto& [name, d] : manifest) {
    std::snprintf(line, sizeof line, "\t%llu\t%016llx\n", static_cast<unsigned long long>(d.size),
                  static_cast<unsigned long long>(d.fnv1a));
    text += name + line;
  }
  io::write_text_atomically(dir / MANIFEST_FILE, text);
}

bool frame_verified(const FrameOutput& out, const fs::path& dir, const Manifest& manifest) {
  for (const std::string& name : file_names(out)) {
    const auto recorded = manifest.find(name);
    if (recorded == manifest.end()) return false;
    const std::optional<io::FileDigest> on_disk = io::digest_file(dir / name);
    if (!on_disk || *on_disk != recorded->second) return false;
  }
  return true;
}

void remove_stale_temporaries(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::size_t tag = name.rfind(".tmp-");
    if (name.empty() || name[0] != '.' || tag == std::string::npos) continue;
    const std::string rest = name.substr(tag + std::strlen(".tmp-"));
    const std::size_t dash = rest.find('-');
    constexpr std::size_t MAX_PID_DIGITS = 9;  // pid_t is 32-bit: longer is not our name
    if (dash == 0 || dash == std::string::npos || dash > MAX_PID_DIGITS ||
        !std::all_of(rest.begin(), rest.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '-'; }))
      continue;
    const pid_t pid = static_cast<pid_t>(std::stol(rest.substr(0, dash)));
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    std::error_code ignored;
    fs::remove(it->path(), ignored);
  }
}

void prepare_folder(const Simulator& sim, const fs::path& dir, const Manifest& manifest, bool resumed,
                    bool frame_pending) {
  if (resumed) {
    const int last = frame_pending ? sim.frame - 1 : sim.frame;
    const EarlierFrames earlier = check_earlier_frames(sim, dir, manifest, last);
    if (!earlier.damaged.empty())
      throw Error(ExitCode::data,
                  "cannot resume in " + dir.string() + ": frame files up to the checkpoint (frame " +
                      std::to_string(last) + ") are missing or differ from manifest.tsv (size or checksum): " +
                      list_names(earlier.damaged) +
                      "; they cannot be rewritten without simulating them again: restore them, or run without "
                      "--resume to regenerate every frame");
    if (!earlier.unlisted.empty())
      log::warn("frame files up to the checkpoint that manifest.tsv does not list are kept unverified: " +
                list_names(earlier.unlisted));
  } else {
    remove_earlier_frames(sim, dir);
  }
  io::write_text_atomically(dir / "run.json", run_record(sim.scene, threads()));
}

}  // namespace fsicut::sim
