/*
 * The few CUDA driver API calls the C tests need (device memory, streams, the
 * primary context), loaded at run time from libcuda.so.1 with dlopen, so that
 * the tests build without a CUDA toolkit and run, skipping, without a driver.
 *
 * The prototypes are those of cuda.h (CUDA 12), written with plain C types:
 * CUresult is an int (CUDA_SUCCESS is 0), CUdevice an int, CUdeviceptr an
 * unsigned long long, contexts and streams opaque pointers. CUstream is
 * `struct CUstream_st *`, the type mublas.h uses for streams.
 */
#ifndef MUBLAS_TEST_CUDA_DRIVER_H
#define MUBLAS_TEST_CUDA_DRIVER_H

#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;

#define CUDA_SUCCESS 0
#define CU_STREAM_CAPTURE_MODE_GLOBAL 0

/* Entry points, named as cuda.h's macros resolve them (cuMemAlloc → cuMemAlloc_v2 …). */
struct cuda_driver {
    CUresult (*cuInit)(unsigned int flags);
    CUresult (*cuDeviceGetCount)(int *count);
    CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *pctx, CUdevice dev);
    CUresult (*cuCtxSetCurrent)(CUcontext ctx);
    CUresult (*cuCtxSynchronize)(void);
    CUresult (*cuMemAlloc)(CUdeviceptr *dptr, size_t bytesize);               /* cuMemAlloc_v2 */
    CUresult (*cuMemFree)(CUdeviceptr dptr);                                   /* cuMemFree_v2 */
    CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes); /* cuMemcpyHtoD_v2 */
    CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);       /* cuMemcpyDtoH_v2 */
    CUresult (*cuStreamCreate)(CUstream *phStream, unsigned int flags);
    CUresult (*cuStreamSynchronize)(CUstream hStream);
    CUresult (*cuStreamDestroy)(CUstream hStream);                             /* cuStreamDestroy_v2 */
    /* Optional (NULL when absent): for messages only. */
    CUresult (*cuGetErrorName)(CUresult error, const char **pStr);
    /* Optional (NULL when absent): what cudaDeviceReset does to the primary context. */
    CUresult (*cuDevicePrimaryCtxReset)(CUdevice dev);                         /* cuDevicePrimaryCtxReset_v2 */
    /* Optional (all NULL when one is absent): capturing calls into a CUDA graph. */
    CUresult (*cuStreamBeginCapture)(CUstream hStream, int mode);               /* cuStreamBeginCapture_v2 */
    CUresult (*cuStreamEndCapture)(CUstream hStream, CUgraph *phGraph);
    CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags);
    CUresult (*cuGraphLaunch)(CUgraphExec hGraphExec, CUstream hStream);
    CUresult (*cuGraphExecDestroy)(CUgraphExec hGraphExec);
    CUresult (*cuGraphDestroy)(CUgraph hGraph);
};

/* The resolved entry points; valid after cuda_driver_open returned 0. */
extern struct cuda_driver cu;

/*
 * Loads libcuda.so.1, resolves the entry points, runs cuInit(0) and checks that
 * there is at least one device. Returns 0 when all that worked; otherwise -1,
 * with a one-line reason in `why` (e.g. "dlopen(libcuda.so.1) failed: ...").
 */
int cuda_driver_open(char *why, size_t why_size);

/*
 * Makes the primary context of device `ordinal` current on the calling thread,
 * as the CUDA runtime does on first use. Returns 0 or -1 with a reason in `why`.
 */
int cuda_driver_use_device(int ordinal, char *why, size_t why_size);

/* "CUDA_ERROR_X (code)" for a driver result, for messages. */
const char *cuda_driver_error_name(CUresult result);

/*
 * Checks a driver call; on failure prints the call, the file and line and the
 * error, and exits with status 1 (a test failure, never a skip).
 */
#define CU_CHECK(call)                                                                     \
    do {                                                                                   \
        CUresult cu_check_result_ = (call);                                                \
        if (cu_check_result_ != CUDA_SUCCESS) {                                            \
            cuda_driver_fail(#call, __FILE__, __LINE__, cu_check_result_);                 \
        }                                                                                  \
    } while (0)

void cuda_driver_fail(const char *call, const char *file, int line, CUresult result);

#endif /* MUBLAS_TEST_CUDA_DRIVER_H */
