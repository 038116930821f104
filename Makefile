# Thin entry points; the real work lives in CMake, deploy/ and tools/.
#   make demo   set up, build, run the main job
#   make test   set up, build, run every test
#   make asan   the tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   make bench  our runtime vs the real ExecuTorch runtime, side by side
#   make fixtures  regenerate test/fixtures with the real exporter
#   make fuzz   every libFuzzer target for FUZZ_SECONDS each (fuzz/README.md)

PRESET ?= default
BUILD_DIR := build/$(PRESET)
JOBS ?= $(shell nproc)
DEMO_MODEL := test/fixtures/mobilenet_v2_035/model.pte
FUZZ_SECONDS ?= 60

.PHONY: deps configure build test asan demo bench fixtures fuzz clean

deps:
	@./deploy/install-deps.sh

configure: deps
	@cmake --preset $(PRESET) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

asan:
	@$(MAKE) --no-print-directory test PRESET=asan

demo: build
	@echo "== EdgeFleet demo: the emulator and fleet A/B driver are not built yet;"
	@echo "== running the EdgeFleet runtime on the embedded default model instead."
	@$(BUILD_DIR)/runtime/tools/edgefleet-run inspect $(DEMO_MODEL)
	@$(BUILD_DIR)/runtime/tools/edgefleet-run run $(DEMO_MODEL) \
	  --input test/fixtures/mobilenet_v2_035/input_0.npy --iterations 20 --warmup 3

bench: build
	@./tools/bench/run_bench.sh $(BUILD_DIR)

fixtures:
	@./tools/export/regenerate.sh

fuzz: deps
	@./fuzz/run_fuzzers.sh $(FUZZ_SECONDS)

clean:
	@rm -rf build
