// edgefleet-run: run, time and inspect one .pte program (see cli.h).

#include <cstdio>

#include "runtime/tools/cli.h"

int main(int argc, char** argv) { return edgefleet::tools::RunCli(argc, argv, stdout, stderr); }
