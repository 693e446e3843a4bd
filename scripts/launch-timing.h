// What scripts/launch-floor.cu and scripts/launch-floor-gemv.cu share: mublas
// loaded beside the program's cuBLAS, and the timing loop:
// each mode's call timed as `mublas bench` times one (CUDA events around it on
// the stream, synchronised, one call at a time), the modes' calls interleaved,
// each call given its own index so that it can take its own slot of a pool
// larger than the L2. Per mode: the 10th percentile, median and 90th
// percentile of the event-timed µs, the median host µs of the call itself in
// that loop, and host µs per call back to back (the best of three rounds).
#pragma once
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

// mublas from `path`: a handle created into *handle and `symbol` looked up; null where the library is not loaded.
inline void* mublas_entry(const char* path, const char* symbol, void** handle) {
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    printf("mublas not loaded: %s\n", dlerror());
    return nullptr;
  }
  ((int (*)(void**))dlsym(lib, "mublasCreate"))(handle);
  return dlsym(lib, symbol);
}

using Modes = std::vector<std::pair<std::string, std::function<void(int)>>>;

inline int time_modes(const Modes& modes, cudaStream_t stream, int reps) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  int call = 0;
  for (int w = 0; w < 50; ++w)
    for (auto& m : modes) m.second(call++);
  cudaDeviceSynchronize();
  std::vector<std::vector<double>> us(modes.size()), call_us(modes.size());
  for (int r = 0; r < reps; ++r)
    for (size_t k = 0; k < modes.size(); ++k) {
      cudaEventRecord(start, stream);
      auto h0 = std::chrono::steady_clock::now();
      modes[k].second(call++);
      call_us[k].push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - h0).count());
      cudaEventRecord(stop, stream);
      cudaEventSynchronize(stop);
      float ms;
      cudaEventElapsedTime(&ms, start, stop);
      us[k].push_back(ms * 1e3);
    }
  printf("event-timed µs over %d calls each, interleaved\n", reps);
  printf("%-32s %8s %8s %8s %10s %14s\n", "mode", "p10", "median", "p90", "call µs", "host µs/call");
  for (size_t k = 0; k < modes.size(); ++k) {
    auto v = us[k];
    std::sort(v.begin(), v.end());
    auto c = call_us[k];
    std::sort(c.begin(), c.end());
    double host = 1e30;
    for (int round = 0; round < 3; ++round) {
      cudaDeviceSynchronize();
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 5000; ++i) modes[k].second(call++);
      auto t1 = std::chrono::steady_clock::now();
      host = std::min(host, std::chrono::duration<double, std::micro>(t1 - t0).count() / 5000);
    }
    cudaDeviceSynchronize();
    printf("%-32s %8.2f %8.2f %8.2f %10.2f %14.2f\n", modes[k].first.c_str(), v[v.size() / 10], v[v.size() / 2],
           v[v.size() * 9 / 10], c[c.size() / 2], host);
  }
  cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) {
    printf("CUDA error: %s\n", cudaGetErrorString(error));
    return 1;
  }
  return 0;
}
