/*
 * The C ABI paths that need no GPU, through the public header only: status
 * names and strings (cuBLAS's text with the MUBLAS_ prefix), the enumeration
 * values, the version, and the null-handle and null-argument checks.
 */
#include <mublas.h>
#include "check.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>


/* cuBLAS's names and descriptions (cublas-abi.md), with our prefix. */
static const struct {
    int code;
    const char *name;
    const char *string;
} known[] = {
    {0, "MUBLAS_STATUS_SUCCESS", "success"},
    {1, "MUBLAS_STATUS_NOT_INITIALIZED", "the library was not initialized"},
    {3, "MUBLAS_STATUS_ALLOC_FAILED", "the resource allocation failed"},
    {7, "MUBLAS_STATUS_INVALID_VALUE", "an unsupported value or parameter was passed to the function"},
    {8, "MUBLAS_STATUS_ARCH_MISMATCH", "the function requires an architectural feature absent from the device"},
    {11, "MUBLAS_STATUS_MAPPING_ERROR", "an access to GPU memory space failed"},
    {13, "MUBLAS_STATUS_EXECUTION_FAILED", "the function failed to launch on the GPU"},
    {14, "MUBLAS_STATUS_INTERNAL_ERROR", "an internal operation failed"},
    {15, "MUBLAS_STATUS_NOT_SUPPORTED", "the requested functionality is not supported"},
    {16, "MUBLAS_STATUS_LICENSE_ERROR", "the license check failed"},
};
#define KNOWN_COUNT ((int)(sizeof known / sizeof known[0]))

static const char *text_or_null(const char *s) { return s != NULL ? s : "(null)"; }

static void check_status_text(int code) {
    const char *name = mublasGetStatusName(code);
    const char *string = mublasGetStatusString(code);
    const char *want_name = "MUBLAS_STATUS_UNKNOWN";
    const char *want_string = "unrecognized status";
    for (int i = 0; i < KNOWN_COUNT; i++) {
        if (known[i].code == code) {
            want_name = known[i].name;
            want_string = known[i].string;
        }
    }
    CHECK(name != NULL && strcmp(name, want_name) == 0, "mublasGetStatusName(%d) = \"%s\", expected \"%s\"", code,
          text_or_null(name), want_name);
    CHECK(string != NULL && strcmp(string, want_string) == 0, "mublasGetStatusString(%d) = \"%s\", expected \"%s\"",
          code, text_or_null(string), want_string);
    /* The same static text every time: callers may keep the pointer. */
    CHECK(mublasGetStatusName(code) == name, "mublasGetStatusName(%d) is not stable", code);
    CHECK(mublasGetStatusString(code) == string, "mublasGetStatusString(%d) is not stable", code);
}

