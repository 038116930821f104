#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: $CC, $CXX, $CFLAGS and $CXXFLAGS carry the
# sanitizer and -fsanitize=fuzzer-no-link; fuzz targets link
# $LIB_FUZZING_ENGINE (fuzz/CMakeLists.txt's EF_FUZZ_ENGINE). The runtime is
# built without RTTI, which UBSan's vptr and function checks need.
# EF_BUILD_SERVICE=ON for request_decode_fuzzer and config_fuzzer (protobuf,
# gRPC and the other service deps come from the Dockerfile, uninstrumented);
# only the fuzz targets and the libraries they link are built.
export CXXFLAGS="$CXXFLAGS -fno-sanitize=vptr,function"
TARGETS=(program_load_fuzzer method_execute_fuzzer program_mutation_fuzzer npy_fuzzer
         request_decode_fuzzer config_fuzzer)

cmake -S "$SRC/edgefleet" -B "$WORK/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DEF_BUILD_TESTS=OFF -DEF_BUILD_BENCHMARKS=OFF -DEF_BUILD_SERVICE=ON \
  -DEF_FUZZ_ENGINE="$LIB_FUZZING_ENGINE"
cmake --build "$WORK/build" --target "${TARGETS[@]}"

for target in "${TARGETS[@]}"; do
  cp "$WORK/build/fuzz/$target" "$OUT/"
  # Seeds: the committed corpus plus every past finding.
  (cd "$SRC/edgefleet/fuzz" && zip -q -r -j "$OUT/${target}_seed_corpus.zip" \
     "corpus/$target" "regressions/$target")
  case $target in
    npy_fuzzer) dict=npy.dict max_len=16384 ;;
    request_decode_fuzzer) dict=request.dict max_len=16384 ;;
    config_fuzzer) dict=config.dict max_len=8192 ;;
    *) dict=pte.dict max_len=65536 ;;
  esac
  cp "$SRC/edgefleet/fuzz/dictionaries/$dict" "$OUT/$target.dict"
  printf '[libfuzzer]\nmax_len = %s\n' "$max_len" > "$OUT/$target.options"
done
