# Helper functions for EdgeFleet targets.
#
# ef_cc_library(NAME <name> SRCS ... [HDRS ...] [DEPS ...] [PRIVATE_DEPS ...] [RUNTIME])
#   A static library. RUNTIME marks on-device runtime code: built with
#   -fno-exceptions -fno-rtti (docs/runtime.md: no exceptions, no RTTI in the runtime).
# ef_cc_binary(NAME <name> SRCS ... [DEPS ...])
# ef_cc_test(NAME <name> SRCS ... [DEPS ...] [LABELS ...] [PREFIX <prefix>]
#            [DEFINITIONS ...] [PROPERTIES <name> <value> ...])
#   A GoogleTest binary registered with ctest (test names get PREFIX); its
#   compile definitions, and further ctest properties of every test case
#   (e.g. FIXTURES_REQUIRED, TIMEOUT).

set(EF_WARNINGS -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers)
# The default preset (make test, so CI) builds with warnings as errors.
option(EF_WERROR "Treat compiler warnings in our targets as errors" OFF)
if(EF_WERROR)
  list(APPEND EF_WARNINGS -Werror)
endif()

function(ef_cc_library)
  cmake_parse_arguments(EF "RUNTIME" "NAME" "SRCS;HDRS;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${EF_NAME} STATIC ${EF_SRCS} ${EF_HDRS})
  target_include_directories(${EF_NAME} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${EF_NAME} PUBLIC ${EF_DEPS} PRIVATE ${EF_PRIVATE_DEPS})
  target_compile_options(${EF_NAME} PRIVATE ${EF_WARNINGS})
  if(EF_RUNTIME)
    target_compile_options(${EF_NAME} PRIVATE -fno-exceptions -fno-rtti)
  endif()
endfunction()

function(ef_cc_binary)
  cmake_parse_arguments(EF "" "NAME" "SRCS;DEPS" ${ARGN})
  add_executable(${EF_NAME} ${EF_SRCS})
  target_link_libraries(${EF_NAME} PRIVATE ${EF_DEPS})
  target_compile_options(${EF_NAME} PRIVATE ${EF_WARNINGS})
endfunction()

function(ef_cc_test)
  cmake_parse_arguments(EF "" "NAME;PREFIX" "SRCS;DEPS;LABELS;DEFINITIONS;PROPERTIES" ${ARGN})
  add_executable(${EF_NAME} ${EF_SRCS})
  target_link_libraries(${EF_NAME} PRIVATE ${EF_DEPS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${EF_NAME} PRIVATE ${EF_DEFINITIONS})
  target_compile_options(${EF_NAME} PRIVATE ${EF_WARNINGS})
  gtest_discover_tests(${EF_NAME}
    TEST_PREFIX "${EF_PREFIX}"
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    PROPERTIES LABELS "${EF_LABELS}" ${EF_PROPERTIES}
    DISCOVERY_TIMEOUT 60)
endfunction()
