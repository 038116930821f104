# Thin entry points; the real work lives in CMake, deploy/ and tools/.
#   make demo   set up, build the server and the driver, run a fleet A/B
#   make test   set up, build, run every test
#   make asan   the tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   make tsan   the thread pools' and parallel kernels' tests under ThreadSanitizer
#   make bench  our runtime vs the real ExecuTorch runtime, side by side
#   make fixtures  regenerate test/fixtures with the real exporter
#   make models    export the model zoo into .cache/models (docs/zoo.md)
#   make fuzz   every libFuzzer target for FUZZ_SECONDS each in FUZZ_BUILD_DIR
#               (build/fuzz; fuzz/README.md)
#   make image        the container image (deploy/docker; skips without an engine)
#   make deploy-test  runs the image and checks it (skips without an engine)

PRESET ?= default
BUILD_DIR := build/$(PRESET)
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60
# Not BUILD_DIR: that is the preset's directory here, and make would export
# it over a BUILD_DIR given in the environment.
FUZZ_BUILD_DIR ?= build/fuzz

.PHONY: deps configure build test asan tsan demo bench fixtures models fuzz image deploy-test clean

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

tsan: deps
	@./tools/checks/tsan.sh

# Only the server and the driver (and their libraries): the first report
# does not wait for the test suite to compile.
demo: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target edgefleet-server edgefleet-loadtest
	@./loadtest/tools/demo.sh $(BUILD_DIR)

bench: build
	@./tools/bench/run_bench.sh $(BUILD_DIR)

fixtures:
	@./tools/export/regenerate.sh

models:
	@./tools/export/zoo/make_models.sh

fuzz: deps
	@BUILD_DIR="$(FUZZ_BUILD_DIR)" ./fuzz/run_fuzzers.sh $(FUZZ_SECONDS)

image:
	@./deploy/docker/build_image.sh

deploy-test:
	@./deploy/docker/deploy_test.sh

clean:
	@rm -rf build
