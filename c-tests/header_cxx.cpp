// The public header compiled as C++ (-Wall -Wextra -Werror) and linked: the
// declarations must be valid C++ and have C linkage (a mangled name would not
// link against libmublas.so).
#include <mublas.h>

#include <cstdio>
#include <cstring>

int main() {
    std::printf("header_cxx: include/mublas.h compiles as C++ and links with C linkage\n");
    int version = 0;
    mublasStatus_t status = mublasGetVersion(nullptr, &version);
    const char *name = mublasGetStatusName(status);
    // Every function's address (tests/header.rs checks that the list is whole): each must resolve at link time,
    // which is the test; a mangled C++ name would not.
    const void *entry_points[] = {
        reinterpret_cast<const void *>(&mublasCreate),
        reinterpret_cast<const void *>(&mublasDestroy),
        reinterpret_cast<const void *>(&mublasSetStream),
        reinterpret_cast<const void *>(&mublasGetStream),
        reinterpret_cast<const void *>(&mublasSetPointerMode),
        reinterpret_cast<const void *>(&mublasGetPointerMode),
        reinterpret_cast<const void *>(&mublasGetVersion),
        reinterpret_cast<const void *>(&mublasGetStatusName),
        reinterpret_cast<const void *>(&mublasGetStatusString),
        reinterpret_cast<const void *>(&mublasSaxpy),
        reinterpret_cast<const void *>(&mublasSaxpy_64),
        reinterpret_cast<const void *>(&mublasSgemv),
        reinterpret_cast<const void *>(&mublasSgemv_64),
        reinterpret_cast<const void *>(&mublasStrmv),
        reinterpret_cast<const void *>(&mublasStrmv_64),
        reinterpret_cast<const void *>(&mublasSgemm),
        reinterpret_cast<const void *>(&mublasSgemm_64),
        reinterpret_cast<const void *>(&mublasAlloc),
        reinterpret_cast<const void *>(&mublasFree),
        reinterpret_cast<const void *>(&mublasSetVector),
        reinterpret_cast<const void *>(&mublasGetVector),
        reinterpret_cast<const void *>(&mublasSetVectorAsync),
        reinterpret_cast<const void *>(&mublasGetVectorAsync),
        reinterpret_cast<const void *>(&mublasSetMatrix),
        reinterpret_cast<const void *>(&mublasGetMatrix),
        reinterpret_cast<const void *>(&mublasSetMatrixAsync),
        reinterpret_cast<const void *>(&mublasGetMatrixAsync),
    };
    bool all_resolved = true;
    for (const void *p : entry_points) {
        all_resolved = all_resolved && p != nullptr;
    }
    if (status != MUBLAS_STATUS_SUCCESS || version != MUBLAS_VERSION || std::strcmp(name, "MUBLAS_STATUS_SUCCESS") != 0 ||
        !all_resolved) {
        std::printf("FAIL: header_cxx: mublasGetVersion gave status %d (%s), version %d\n", status, name, version);
        return 1;
    }
    std::printf("PASS: header_cxx: version %d, %zu entry points resolved\n", version,
                sizeof entry_points / sizeof entry_points[0]);
    return 0;
}
