// The Catch2 runner. The tests' trace cache (workloads/trace_cache.h) is the build's folder unless
// ACMESIM_CACHE_DIR says otherwise: never the user's.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>

int main(int argc, char* argv[]) {
  setenv("ACMESIM_CACHE_DIR", ACMESIM_TEST_CACHE_DIR, 0);
  return Catch::Session().run(argc, argv);
}
