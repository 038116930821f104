// edgefleet-loadtest: see cli.h.
#include <iostream>

#include "loadtest/tools/cli.h"

int main(int argc, char** argv) {
  return edgefleet::loadtest::RunCli(argc, argv, std::cout, std::cerr);
}