int main(void) {
    printf("test_status: status names and strings, enum values, version, null handles (no GPU needed)\n");

    /* Status names and strings, known codes and every other code around them. */
    for (int code = -3; code <= 20; code++) {
        check_status_text(code);
    }
    check_status_text(INT_MIN);
    check_status_text(INT_MAX);
    check_status_text(1000);
    printf("  checked status names and strings for codes -3..20, 1000, INT_MIN, INT_MAX\n");

    /* Enumeration values: cuBLAS's (cublas_api.h). */
    CHECK(MUBLAS_STATUS_SUCCESS == 0, "SUCCESS");
    CHECK(MUBLAS_STATUS_NOT_INITIALIZED == 1, "NOT_INITIALIZED");
    CHECK(MUBLAS_STATUS_ALLOC_FAILED == 3, "ALLOC_FAILED");
    CHECK(MUBLAS_STATUS_INVALID_VALUE == 7, "INVALID_VALUE");
    CHECK(MUBLAS_STATUS_ARCH_MISMATCH == 8, "ARCH_MISMATCH");
    CHECK(MUBLAS_STATUS_MAPPING_ERROR == 11, "MAPPING_ERROR");
    CHECK(MUBLAS_STATUS_EXECUTION_FAILED == 13, "EXECUTION_FAILED");
    CHECK(MUBLAS_STATUS_INTERNAL_ERROR == 14, "INTERNAL_ERROR");
    CHECK(MUBLAS_STATUS_NOT_SUPPORTED == 15, "NOT_SUPPORTED");
    CHECK(MUBLAS_STATUS_LICENSE_ERROR == 16, "LICENSE_ERROR");
    CHECK(MUBLAS_OP_N == 0 && MUBLAS_OP_T == 1 && MUBLAS_OP_C == 2 && MUBLAS_OP_CONJG == 3, "operation values");
    CHECK(MUBLAS_FILL_MODE_LOWER == 0 && MUBLAS_FILL_MODE_UPPER == 1 && MUBLAS_FILL_MODE_FULL == 2,
          "fill mode values");
    CHECK(MUBLAS_DIAG_NON_UNIT == 0 && MUBLAS_DIAG_UNIT == 1, "diag values");
    CHECK(MUBLAS_POINTER_MODE_HOST == 0 && MUBLAS_POINTER_MODE_DEVICE == 1, "pointer mode values");
    /* Enumerations are ints, as cuBLAS's C enums are. */
    CHECK(sizeof(mublasStatus_t) == sizeof(int) && sizeof(mublasOperation_t) == sizeof(int) &&
              sizeof(mublasFillMode_t) == sizeof(int) && sizeof(mublasDiagType_t) == sizeof(int) &&
              sizeof(mublasPointerMode_t) == sizeof(int),
          "enumeration types are not int-sized");
    printf("  checked status, operation, fill mode, diag and pointer mode values\n");

    /* Version: needs no handle. */
    int version = -1;
    CHECK_STATUS(mublasGetVersion(NULL, &version), MUBLAS_STATUS_SUCCESS);
    CHECK(version == MUBLAS_VERSION, "mublasGetVersion gave %d, MUBLAS_VERSION is %d", version, MUBLAS_VERSION);
    CHECK(MUBLAS_VERSION == 100, "MUBLAS_VERSION is %d, expected 100 (0.1.0)", MUBLAS_VERSION);
    CHECK_STATUS(mublasGetVersion(NULL, NULL), MUBLAS_STATUS_INVALID_VALUE);
    printf("  checked mublasGetVersion: %d\n", version);

    /* A null handle is NOT_INITIALIZED everywhere, checked before anything else. */
    struct CUstream_st *stream = NULL;
    mublasPointerMode_t mode = -1;
    float alpha = 1.0f;
    CHECK_STATUS(mublasDestroy(NULL), MUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_STATUS(mublasSetStream(NULL, NULL), MUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_STATUS(mublasGetStream(NULL, &stream), MUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_STATUS(mublasGetStream(NULL, NULL), MUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_STATUS(mublasSetPointerMode(NULL, MUBLAS_POINTER_MODE_HOST), MUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_STATUS(mublasSetPointerMode(NULL, 2), MUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_STATUS(mublasGetPointerMode(NULL, &mode), MUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_STATUS(mublasSaxpy(NULL, 10, &alpha, NULL, 1, NULL, 1), MUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_STATUS(mublasSaxpy(NULL, 0, &alpha, NULL, 1, NULL, 1), MUBLAS_STATUS_NOT_INITIALIZED);
    CHECK_STATUS(mublasSaxpy(NULL, 10, NULL, NULL, 0, NULL, 0), MUBLAS_STATUS_NOT_INITIALIZED);
    CHECK(stream == NULL && mode == -1, "a failed call wrote its out-argument");
    printf("  checked null handles: Destroy, Set/GetStream, Set/GetPointerMode, Saxpy -> NOT_INITIALIZED\n");

    /* Nowhere to put the handle. */
    CHECK_STATUS(mublasCreate(NULL), MUBLAS_STATUS_INVALID_VALUE);
    printf("  checked mublasCreate(NULL) -> INVALID_VALUE\n");

    if (failures != 0) {
        printf("FAIL: test_status: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("PASS: test_status: %d checks\n", checks);
    return 0;
}
