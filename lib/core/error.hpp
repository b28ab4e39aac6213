#pragma once
// The error hierarchy. The library throws these and never exits or prints;
// app/ exits with each error's code() (the exit codes of docs/reliability.md
// "Exit codes").
#include <stdexcept>
#include <string>

namespace fsicut {

// Exit codes (sysexits.h values), the public contract of the CLI.
enum class ExitCode : int {
  ok = 0,
  usage = 64,        // bad command line
  data = 65,         // invalid scene or mesh
  no_input = 66,     // missing input file
  software = 70,     // simulation failure (NaN, solver failure)
  cant_create = 73,  // cannot create output
  io = 74,           // error while writing output
  temp_fail = 75,    // interrupted, resumable
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

// An invalid scene value. `file` is the scene file, `pointer` the JSON pointer
// of the offending value (e.g. "/solids/0/density"); what() reads
// "<file>: <pointer>: <message>".
class SceneError : public Error {
 public:
  SceneError(const std::string& file, const std::string& pointer, const std::string& message)
      : Error(ExitCode::data, file + ": " + (pointer.empty() ? "(root)" : pointer) + ": " + message),
        file_(file), pointer_(pointer) {}
  // A malformed file: `location` is "<file>:<line>:<column>", no pointer exists yet.
  static constexpr struct Syntax {} syntax{};
  SceneError(Syntax, const std::string& message) : Error(ExitCode::data, message) {}

  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }

 private:
  std::string file_, pointer_;
};

// An invalid mesh: open, non-manifold, badly oriented, unreadable geometry.
// The message names the mesh file and the offending element.
class MeshError : public Error {
 public:
  explicit MeshError(const std::string& message) : Error(ExitCode::data, message) {}
};

// A required input file (scene, mesh) does not exist or cannot be read.
class MissingInputError : public Error {
 public:
  explicit MissingInputError(const std::string& message) : Error(ExitCode::no_input, message) {}
};

// The simulation cannot continue: NaN, a solver that failed to converge, a stage
// the scene needs that is not available.
class SimulationError : public Error {
 public:
  explicit SimulationError(const std::string& message) : Error(ExitCode::software, message) {}
};

// Output could not be created (73) or written (74).
class OutputError : public Error {
 public:
  OutputError(ExitCode code, const std::string& message) : Error(code, message) {}
};

}  // namespace fsicut
