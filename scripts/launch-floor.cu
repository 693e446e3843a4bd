// Where the time of a launch-bound SAXPY goes, timed as `mublas bench` times a
// call (CUDA events around it on the stream, synchronised, one call at a time):
// an empty kernel, a minimal float4 y += alpha·x on several block sizes, mublas's
// own single-pass kernel launched bare from a CUBIN (when one is given), cuBLAS
// and mublas, each call with its own slot of a 2 GiB pool, so that none finds
// its inputs in the L2 (scripts/launch-timing.h times and prints them).
//
// On the GPU machine (CUDA toolkit and cuBLAS there, mublas from the archive):
//   python3 scripts/nvrtc-ptx.py kernels/axpy.cu sm_90 > /tmp/axpy.cubin   # here, optional
//   nvcc -O2 -arch=sm_90 -o /tmp/launch-floor scripts/launch-floor.cu -lcublas -lcuda -ldl
//   /tmp/launch-floor dist/lib/libmublas.so N [/tmp/axpy.cubin]   # N: length, default 1024
#include <cuda.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "launch-timing.h"

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
  auto mublas_saxpy = (mublas_saxpy_t)mublas_entry(mublas_path, "mublasSaxpy", &mublas);

  Modes modes;
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

  printf("n = %d, ", n);
  return time_modes(modes, stream, 400);
}
