// libFuzzer target for the scene loader (lib/scene/load.hpp), built with
// AddressSanitizer and UndefinedBehaviorSanitizer under -DFSICUT_LIBFUZZER=ON
// (clang only; docs/reliability.md says how to run it).
//
// Input: the bytes of a scene file. The contract under test: parse_scene
// either returns a scene or throws an fsicut::Error (a clear message with an
// exit code); any other exception, a sanitizer report, a crash or a hang is a
// finding. A scene it accepts must also survive its own round trip: the
// resolved scene (what run.json records, scene::to_json) loads again to the
// same resolved scene.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "lib/core/error.hpp"
#include "lib/scene/load.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string resolved;
  try {
    resolved = fsicut::scene::to_json(fsicut::scene::parse_scene(text, "fuzz.json", "/nonexistent"));
  } catch (const fsicut::Error&) {
    return 0;  // refused with a message: what the loader is for
  }
  // Any exception here is a finding too: the resolved scene must load.
  const std::string again = fsicut::scene::to_json(fsicut::scene::parse_scene(resolved, "run.json", "/nonexistent"));
  if (again != resolved) std::abort();
  return 0;
}
