! mublas: Fortran interfaces (iso_c_binding) to every export of libmublas.so.
!
! Same routines, arguments and values as the C header include/mublas.h.
! Handles, streams and device arrays are type(c_ptr). Scalars (alpha, beta)
! are real(c_float) passed by reference, as C passes them in the default
! pointer mode, MUBLAS_POINTER_MODE_HOST (device pointer mode is for C callers).
! Host arrays for the copy helpers are passed as c_loc(array) (give them the
! target attribute).
!
!   use mublas
!   type(c_ptr) :: h, dx, dy
!   real(c_float), target :: x(n), y(n)
!   stat = mublasCreate(h)
!   stat = mublasAlloc(n, 4, dx)
!   stat = mublasSetVector(n, 4, c_loc(x), 1, dx, 1)
!   stat = mublasSaxpy(h, n, 2.0_c_float, dx, 1, dy, 1)
module mublas
  use, intrinsic :: iso_c_binding
  implicit none

  integer(c_int), parameter :: MUBLAS_STATUS_SUCCESS = 0
  integer(c_int), parameter :: MUBLAS_STATUS_NOT_INITIALIZED = 1
  integer(c_int), parameter :: MUBLAS_STATUS_ALLOC_FAILED = 3
  integer(c_int), parameter :: MUBLAS_STATUS_INVALID_VALUE = 7
  integer(c_int), parameter :: MUBLAS_STATUS_ARCH_MISMATCH = 8
  integer(c_int), parameter :: MUBLAS_STATUS_MAPPING_ERROR = 11
  integer(c_int), parameter :: MUBLAS_STATUS_EXECUTION_FAILED = 13
  integer(c_int), parameter :: MUBLAS_STATUS_INTERNAL_ERROR = 14
  integer(c_int), parameter :: MUBLAS_STATUS_NOT_SUPPORTED = 15
  integer(c_int), parameter :: MUBLAS_STATUS_LICENSE_ERROR = 16

  integer(c_int), parameter :: MUBLAS_OP_N = 0, MUBLAS_OP_T = 1, MUBLAS_OP_C = 2, MUBLAS_OP_CONJG = 3
  integer(c_int), parameter :: MUBLAS_OP_HERMITAN = 2  ! MUBLAS_OP_C
  integer(c_int), parameter :: MUBLAS_FILL_MODE_LOWER = 0, MUBLAS_FILL_MODE_UPPER = 1, MUBLAS_FILL_MODE_FULL = 2
  integer(c_int), parameter :: MUBLAS_DIAG_NON_UNIT = 0, MUBLAS_DIAG_UNIT = 1
  integer(c_int), parameter :: MUBLAS_POINTER_MODE_HOST = 0, MUBLAS_POINTER_MODE_DEVICE = 1
  integer(c_int), parameter :: MUBLAS_VERSION = 100

  interface
    integer(c_int) function mublasCreate(handle) bind(C, name="mublasCreate")
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: handle
    end function
    integer(c_int) function mublasDestroy(handle) bind(C, name="mublasDestroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
    end function
    integer(c_int) function mublasSetStream(handle, stream) bind(C, name="mublasSetStream")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, stream
    end function
    integer(c_int) function mublasGetStream(handle, stream) bind(C, name="mublasGetStream")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
      type(c_ptr), intent(out) :: stream
    end function
    integer(c_int) function mublasSetPointerMode(handle, mode) bind(C, name="mublasSetPointerMode")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
      integer(c_int), value :: mode
    end function
    integer(c_int) function mublasGetPointerMode(handle, mode) bind(C, name="mublasGetPointerMode")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: mode
    end function
    integer(c_int) function mublasGetVersion(handle, version) bind(C, name="mublasGetVersion")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: version
    end function
    type(c_ptr) function mublasGetStatusName(status) bind(C, name="mublasGetStatusName")
      import :: c_int, c_ptr
      integer(c_int), value :: status
    end function
    type(c_ptr) function mublasGetStatusString(status) bind(C, name="mublasGetStatusString")
      import :: c_int, c_ptr
      integer(c_int), value :: status
    end function

    integer(c_int) function mublasSaxpy(handle, n, alpha, x, incx, y, incy) bind(C, name="mublasSaxpy")
      import :: c_int, c_ptr, c_float
      type(c_ptr), value :: handle, x, y
      integer(c_int), value :: n, incx, incy
      real(c_float), intent(in) :: alpha
    end function
    integer(c_int) function mublasSgemv(handle, trans, m, n, alpha, a, lda, x, incx, beta, y, incy) &
        bind(C, name="mublasSgemv")
      import :: c_int, c_ptr, c_float
      type(c_ptr), value :: handle, a, x, y
      integer(c_int), value :: trans, m, n, lda, incx, incy
      real(c_float), intent(in) :: alpha, beta
    end function
    integer(c_int) function mublasStrmv(handle, uplo, trans, diag, n, a, lda, x, incx) bind(C, name="mublasStrmv")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, a, x
      integer(c_int), value :: uplo, trans, diag, n, lda, incx
    end function
    integer(c_int) function mublasSgemm(handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) &
        bind(C, name="mublasSgemm")
      import :: c_int, c_ptr, c_float
      type(c_ptr), value :: handle, a, b, c
      integer(c_int), value :: transa, transb, m, n, k, lda, ldb, ldc
      real(c_float), intent(in) :: alpha, beta
    end function

    ! The 64-bit forms (cuBLAS's cublasSaxpy_64, ...): sizes, leading dimensions
    ! and increments as integer(c_int64_t), for arrays past 2^31 elements a side.
    integer(c_int) function mublasSaxpy_64(handle, n, alpha, x, incx, y, incy) bind(C, name="mublasSaxpy_64")
      import :: c_int, c_int64_t, c_ptr, c_float
      type(c_ptr), value :: handle, x, y
      integer(c_int64_t), value :: n, incx, incy
      real(c_float), intent(in) :: alpha
    end function
    integer(c_int) function mublasSgemv_64(handle, trans, m, n, alpha, a, lda, x, incx, beta, y, incy) &
        bind(C, name="mublasSgemv_64")
      import :: c_int, c_int64_t, c_ptr, c_float
      type(c_ptr), value :: handle, a, x, y
      integer(c_int), value :: trans
      integer(c_int64_t), value :: m, n, lda, incx, incy
      real(c_float), intent(in) :: alpha, beta
    end function
    integer(c_int) function mublasStrmv_64(handle, uplo, trans, diag, n, a, lda, x, incx) &
        bind(C, name="mublasStrmv_64")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: handle, a, x
      integer(c_int), value :: uplo, trans, diag
      integer(c_int64_t), value :: n, lda, incx
    end function
    integer(c_int) function mublasSgemm_64(handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) &
        bind(C, name="mublasSgemm_64")
      import :: c_int, c_int64_t, c_ptr, c_float
      type(c_ptr), value :: handle, a, b, c
      integer(c_int), value :: transa, transb
      integer(c_int64_t), value :: m, n, k, lda, ldb, ldc
      real(c_float), intent(in) :: alpha, beta
    end function

    integer(c_int) function mublasAlloc(n, elem_size, device_ptr) bind(C, name="mublasAlloc")
      import :: c_int, c_ptr
      integer(c_int), value :: n, elem_size
      type(c_ptr), intent(out) :: device_ptr
    end function
    integer(c_int) function mublasFree(device_ptr) bind(C, name="mublasFree")
      import :: c_int, c_ptr
      type(c_ptr), value :: device_ptr
    end function
    integer(c_int) function mublasSetVector(n, elem_size, x, incx, device_ptr, incy) bind(C, name="mublasSetVector")
      import :: c_int, c_ptr
      integer(c_int), value :: n, elem_size, incx, incy
      type(c_ptr), value :: x, device_ptr
    end function
    integer(c_int) function mublasGetVector(n, elem_size, x, incx, y, incy) bind(C, name="mublasGetVector")
      import :: c_int, c_ptr
      integer(c_int), value :: n, elem_size, incx, incy
      type(c_ptr), value :: x, y
    end function
    integer(c_int) function mublasSetMatrix(rows, cols, elem_size, a, lda, b, ldb) bind(C, name="mublasSetMatrix")
      import :: c_int, c_ptr
      integer(c_int), value :: rows, cols, elem_size, lda, ldb
      type(c_ptr), value :: a, b
    end function
    integer(c_int) function mublasGetMatrix(rows, cols, elem_size, a, lda, b, ldb) bind(C, name="mublasGetMatrix")
      import :: c_int, c_ptr
      integer(c_int), value :: rows, cols, elem_size, lda, ldb
      type(c_ptr), value :: a, b
    end function
    integer(c_int) function mublasSetVectorAsync(n, elem_size, x, incx, device_ptr, incy, stream) &
        bind(C, name="mublasSetVectorAsync")
      import :: c_int, c_ptr
      integer(c_int), value :: n, elem_size, incx, incy
      type(c_ptr), value :: x, device_ptr, stream
    end function
    integer(c_int) function mublasGetVectorAsync(n, elem_size, x, incx, y, incy, stream) &
        bind(C, name="mublasGetVectorAsync")
      import :: c_int, c_ptr
      integer(c_int), value :: n, elem_size, incx, incy
      type(c_ptr), value :: x, y, stream
    end function
    integer(c_int) function mublasSetMatrixAsync(rows, cols, elem_size, a, lda, b, ldb, stream) &
        bind(C, name="mublasSetMatrixAsync")
      import :: c_int, c_ptr
      integer(c_int), value :: rows, cols, elem_size, lda, ldb
      type(c_ptr), value :: a, b, stream
    end function
    integer(c_int) function mublasGetMatrixAsync(rows, cols, elem_size, a, lda, b, ldb, stream) &
        bind(C, name="mublasGetMatrixAsync")
      import :: c_int, c_ptr
      integer(c_int), value :: rows, cols, elem_size, lda, ldb
      type(c_ptr), value :: a, b, stream
    end function
  end interface

contains

  !> The text of mublasGetStatusString as a Fortran string.
  function mublas_status_string(status) result(text)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: text
    character(kind=c_char), pointer :: chars(:)
    integer :: length
    interface
      integer(c_size_t) function strlen(s) bind(C, name="strlen")
        import :: c_size_t, c_ptr
        type(c_ptr), value :: s
      end function
    end interface
    type(c_ptr) :: p
    integer :: i
    p = mublasGetStatusString(status)
    length = int(strlen(p))
    call c_f_pointer(p, chars, [length])
    allocate(character(len=length) :: text)
    do i = 1, length
      text(i:i) = chars(i)
    end do
  end function
end module mublas
