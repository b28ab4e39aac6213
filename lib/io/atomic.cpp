#include "lib/io/atomic.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/core/hash.hpp"

namespace fsicut::io {
namespace fs = std::filesystem;

namespace {

// How many temporary names to try when one already exists. A clash only
// happens when a crashed earlier process with the same pid left its temporary
// behind; a few retries with the next counter value always get past it.
constexpr int MAX_TEMPORARY_NAME_ATTEMPTS = 16;

// Mode of new output files before the umask: ordinary rw-r--r-- style files.
constexpr mode_t OUTPUT_FILE_MODE = 0666;

std::atomic<unsigned long> temporary_counter{0};

std::string os_reason(int error_number) { return std::strerror(error_number); }

// errno values that mean "this folder does not let us create a file", as
// opposed to a failure while writing (disk full, I/O error).
bool is_cant_create_errno(int error_number) {
  return error_number == EACCES || error_number == EPERM || error_number == EROFS ||
         error_number == ENOENT || error_number == ENOTDIR;
}

fs::path folder_of(const fs::path& target) {
  const fs::path parent = target.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

// Creates `folder` if needed. Messages start with `prefix` (naming the target
// file, or empty) so the user knows which output failed.
void create_folder(const fs::path& folder, const std::string& prefix) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec)
    throw OutputError(ExitCode::cant_create,
                      prefix + "cannot create folder " + quote_path(folder) + ": " + ec.message());
  if (!fs::is_directory(folder, ec))
    throw OutputError(ExitCode::cant_create,
                      prefix + quote_path(folder) + " exists but is not a folder");
}

// Creates an empty, unique, hidden temporary next to `target` and returns its path.
fs::path create_temporary(const fs::path& target) {
  const fs::path folder = folder_of(target);
  const std::string prefix =
      "." + target.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-";
  int last_errno = EEXIST;
  for (int attempt = 0; attempt < MAX_TEMPORARY_NAME_ATTEMPTS; ++attempt) {
    const fs::path temporary = folder / (prefix + std::to_string(temporary_counter++));
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                          OUTPUT_FILE_MODE);
    if (fd >= 0) {
      if (::close(fd) != 0) {
        const int error_number = errno;
        ::unlink(temporary.c_str());
        throw OutputError(ExitCode::io, "cannot write " + quote_path(target) +
                                            ": closing a new temporary failed: " +
                                            os_reason(error_number));
      }
      return temporary;
    }
    last_errno = errno;
    if (last_errno != EEXIST) break;
  }
  const ExitCode code = is_cant_create_errno(last_errno) ? ExitCode::cant_create : ExitCode::io;
  throw OutputError(code, "cannot write " + quote_path(target) + ": cannot create a file in " +
                              quote_path(folder) + ": " + os_reason(last_errno));
}

// fsync(2) on a path. Returns 0 or the errno of the first failing call.
int sync_path(const fs::path& path, int open_flags) {
  const int fd = ::open(path.c_str(), open_flags | O_CLOEXEC);
  if (fd < 0) return errno;
  int error_number = 0;
  if (::fsync(fd) != 0) error_number = errno;
  if (::close(fd) != 0 && error_number == 0) error_number = errno;
  return error_number;
}

// Removes the temporary unless the rename consumed it.
class TemporaryGuard {
 public:
  explicit TemporaryGuard(fs::path path) : path_(std::move(path)) {}
  ~TemporaryGuard() {
    if (!released_) ::unlink(path_.c_str());
  }
  TemporaryGuard(const TemporaryGuard&) = delete;
  TemporaryGuard& operator=(const TemporaryGuard&) = delete;
  void release() { released_ = true; }

 private:
  fs::path path_;
  bool released_ = false;
};

