// Baseline for size_probe: the C++ runtime startup with nothing linked.
int main() { return 0; }
