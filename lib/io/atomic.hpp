#pragma once
// Atomic output files: a reader (a renderer polling the output folder, a script
// tailing a sweep, a resumed run) sees either the previous complete file or the
// new complete file, never a half-written one (docs/outputs.md "Files appear
// atomically").
//
// How: the content is written to a hidden temporary in the target's own folder
// (same file system, so the rename is atomic), the temporary is flushed to disk
// (fsync), renamed over the target (rename(2) replaces atomically), and the
// folder is flushed so the new name survives a crash.
//
// Errors are OutputError (lib/core/error.hpp). Every message names the target
// file and the operating system's reason (strerror):
//   - ExitCode::cant_create (73): the folder does not exist and cannot be
//     created, is not a folder, or does not let us create a file in it;
//   - ExitCode::io (74): writing, flushing or renaming failed (disk full, I/O
//     error, the target is a folder, ...), or the writer callback threw.
// On any error the temporary is removed and the target is left untouched.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace fsicut::io {

// Writes `target` atomically. `write` receives the path of an already created,
// empty temporary file in the target's folder, named `.<target name>.tmp-<pid>-<n>`
// (hidden, unique per process and call), and must write the complete content to
// that path (it may truncate and reopen it; it must close it before returning).
// The target's folder is created if needed.
//
// Exceptions thrown by `write`: an fsicut::Error (e.g. an OutputError with its
// own code, or a SimulationError for NaN data) propagates unchanged after the
// clean-up; any other std::exception becomes OutputError(io) naming the target
// and quoting what().
//
// Thread safety: concurrent calls for different targets are safe. Concurrent
// calls for the same target are safe too (each uses its own temporary); the last
// rename wins.
void write_atomically(const std::filesystem::path& target,
                      const std::function<void(const std::filesystem::path& temporary)>& write);

// What a reader checks a written file against: its length and a 64-bit
// FNV-1a hash of its bytes. Not cryptographic: it catches truncation and
// corruption, not tampering.
struct FileDigest {
  std::uint64_t size = 0;    // bytes
  std::uint64_t fnv1a = 0;   // FNV-1a 64 of the bytes
  bool operator==(const FileDigest& o) const { return size == o.size && fnv1a == o.fnv1a; }
  bool operator!=(const FileDigest& o) const { return !(*this == o); }
};

// The digest of `bytes`.
FileDigest digest_of(const std::string& bytes);

// The digest of the file at `path`, or nothing when it cannot be read.
std::optional<FileDigest> digest_file(const std::filesystem::path& path);

// write_atomically with `text` as the exact byte content of the file. Before
// the rename, the temporary's size on disk is checked against text.size(): a
// short file is never renamed into place. Returns the digest of what was written.
FileDigest write_text_atomically(const std::filesystem::path& target, const std::string& text);

// Makes sure `directory` exists (creating missing parents, like `mkdir -p`) and
// that files can be created in it. Throws OutputError(cant_create = 73) naming
// the folder and the reason otherwise (a parent is a regular file, permission
// denied, read-only file system, ...). Call it once before a run so a bad `-o`
// fails before any simulation time is spent.
void ensure_output_directory(const std::filesystem::path& directory);

// The path in double quotes, as messages name files.
std::string quote_path(const std::filesystem::path& path);

}  // namespace fsicut::io
