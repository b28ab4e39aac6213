#pragma once
// One run per output folder. Two fsicut processes writing into one folder at
// once would mix their frames under one run.json; the second one must stop
// before it writes anything.
//
// How: an advisory lock (flock(2), exclusive, non-blocking) on the file
// `fsicut.lock` in the folder, held for the lifetime of the FolderLock. The
// file holds the pid of the run that holds the lock, for the message. The
// kernel drops the lock when the process ends in any way (exit, crash,
// SIGKILL), so a killed run never leaves a stale lock; the file itself stays.
// flock works on local file systems and on NFS (Linux emulates it with byte
// range locks there).
#include <filesystem>

namespace fsicut::io {

inline constexpr const char* LOCK_FILE_NAME = "fsicut.lock";

class FolderLock {
 public:
  // Locks `folder` (which must exist). Throws OutputError(cant_create = 73)
  // naming the folder and the other run's pid when another process holds the
  // lock, or naming the reason when the lock file cannot be created.
  explicit FolderLock(const std::filesystem::path& folder);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace fsicut::io