// Writes all of `text` to `path` (truncating it), reporting failures for `target`.
void write_all(const fs::path& path, const std::string& text, const fs::path& target) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) {
    const int error_number = errno;
    throw OutputError(ExitCode::io, "cannot write " + quote_path(target) + ": " + os_reason(error_number));
  }
  const char* data = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      const int error_number = errno;
      // A signal arriving mid-write is not a failure: write the rest.
      if (error_number == EINTR) continue;
      ::close(fd);
      throw OutputError(ExitCode::io, "cannot write " + quote_path(target) + ": " + os_reason(error_number));
    }
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  // write(2) said every byte went out; the size the file system reports is
  // the independent check that no layer in between (FUSE, network mounts)
  // dropped any before the file is renamed into place.
  struct stat info {};
  if (::fstat(fd, &info) != 0 || static_cast<std::uint64_t>(info.st_size) != text.size()) {
    ::close(fd);
    throw OutputError(ExitCode::io, "cannot write " + quote_path(target) + ": the file holds " +
                                        std::to_string(static_cast<long long>(info.st_size)) + " of " +
                                        std::to_string(text.size()) + " bytes after writing");
  }
  if (::close(fd) != 0) {
    const int error_number = errno;
    throw OutputError(ExitCode::io, "cannot write " + quote_path(target) + ": " + os_reason(error_number));
  }
}

}  // namespace

std::string quote_path(const std::filesystem::path& path) { return "\"" + path.string() + "\""; }

void write_atomically(const fs::path& target,
                      const std::function<void(const fs::path& temporary)>& write) {
  const fs::path folder = folder_of(target);
  create_folder(folder, "cannot write " + quote_path(target) + ": ");

  const fs::path temporary = create_temporary(target);
  TemporaryGuard guard(temporary);

  try {
    write(temporary);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw OutputError(ExitCode::io, "cannot write " + quote_path(target) + ": " + e.what());
  }

  if (const int error_number = sync_path(temporary, O_RDONLY))
    throw OutputError(ExitCode::io, "cannot write " + quote_path(target) +
                                        ": flushing to disk failed: " + os_reason(error_number));

  if (::rename(temporary.c_str(), target.c_str()) != 0) {
    const int error_number = errno;
    throw OutputError(ExitCode::io, "cannot write " + quote_path(target) +
                                        ": renaming the temporary over it failed: " +
                                        os_reason(error_number));
  }
  guard.release();

  // Flush the folder so the new name survives a crash. Some file systems
  // (certain network and FUSE mounts) do not support fsync on a folder and say
  // EINVAL/ENOTSUP: the rename has happened and is as durable as they allow,
  // so that is not an error.
  const int error_number = sync_path(folder, O_RDONLY | O_DIRECTORY);
  if (error_number != 0 && error_number != EINVAL && error_number != ENOTSUP)
    throw OutputError(ExitCode::io, "cannot write " + quote_path(target) +
                                        ": flushing folder " + quote_path(folder) +
                                        " failed: " + os_reason(error_number));
}

namespace {

void add_bytes(FileDigest& d, const char* data, std::size_t size) {
  d.fnv1a = fnv1a(data, size, d.fnv1a);
  d.size += size;
}

}  // namespace

FileDigest digest_of(const std::string& bytes) {
  FileDigest d{0, FNV_OFFSET};
  add_bytes(d, bytes.data(), bytes.size());
  return d;
}

std::optional<FileDigest> digest_file(const fs::path& path) {
  // In chunks: a resumed run checks every earlier frame, and a frame's VDB
  // may be larger than the memory one should spend on checking it.
  constexpr std::size_t CHUNK = 1 << 20;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  FileDigest d{0, FNV_OFFSET};
  std::vector<char> buffer(CHUNK);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    add_bytes(d, buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return std::nullopt;
  return d;
}

FileDigest write_text_atomically(const fs::path& target, const std::string& text) {
  write_atomically(target, [&](const fs::path& temporary) { write_all(temporary, text, target); });
  return digest_of(text);
}

void ensure_output_directory(const fs::path& directory) {
  const fs::path folder = directory.empty() ? fs::path(".") : directory;
  create_folder(folder, "");
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    const int error_number = errno;
    throw OutputError(ExitCode::cant_create, "output folder " + quote_path(folder) +
                                                 " is not writable: " + os_reason(error_number));
  }
}

}  // namespace fsicut::io
