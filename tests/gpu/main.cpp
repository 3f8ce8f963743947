// Entry point of gauge's GPU tests. Without a usable CUDA device it prints why and exits with 77,
// which CTest (SKIP_RETURN_CODE 77) reports as skipped: GPU tests never pass without a GPU.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

int main(int argc, char* argv[]) {
  bool listing = false;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--list", 6) == 0) listing = true;
  if (!listing) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      std::printf("SKIPPED: no usable CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
      return 77;
    }
  }
  return Catch::Session().run(argc, argv);
}
