#include "test/util/fixture_programs.h"

#include <dirent.h>

#include <algorithm>
#include <cstdio>

namespace edgefleet {
namespace testing {

std::vector<std::string> FixturePrograms() {
  std::vector<std::string> names;
  const std::string root = kFixtureDir;
  DIR* dir = opendir(root.c_str());
  if (dir == nullptr) return names;
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name[0] == '.') continue;
    for (const char* program : {"model.pte", "model_xnnpack.pte"}) {
      if (FILE* f = fopen((root + "/" + name + "/" + program).c_str(), "rb")) {
        fclose(f);
        names.push_back(name + "/" + program);
      }
    }
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace testing
}  // namespace edgefleet
