/* The smallest mublas program: version and status text need no GPU; with one,
 * a handle is created and destroyed. Exit 0 in both cases. */
#include <mublas.h>
#include <stdio.h>

int main(void) {
    int version = 0;
    if (mublasGetVersion(NULL, &version) != MUBLAS_STATUS_SUCCESS || version != MUBLAS_VERSION) {
        fprintf(stderr, "mublasGetVersion: unexpected result %d\n", version);
        return 1;
    }
    mublasHandle_t handle;
    mublasStatus_t status = mublasCreate(&handle);
    printf("mublas %d: mublasCreate says \"%s\"\n", version, mublasGetStatusString(status));
    if (status == MUBLAS_STATUS_SUCCESS) return mublasDestroy(handle) == MUBLAS_STATUS_SUCCESS ? 0 : 1;
    return status == MUBLAS_STATUS_NOT_INITIALIZED ? 0 : 1; /* no GPU here */
}
