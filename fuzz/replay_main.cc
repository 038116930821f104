// Replay main: links with a fuzz target's LLVMFuzzerTestOneInput when the
// compiler has no libFuzzer (GCC) or when a plain regression runner is
// wanted. Runs the target once on every file named on the command line and
// on every regular file inside every directory named (recursively), in
// sorted order; hidden files and arguments starting with '-' (libFuzzer
// flags) are skipped, missing directories are reported and skipped. A bug
// shows up as a crash or sanitizer report in the failing input's run; the
// name of each input is printed before it runs when EF_REPLAY_VERBOSE is set.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

namespace fs = std::filesystem;

bool Hidden(const fs::path& p) { return p.filename().string().rfind('.', 0) == 0; }

void Collect(const fs::path& root, std::vector<fs::path>* files) {
  std::error_code ec;
  if (fs::is_regular_file(root, ec)) {
    files->push_back(root);
    return;
  }
  if (!fs::is_directory(root, ec)) {
    fprintf(stderr, "replay: %s does not exist, skipped\n", root.c_str());
    return;
  }
  for (const auto& entry : fs::recursive_directory_iterator(root, ec)) {
    if (entry.is_regular_file() && !Hidden(entry.path())) files->push_back(entry.path());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') continue;
    Collect(argv[i], &files);
  }
  std::sort(files.begin(), files.end());
  const bool verbose = getenv("EF_REPLAY_VERBOSE") != nullptr;
  for (const fs::path& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    if (verbose) fprintf(stderr, "replay: %s (%zu bytes)\n", path.c_str(), bytes.size());
    // A copy of exactly the file's size, so ASan catches reads past the end.
    std::vector<uint8_t> exact(bytes.begin(), bytes.end());
    exact.shrink_to_fit();
    static const uint8_t kEmpty = 0;  // libFuzzer never passes null
    LLVMFuzzerTestOneInput(exact.empty() ? &kEmpty : exact.data(), exact.size());
  }
  printf("replay: %zu inputs ran without a crash\n", files.size());
  return 0;
}
