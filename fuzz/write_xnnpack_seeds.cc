// edgefleet-fuzz-xnnpack-seeds DIR PTE...: writes the XnnpackBackend
// payload of every delegate call in each .pte into DIR as
// <fixture>_<method>_<index>.bin (fixture = the .pte's directory name), for
// the committed corpora of the XNNPACK payload fuzz targets.

#include <cstdio>
#include <fstream>
#include <string>

#include "runtime/backends/xnnpack/xnnpack_backend.h"
#include "test/util/delegate_payloads.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: edgefleet-fuzz-xnnpack-seeds DIR PTE...\n");
    return 2;
  }
  int status = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string pte_path = argv[i];
    auto pte = edgefleet::test::LoadedPte::FromFile(pte_path);
    if (!pte.ok()) {
      fprintf(stderr, "%s: cannot load (%s)\n", argv[i], edgefleet::ErrorName(pte.error()));
      status = 1;
      continue;
    }
    auto payloads = pte.get()->Payloads(edgefleet::kXnnpackBackendId);
    if (!payloads.ok()) {
      fprintf(stderr, "%s: cannot read payloads\n", argv[i]);
      status = 1;
      continue;
    }
    std::string fixture = pte_path.substr(0, pte_path.find_last_of('/'));
    fixture = fixture.substr(fixture.find_last_of('/') + 1);
    for (const auto& p : payloads.get()) {
      const std::string path = std::string(argv[1]) + "/" + fixture + "_" + p.method + "_" +
                               std::to_string(p.index) + ".bin";
      std::ofstream out(path, std::ios::binary);
      out.write(reinterpret_cast<const char*>(p.bytes.data()),
                static_cast<std::streamsize>(p.bytes.size()));
      if (!out) {
        fprintf(stderr, "cannot write %s\n", path.c_str());
        status = 1;
        continue;
      }
      printf("%s (%zu bytes)\n", path.c_str(), p.bytes.size());
    }
  }
  return status;
}
