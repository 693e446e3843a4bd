// Where the time of a launch-bound SGEMV goes (T 1024² above all), timed as
// `mublas bench` times a call (scripts/launch-timing.h): an empty kernel; the
// read floor (gemv_read_floor_f32, which reads A and nothing else) and the
// kernel the routine runs, each launched bare from a CUBIN of kernels/gemv.cu
// with cuLaunchKernel; cuBLAS; mublas. Each call takes its own slot (A, x, y)
// of a 2 GiB pool, so that none finds its inputs in the L2. So the difference
// between the bare kernel and mublas's call is mublas's host steps, and the
// one between the floor and the bare kernel the kernel's own.
//
// On the GPU machine (CUDA toolkit and cuBLAS there, mublas from the archive):
//   python3 scripts/nvrtc-ptx.py kernels/gemv.cu sm_90 > /tmp/gemv.cubin   # here
//   nvcc -O2 -arch=sm_90 -o /tmp/launch-floor-gemv scripts/launch-floor-gemv.cu -lcublas -lcuda -ldl
//   /tmp/launch-floor-gemv dist/lib/libmublas.so /tmp/gemv.cubin OP M N KERNEL TX TY BLOCKS
//   e.g. ... T 1024 1024 gemv_t_f32_paired 256 1 128   (the routine's launch: MUBLAS_LOG=debug shows it)
// The bare kernel runs unsplit (no counters or slots) and without dynamic shared memory: give only a
// launch the routine runs so (the paired T kernels; not the N kernels, which stage x or fold their rows).
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch-timing.h"

__global__ void empty_kernel() {}

__global__ void fill(float* p, size_t count) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
    p[i] = (float)((i * 2654435761u) % 1000u) * 1e-3f - 0.5f;
}

typedef int (*mublas_sgemv_t)(void*, int, int, int, const float*, const float*, int, const float*, int, const float*,
                              float*, int);

