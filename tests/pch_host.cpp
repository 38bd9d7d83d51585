// An empty test binary: it builds the precompiled header its kind of tests share
// (tests/CMakeLists.txt, ftroute_test_speedups).
