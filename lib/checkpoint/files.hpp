#pragma once
// Checkpoint files in an output folder: `checkpoint.NNNN.bin`, NNNN the last
// completed frame (at least 4 digits), each written atomically
// (io::write_text_atomically), only the newest `keep` kept.
#include <filesystem>
#include <string>
#include <vector>

#include "lib/checkpoint/snapshot.hpp"

namespace fsicut::checkpoint {

// `folder`/checkpoint.NNNN.bin.
std::filesystem::path file_name(const std::filesystem::path& folder, int frame);

// Writes `snapshot` (format.hpp), whose last completed frame is `frame`, as
// file_name(folder, frame), atomically, then deletes all but the `keep` (at
// least 1) newest checkpoints; the one just written is always kept. Returns
// its path. Throws OutputError (73/74) like every output.
std::filesystem::path write(const std::filesystem::path& folder, int frame, const Snapshot& snapshot, int keep);

// Checkpoint files in `folder`, newest (highest frame number) first.
std::vector<std::filesystem::path> list(const std::filesystem::path& folder);

// The whole file; throws CorruptError when it cannot be read.
std::string read_bytes(const std::filesystem::path& file);

// Deletes `files`; a file that cannot be deleted is left (a stale checkpoint
// costs disk space, not correctness).
void remove_files(const std::vector<std::filesystem::path>& files);

// Deletes every checkpoint in `folder` (a fresh run: they belong to the run
// whose outputs it overwrites, and a later --resume must not pick them).
void remove_all(const std::filesystem::path& folder);

}  // namespace fsicut::checkpoint
