/*
 * mublasCreate and the handle API through the public header.
 *
 * Without a GPU (no libcuda.so.1, or the driver reports no device):
 * mublasCreate must return MUBLAS_STATUS_NOT_INITIALIZED and write nothing.
 * With one: create on device 0's primary context, the pointer mode and stream
 * round trips and their bad values, destroy.
 */
#include <mublas.h>
#include "check.h"

#include "cuda_driver.h"

#include <stdio.h>

static const char *gpu_part = "GPU part run on device 0";

static int finish(void) {
    if (failures != 0) {
        printf("FAIL: test_create: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("PASS: test_create: %d checks (%s)\n", checks, gpu_part);
    return 0;
}

static void without_gpu(const char *why) {
    mublasHandle_t handle = (mublasHandle_t)&checks; /* a sentinel: must not be overwritten */
    CHECK_STATUS(mublasCreate(&handle), MUBLAS_STATUS_NOT_INITIALIZED);
    CHECK(handle == (mublasHandle_t)&checks, "mublasCreate wrote the handle although it failed");
    printf("  checked mublasCreate without a GPU -> NOT_INITIALIZED, handle untouched\n");
    printf("SKIPPED GPU part: no CUDA device (%s)\n", why);
    gpu_part = "GPU part skipped: no CUDA device";
}

static void with_gpu(void) {
    char why[512];
    if (cuda_driver_use_device(0, why, sizeof why) != 0) {
        CHECK(0, "cannot make device 0's primary context current: %s", why);
        return;
    }
    mublasHandle_t handle = NULL;
    CHECK_STATUS(mublasCreate(&handle), MUBLAS_STATUS_SUCCESS);
    if (handle == NULL) {
        CHECK(0, "mublasCreate gave no handle");
        return;
    }
    printf("  checked mublasCreate on device 0's primary context\n");

    /* Pointer mode: host by default, round trips, rejects anything else. */
    mublasPointerMode_t mode = -1;
    CHECK_STATUS(mublasGetPointerMode(handle, &mode), MUBLAS_STATUS_SUCCESS);
    CHECK(mode == MUBLAS_POINTER_MODE_HOST, "a new handle's pointer mode is %d, expected HOST", mode);
    CHECK_STATUS(mublasSetPointerMode(handle, MUBLAS_POINTER_MODE_DEVICE), MUBLAS_STATUS_SUCCESS);
    CHECK_STATUS(mublasGetPointerMode(handle, &mode), MUBLAS_STATUS_SUCCESS);
    CHECK(mode == MUBLAS_POINTER_MODE_DEVICE, "pointer mode is %d after setting DEVICE", mode);
    CHECK_STATUS(mublasSetPointerMode(handle, 2), MUBLAS_STATUS_INVALID_VALUE);
    CHECK_STATUS(mublasSetPointerMode(handle, -1), MUBLAS_STATUS_INVALID_VALUE);
    CHECK_STATUS(mublasGetPointerMode(handle, &mode), MUBLAS_STATUS_SUCCESS);
    CHECK(mode == MUBLAS_POINTER_MODE_DEVICE, "a rejected mode changed the pointer mode to %d", mode);
    CHECK_STATUS(mublasSetPointerMode(handle, MUBLAS_POINTER_MODE_HOST), MUBLAS_STATUS_SUCCESS);
    CHECK_STATUS(mublasGetPointerMode(handle, &mode), MUBLAS_STATUS_SUCCESS);
    CHECK(mode == MUBLAS_POINTER_MODE_HOST, "pointer mode is %d after setting HOST", mode);
    CHECK_STATUS(mublasGetPointerMode(handle, NULL), MUBLAS_STATUS_INVALID_VALUE);
    printf("  checked Set/GetPointerMode round trips; mode 2 and -1 -> INVALID_VALUE\n");

    /* Stream: the legacy default (NULL) at first, a created one, NULL again. */
    struct CUstream_st *stream = (struct CUstream_st *)&checks;
    CHECK_STATUS(mublasGetStream(handle, &stream), MUBLAS_STATUS_SUCCESS);
    CHECK(stream == NULL, "a new handle's stream is %p, expected NULL", (void *)stream);
    CUstream created = NULL;
    CU_CHECK(cu.cuStreamCreate(&created, 0));
    CHECK_STATUS(mublasSetStream(handle, created), MUBLAS_STATUS_SUCCESS);
    CHECK_STATUS(mublasGetStream(handle, &stream), MUBLAS_STATUS_SUCCESS);
    CHECK(stream == created, "stream is %p after setting %p", (void *)stream, (void *)created);
    CHECK_STATUS(mublasSetStream(handle, NULL), MUBLAS_STATUS_SUCCESS);
    CHECK_STATUS(mublasGetStream(handle, &stream), MUBLAS_STATUS_SUCCESS);
    CHECK(stream == NULL, "stream is %p after setting NULL", (void *)stream);
    CHECK_STATUS(mublasGetStream(handle, NULL), MUBLAS_STATUS_INVALID_VALUE);
    printf("  checked Set/GetStream round trips (created stream, NULL); GetStream(h, NULL) -> INVALID_VALUE\n");

    /* Bad arguments on a live handle. */
    int version = 0;
    CHECK_STATUS(mublasGetVersion(handle, &version), MUBLAS_STATUS_SUCCESS);
    CHECK(version == MUBLAS_VERSION, "version %d through a handle", version);

    CHECK_STATUS(mublasDestroy(handle), MUBLAS_STATUS_SUCCESS);
    CU_CHECK(cu.cuStreamDestroy(created));
    printf("  checked mublasDestroy -> SUCCESS\n");

    /* A second handle on the same device, after the first is gone. */
    handle = NULL;
    CHECK_STATUS(mublasCreate(&handle), MUBLAS_STATUS_SUCCESS);
    if (handle != NULL) {
        CHECK_STATUS(mublasDestroy(handle), MUBLAS_STATUS_SUCCESS);
    }
    printf("  checked create/destroy a second time\n");
}

int main(void) {
    printf("test_create: mublasCreate, pointer modes, streams, mublasDestroy\n");
    char why[512];
    if (cuda_driver_open(why, sizeof why) != 0) {
        without_gpu(why);
    } else {
        with_gpu();
    }
    return finish();
}
