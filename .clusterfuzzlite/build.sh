#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: $CC, $CXX, $CFLAGS and $CXXFLAGS carry the
# sanitizer and -fsanitize=fuzzer-no-link; fuzz targets link
# $LIB_FUZZING_ENGINE (fuzz/CMakeLists.txt's EF_FUZZ_ENGINE). The runtime is
# built without RTTI, which UBSan's vptr and function checks need.
export CXXFLAGS="$CXXFLAGS -fno-sanitize=vptr,function"
TARGETS=(program_load_fuzzer method_execute_fuzzer program_mutation_fuzzer npy_fuzzer)

cmake -S "$SRC/edgefleet" -B "$WORK/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DEF_BUILD_TESTS=OFF -DEF_BUILD_BENCHMARKS=OFF -DEF_BUILD_SERVICE=OFF \
  -DEF_FUZZ_ENGINE="$LIB_FUZZING_ENGINE"
cmake --build "$WORK/build" --target "${TARGETS[@]}"

for target in "${TARGETS[@]}"; do
  cp "$WORK/build/fuzz/$target" "$OUT/"
  # Seeds: the committed corpus plus every past finding.
  (cd "$SRC/edgefleet/fuzz" && zip -q -r -j "$OUT/${target}_seed_corpus.zip" \
     "corpus/$target" "regressions/$target")
  if [ "$target" = npy_fuzzer ]; then
    cp "$SRC/edgefleet/fuzz/dictionaries/npy.dict" "$OUT/$target.dict"
    max_len=16384
  else
    cp "$SRC/edgefleet/fuzz/dictionaries/pte.dict" "$OUT/$target.dict"
    max_len=65536
  fi
  printf '[libfuzzer]\nmax_len = %s\n' "$max_len" > "$OUT/$target.options"
done
