// Where the time of a launch-bound SAXPY goes, timed as `mublas bench` times a
// call (CUDA events around it on the stream, synchronised, one call at a time):
// an empty kernel, a minimal float4 y += alpha·x on several block sizes, mublas's
// own single-pass kernel launched bare from a CUBIN (when one is given), cuBLAS
// and mublas. The modes' calls are interleaved, each with its own slot of a
// 2 GiB pool, so that none finds its inputs in the L2. Per mode: the 10th
// percentile, median and 90th percentile of the event-timed µs, the median
// host µs of the call itself in that loop, and host µs per call back to back.
//
// On the GPU machine (CUDA toolkit and cuBLAS there, mublas from the archive):
//   python3 scripts/nvrtc-ptx.py kernels/axpy.cu sm_90 > /tmp/axpy.cubin   # here, optional
//   nvcc -O2 -arch=sm_90 -o /tmp/launch-floor scripts/launch-floor.cu -lcublas -lcuda -ldl
//   /tmp/launch-floor dist/lib/libmublas.so N [/tmp/axpy.cubin]   # N: length, default 1024
#include <cuda.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

__global__ void empty_kernel() {}

__global__ void axpy_float4(float alpha, const float4* x, float4* y, int groups) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < groups) {
    float4 xv = x[i], yv = y[i];
    yv.x += alpha * xv.x;
    yv.y += alpha * xv.y;
    yv.z += alpha * xv.z;
    yv.w += alpha * xv.w;
    y[i] = yv;
  }
}

typedef int (*mublas_create_t)(void**);
typedef int (*mublas_saxpy_t)(void*, int, const float*, const float*, int, float*, int);

int main(int argc, char** argv) {
  const char* mublas_path = argc > 1 ? argv[1] : "dist/lib/libmublas.so";
  const int n = argc > 2 ? atoi(argv[2]) : 1024;
  const int slots = 1024;
  const size_t max_n = 262144;
  const size_t slot_floats = 2 * max_n;  // x, then y
  if (n <= 0 || n % 4 != 0 || n > (int)max_n) {
    fprintf(stderr, "n must be a positive multiple of 4, at most %zu\n", max_n);
    return 2;
  }
  cudaStream_t stream = 0;  // the legacy default stream, as the benchmark's
  float* pool;
  cudaMalloc(&pool, slots * slot_floats * sizeof(float));
  cudaMemset(pool, 0, slots * slot_floats * sizeof(float));
  auto x_at = [&](int i) { return pool + (size_t)(i % slots) * slot_floats; };
  auto y_at = [&](int i) { return pool + (size_t)(i % slots) * slot_floats + max_n; };
  const float alpha = 0.5f;

  cublasHandle_t cublas;
  cublasCreate(&cublas);
  void* mublas = nullptr;
  mublas_saxpy_t mublas_saxpy = nullptr;
  if (void* lib = dlopen(mublas_path, RTLD_NOW | RTLD_LOCAL)) {
    ((mublas_create_t)dlsym(lib, "mublasCreate"))(&mublas);
    mublas_saxpy = (mublas_saxpy_t)dlsym(lib, "mublasSaxpy");
  } else {
    printf("mublas not loaded: %s\n", dlerror());
  }

  std::vector<std::pair<std::string, std::function<void(int)>>> modes;
  modes.push_back({"empty kernel 1x32", [&](int) { empty_kernel<<<1, 32, 0, stream>>>(); }});
  for (int threads : {64, 128, 256, 512, 1024}) {
    int groups = n / 4, blocks = (groups + threads - 1) / threads;
    modes.push_back({"float4 axpy " + std::to_string(blocks) + "x" + std::to_string(threads), [=](int i) {
                       axpy_float4<<<blocks, threads, 0, stream>>>(alpha, (const float4*)x_at(i), (float4*)y_at(i),
                                                                   groups);
                     }});
  }
  // The single-pass kernel and the minimal one, both through cuLaunchKernel.
  CUmodule module;
  CUfunction single = nullptr, minimal;
  if (argc > 3 && cuModuleLoad(&module, argv[3]) == CUDA_SUCCESS)
    cuModuleGetFunction(&single, module, "axpy_f32_vec4_single");
  else if (argc > 3)
    printf("%s not loaded\n", argv[3]);
  cudaGetFuncBySymbol(&minimal, (const void*)axpy_float4);
  for (int threads : single ? std::vector<int>{128, 256} : std::vector<int>{}) {
    unsigned groups = n / 4, blocks = (groups + threads - 1) / threads;
    std::string shape = std::to_string(blocks) + "x" + std::to_string(threads);
    modes.push_back({"cuLaunch single " + shape, [=, &single](int i) {
                       // axpy_f32_vec4_single's parameters: aligned x and y, no head, no tail.
                       unsigned count = n, head = 0, g = groups;
                       float a = alpha;
                       const float *alpha_ptr = nullptr, *x = x_at(i);
                       float* y = y_at(i);
                       void* params[] = {&count, &head, &g, &a, &alpha_ptr, &x, &y};
                       cuLaunchKernel(single, blocks, 1, 1, threads, 1, 1, 0, (CUstream)stream, params, nullptr);
                     }});
    modes.push_back({"cuLaunch minimal " + shape, [=, &minimal](int i) {
                       int g = groups;
                       float a = alpha;
                       const float* x = x_at(i);
                       float* y = y_at(i);
                       void* params[] = {&a, &x, &y, &g};
                       cuLaunchKernel(minimal, blocks, 1, 1, threads, 1, 1, 0, (CUstream)stream, params, nullptr);
                     }});
  }
  modes.push_back({"cublasSaxpy", [&](int i) { cublasSaxpy(cublas, n, &alpha, x_at(i), 1, y_at(i), 1); }});
  if (mublas_saxpy) modes.push_back({"mublasSaxpy", [&](int i) { mublas_saxpy(mublas, n, &alpha, x_at(i), 1, y_at(i), 1); }});

  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  int call = 0;
  for (int w = 0; w < 50; ++w)
    for (auto& m : modes) m.second(call++);
  cudaDeviceSynchronize();
  const int reps = 400;
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
  printf("n = %d, event-timed µs over %d calls each, interleaved\n", n, reps);
  printf("%-24s %8s %8s %8s %10s %14s\n", "mode", "p10", "median", "p90", "call µs", "host µs/call");
  for (size_t k = 0; k < modes.size(); ++k) {
    auto v = us[k];
    std::sort(v.begin(), v.end());
    auto c = call_us[k];
    std::sort(c.begin(), c.end());
    double host = 1e30;  // the best of three rounds of 5000 calls back to back
    for (int round = 0; round < 3; ++round) {
      cudaDeviceSynchronize();
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 5000; ++i) modes[k].second(call++);
      auto t1 = std::chrono::steady_clock::now();
      host = std::min(host, std::chrono::duration<double, std::micro>(t1 - t0).count() / 5000);
    }
    cudaDeviceSynchronize();
    printf("%-24s %8.2f %8.2f %8.2f %10.2f %14.2f\n", modes[k].first.c_str(), v[v.size() / 10], v[v.size() / 2],
           v[v.size() * 9 / 10], c[c.size() / 2], host);
  }
  cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) {
    printf("CUDA error: %s\n", cudaGetErrorString(error));
    return 1;
  }
  return 0;
}
