/* Loads the CUDA driver for the C tests: see cuda_driver.h. */
#define _POSIX_C_SOURCE 200809L

#include "cuda_driver.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cuda_driver cu;

/* dlsym returns a void *; copying its bytes into the function pointer is the
 * conversion POSIX guarantees, without the cast ISO C leaves undefined. */
static int resolve(void *library, const char *symbol, void *function_pointer, size_t size,
                   char *why, size_t why_size) {
    void *address = dlsym(library, symbol);
    if (address == NULL) {
        if (why != NULL) {
            snprintf(why, why_size, "libcuda.so.1 has no %s", symbol);
        }
        return -1;
    }
    memcpy(function_pointer, &address, size);
    return 0;
}

#define RESOLVE(field, symbol)                                                              \
    do {                                                                                    \
        if (resolve(library, symbol, &cu.field, sizeof cu.field, why, why_size) != 0) {     \
            return -1;                                                                      \
        }                                                                                   \
    } while (0)

int cuda_driver_open(char *why, size_t why_size) {
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *error = dlerror();
        snprintf(why, why_size, "dlopen(libcuda.so.1) failed: %s", error != NULL ? error : "unknown error");
        return -1;
    }
    /* Kept open for the life of the process: mublas uses the same driver. */
    RESOLVE(cuInit, "cuInit");
    RESOLVE(cuDeviceGetCount, "cuDeviceGetCount");
    RESOLVE(cuDeviceGet, "cuDeviceGet");
    RESOLVE(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    RESOLVE(cuCtxSetCurrent, "cuCtxSetCurrent");
    RESOLVE(cuCtxSynchronize, "cuCtxSynchronize");
    RESOLVE(cuMemAlloc, "cuMemAlloc_v2");
    RESOLVE(cuMemFree, "cuMemFree_v2");
    RESOLVE(cuMemcpyHtoD, "cuMemcpyHtoD_v2");
    RESOLVE(cuMemcpyDtoH, "cuMemcpyDtoH_v2");
    RESOLVE(cuStreamCreate, "cuStreamCreate");
    RESOLVE(cuStreamSynchronize, "cuStreamSynchronize");
    RESOLVE(cuStreamDestroy, "cuStreamDestroy_v2");
    if (resolve(library, "cuGetErrorName", &cu.cuGetErrorName, sizeof cu.cuGetErrorName, NULL, 0) != 0) {
        cu.cuGetErrorName = NULL;
    }
#define OPTIONAL(field, symbol) resolve(library, symbol, &cu.field, sizeof cu.field, NULL, 0)
    if (OPTIONAL(cuDevicePrimaryCtxReset, "cuDevicePrimaryCtxReset_v2") != 0) {
        cu.cuDevicePrimaryCtxReset = NULL;
    }
    if (OPTIONAL(cuStreamBeginCapture, "cuStreamBeginCapture_v2") != 0 ||
        OPTIONAL(cuStreamEndCapture, "cuStreamEndCapture") != 0 ||
        OPTIONAL(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags") != 0 ||
        OPTIONAL(cuGraphLaunch, "cuGraphLaunch") != 0 || OPTIONAL(cuGraphExecDestroy, "cuGraphExecDestroy") != 0 ||
        OPTIONAL(cuGraphDestroy, "cuGraphDestroy") != 0) {
        cu.cuStreamBeginCapture = NULL;
    }
#undef OPTIONAL

    CUresult result = cu.cuInit(0);
    if (result != CUDA_SUCCESS) {
        snprintf(why, why_size, "cuInit(0) failed: %s", cuda_driver_error_name(result));
        return -1;
    }
    int count = 0;
    result = cu.cuDeviceGetCount(&count);
    if (result != CUDA_SUCCESS) {
        snprintf(why, why_size, "cuDeviceGetCount failed: %s", cuda_driver_error_name(result));
        return -1;
    }
    if (count < 1) {
        snprintf(why, why_size, "the driver reports no CUDA device");
        return -1;
    }
    return 0;
}

int cuda_driver_use_device(int ordinal, char *why, size_t why_size) {
    CUdevice device = 0;
    CUresult result = cu.cuDeviceGet(&device, ordinal);
    if (result != CUDA_SUCCESS) {
        snprintf(why, why_size, "cuDeviceGet(%d) failed: %s", ordinal, cuda_driver_error_name(result));
        return -1;
    }
    CUcontext context = NULL;
    result = cu.cuDevicePrimaryCtxRetain(&context, device);
    if (result != CUDA_SUCCESS) {
        snprintf(why, why_size, "cuDevicePrimaryCtxRetain(device %d) failed: %s", ordinal,
                 cuda_driver_error_name(result));
        return -1;
    }
    result = cu.cuCtxSetCurrent(context);
    if (result != CUDA_SUCCESS) {
        snprintf(why, why_size, "cuCtxSetCurrent failed: %s", cuda_driver_error_name(result));
        return -1;
    }
    return 0;
}

const char *cuda_driver_error_name(CUresult result) {
    static char text[128];
    const char *name = NULL;
    if (cu.cuGetErrorName == NULL || cu.cuGetErrorName(result, &name) != CUDA_SUCCESS || name == NULL) {
        name = "CUDA error";
    }
    snprintf(text, sizeof text, "%s (%d)", name, result);
    return text;
}

void cuda_driver_fail(const char *call, const char *file, int line, CUresult result) {
    fprintf(stderr, "%s:%d: %s returned %s\n", file, line, call, cuda_driver_error_name(result));
    printf("FAIL: a CUDA driver call failed\n");
    fflush(stdout);
    exit(1);
}
