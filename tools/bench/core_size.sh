#!/usr/bin/env bash
# Prints the stripped size of the core runtime (platform + core + format +
# executor + loaders; no kernels, no backends): size_probe minus empty_main,
# both built MinSizeRel with section garbage collection in build/size.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake -S . -B build/size -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel \
  -DCMAKE_CXX_FLAGS="-ffunction-sections -fdata-sections" \
  -DEF_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build/size --target size_probe empty_main >/dev/null
strip -o build/size/size_probe.stripped build/size/test/size_probe
strip -o build/size/empty_main.stripped build/size/test/empty_main
probe=$(stat -c %s build/size/size_probe.stripped)
base=$(stat -c %s build/size/empty_main.stripped)
echo "core runtime (stripped, MinSizeRel): $((probe - base)) bytes" \
     "(size_probe $probe - empty_main $base)"
size -A build/size/size_probe.stripped | awk '$1==".text"{print "  .text of size_probe: " $2 " bytes"}'
