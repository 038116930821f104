// edgefleet-server: see service/server_main.h.

#include "service/server_main.h"

int main(int argc, char** argv) { return edgefleet::service::ServerMain(argc, argv); }
