// edgefleet-fuzz-seeds DIR: writes the ProgramBuilder seed programs
// (seed_programs.h) into DIR as <name>.pte, for the committed corpora.

#include <cstdio>
#include <fstream>
#include <string>

#include "fuzz/seed_programs.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: edgefleet-fuzz-seeds DIR\n");
    return 2;
  }
  for (const auto& seed : edgefleet::fuzz::BuildSeedPrograms()) {
    const std::string path = std::string(argv[1]) + "/" + seed.name + ".pte";
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(seed.bytes.data()), seed.bytes.size());
    if (!out) {
      fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
    printf("%s (%zu bytes)\n", path.c_str(), seed.bytes.size());
  }
  return 0;
}
