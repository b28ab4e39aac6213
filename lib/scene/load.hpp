#pragma once
// Reading scene files (every key: scenes/README.md).
//
// Scene files are JSON with // and /* */ comments allowed. Parsing is strict:
// unknown keys are errors (with a "did you mean" suggestion), values are typed
// and range-checked, and every error is a SceneError whose message reads
//   <file>:<line>:<column>: syntax error: ...     (malformed JSON)
//   <file>: <JSON pointer>: <what is wrong>         (everything else)
// Missing keys take the defaults of scene.hpp. Relative paths (meshes, the
// output folder) are resolved against the scene file's folder.
#include <string>
#include <vector>

#include "lib/scene/scene.hpp"

namespace fsicut::scene {

// One `--set /pointer=value` override, applied to the JSON before validation.
// `value` is parsed as JSON when it is valid JSON (numbers, true, [1,2,3],
// "quoted"), and taken as a plain string otherwise (so --set /coupling/alpha=auto works).
struct Override {
  std::string pointer;
  std::string value;
};

// Parses "/pointer=value"; throws SceneError on a malformed argument.
Override parse_override(const std::string& argument);

// Reads, overrides and validates a scene file. Throws MissingInputError (the
// file cannot be read) or SceneError.
Scene load_scene(const std::string& path, const std::vector<Override>& overrides = {});

// The same from text; `file` names it in messages and `directory` anchors relative paths.
Scene parse_scene(const std::string& text, const std::string& file, const std::string& directory,
                  const std::vector<Override>& overrides = {});

// The fully resolved scene (every key, defaults filled in, absolute paths) as
// pretty-printed JSON: loading it again gives the same Scene. Used for run.json.
std::string to_json(const Scene& scene);

}  // namespace fsicut::scene