int main(int argc, char** argv) {
  if (argc < 10) {
    fprintf(stderr, "usage: %s LIBMUBLAS CUBIN N|T M N KERNEL TX TY BLOCKS\n", argv[0]);
    return 2;
  }
  const char *mublas_path = argv[1], *cubin = argv[2], *kernel_name = argv[6];
  const bool op_t = strcmp(argv[3], "T") == 0;
  const long long m = atoll(argv[4]), n = atoll(argv[5]);
  const unsigned tx = atoi(argv[7]), ty = atoi(argv[8]), blocks = atoi(argv[9]);
  if (m <= 0 || n <= 0 || (m * n) % 4 != 0) {
    fprintf(stderr, "m and n must be positive, m·n a multiple of 4\n");
    return 2;
  }
  // A slot: A (m·n floats), x and y (m + n floats between them), rounded up to 256 bytes.
  const size_t slot_floats = ((size_t)(m * n + m + n) + 63) / 64 * 64;
  const size_t pool_bytes = size_t(2) << 30;
  const int slots = (int)std::max<size_t>(4, pool_bytes / (slot_floats * sizeof(float)));
  float* pool;
  if (cudaMalloc(&pool, slots * slot_floats * sizeof(float)) != cudaSuccess) return 1;
  fill<<<1024, 256>>>(pool, slots * slot_floats);
  const long long x_len = op_t ? m : n;
  auto a_at = [&](int i) { return pool + (size_t)(i % slots) * slot_floats; };
  auto x_at = [&](int i) { return a_at(i) + m * n; };
  auto y_at = [&](int i) { return x_at(i) + x_len; };
  cudaStream_t stream = 0;  // the legacy default stream, as the benchmark's
  const float alpha = 1.0f, beta = 0.0f;

  cublasHandle_t cublas;
  cublasCreate(&cublas);
  void* mublas = nullptr;
  auto mublas_sgemv = (mublas_sgemv_t)mublas_entry(mublas_path, "mublasSgemv", &mublas);
  cuInit(0);
  CUmodule module;
  CUfunction floor_kernel, kernel;
  if (cuModuleLoad(&module, cubin) != CUDA_SUCCESS || cuModuleGetFunction(&floor_kernel, module, "gemv_read_floor_f32") ||
      cuModuleGetFunction(&kernel, module, kernel_name)) {
    fprintf(stderr, "%s or its kernels not loaded\n", cubin);
    return 1;
  }

  Modes modes;
  modes.push_back({"empty kernel 1x32", [&](int) { empty_kernel<<<1, 32, 0, stream>>>(); }});
  for (const auto& launch : std::vector<std::pair<unsigned, unsigned>>{{tx * ty, blocks}, {1024, 132}}) {
    const unsigned threads = launch.first, grid = launch.second;
    modes.push_back({"floor bare " + std::to_string(threads) + "x" + std::to_string(grid), [=, &floor_kernel](int i) {
                       long long n4 = m * n / 4;
                       const float* a = a_at(i);
                       float* sink = y_at(i);
                       void* params[] = {&n4, &a, &sink};
                       cuLaunchKernel(floor_kernel, grid, 1, 1, threads, 1, 1, 0, (CUstream)stream, params, nullptr);
                     }});
  }
  // GEMV_PARAMS in kernels/gemv.cu for slot i: unsplit (no counters or slots), alpha and beta by value. Laid
  // out as the kernel's parameters are, each at its own alignment, so that it is also the packed buffer below.
  struct GemvArgs {
    long long m, n;
    float alpha_value;
    const float* alpha_ptr;
    const float* a;
    long long lda;
    const float* x;
    long long incx;
    float beta_value;
    const float* beta_ptr;
    float* y;
    long long incy, per_split;
    void *counters, *split_slots;
  };
  auto args_at = [=](int i) {
    return GemvArgs{m, n, alpha, nullptr, a_at(i), m, x_at(i), 1, beta, nullptr, y_at(i), 1, op_t ? m : n, nullptr,
                    nullptr};
  };
  std::string shape = std::to_string(tx) + "x" + std::to_string(ty) + " grid " + std::to_string(blocks);
  modes.push_back({std::string(kernel_name).substr(0, 20) + " bare " + shape, [=, &kernel](int i) {
                     GemvArgs g = args_at(i);
                     void* params[] = {&g.m,    &g.n,          &g.alpha_value, &g.alpha_ptr, &g.a,
                                       &g.lda,  &g.x,          &g.incx,        &g.beta_value, &g.beta_ptr,
                                       &g.y,    &g.incy,       &g.per_split,   &g.counters,   &g.split_slots};
                     cuLaunchKernel(kernel, blocks, 1, 1, tx, ty, 1, 0, (CUstream)stream, params, nullptr);
                   }});
  // The same launch with its arguments packed into one buffer (cuLaunchKernel's `extra`). On an H100 it took
  // what the kernelParams launch takes (docs/performance.md, "T 1024² taken apart").
  modes.push_back({std::string(kernel_name).substr(0, 20) + " packed " + shape, [=, &kernel](int i) {
                     GemvArgs g = args_at(i);
                     size_t bytes = sizeof g;
                     void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &g, CU_LAUNCH_PARAM_BUFFER_SIZE, &bytes,
                                      CU_LAUNCH_PARAM_END};
                     cuLaunchKernel(kernel, blocks, 1, 1, tx, ty, 1, 0, (CUstream)stream, nullptr, extra);
                   }});
  const int trans = op_t ? 1 : 0;  // CUBLAS_OP_T, CUBLAS_OP_N: mublas's values are cuBLAS's
  modes.push_back({"cublasSgemv", [&](int i) {
                     cublasSgemv(cublas, (cublasOperation_t)trans, m, n, &alpha, a_at(i), m, x_at(i), 1, &beta, y_at(i), 1);
                   }});
  if (mublas_sgemv)
    modes.push_back({"mublasSgemv", [&](int i) {
                       mublas_sgemv(mublas, trans, m, n, &alpha, a_at(i), m, x_at(i), 1, &beta, y_at(i), 1);
                     }});
  printf("%s %lld x %lld, %d slots, ", op_t ? "T" : "N", m, n, slots);
  return time_modes(modes, stream, 400);
}
