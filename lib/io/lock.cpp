#include "lib/io/lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "lib/core/error.hpp"
#include "lib/io/atomic.hpp"

namespace fsicut::io {

namespace {

constexpr mode_t LOCK_FILE_MODE = 0666;
// "pid\n" of a 32-bit pid_t, with room to spare.
constexpr std::size_t PID_TEXT_SIZE = 32;

// The pid the holder wrote into the lock file, or "unknown".
std::string holder_pid(int fd) {
  char text[PID_TEXT_SIZE] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  std::string pid;
  for (ssize_t i = 0; i < n && text[i] >= '0' && text[i] <= '9'; ++i) pid += text[i];
  return pid.empty() ? "unknown" : pid;
}

}  // namespace

FolderLock::FolderLock(const std::filesystem::path& folder) {
  const std::filesystem::path file = folder / LOCK_FILE_NAME;
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, LOCK_FILE_MODE);
  if (fd_ < 0) {
    const int error_number = errno;
    throw OutputError(ExitCode::cant_create,
                      "cannot lock output folder " + quote_path(folder) + ": " + std::strerror(error_number));
  }
  int rc;
  do rc = ::flock(fd_, LOCK_EX | LOCK_NB);
  while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int error_number = errno;
    const std::string pid = holder_pid(fd_);
    ::close(fd_);
    fd_ = -1;
    if (error_number == EWOULDBLOCK)
      throw OutputError(ExitCode::cant_create,
                        "output folder " + quote_path(folder) + " is in use by another fsicut run (pid " + pid +
                            "); wait for it to end or choose another folder with -o");
    throw OutputError(ExitCode::cant_create,
                      "cannot lock output folder " + quote_path(folder) + ": " + std::strerror(error_number));
  }
  // The pid is only for the message of a run that finds the folder busy: a
  // failure to record it does not make the lock less of a lock.
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] const ssize_t written = ::pwrite(fd_, pid.data(), pid.size(), 0);
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace fsicut::io
