! The Fortran module in use: SAXPY, SGEMV, STRMV and SGEMM through `use mublas`,
! with device memory from mublasAlloc and copies by mublasSet/GetVector/Matrix,
! each checked against a plain CPU loop in double precision, and each repeated
! through its 64-bit form (mublasSaxpy_64, ...) on the same data, which must
! give the same bits.
! Exit code 0: passed; 77: skipped (no GPU); 1: failed.
program test_mublas
  use, intrinsic :: iso_c_binding
  use mublas
  implicit none
  integer(c_int), parameter :: m = 37, n = 29, k = 23
  type(c_ptr) :: h, da, db, dc, dx, dy
  real(c_float), target :: a(m, k), b(k, n), c(m, n), x(n), y(m), t(n, n), v(n)
  real(c_float), target :: out_c(m, n), out_y(m), out_v(n)
  real(c_float), target :: out64_c(m, n), out64_y(m), out64_v(n)
  integer(c_int64_t), parameter :: m64 = m, n64 = n, k64 = k, one = 1
  real(c_double) :: expected, scale
  real(c_float) :: alpha, beta
  integer(c_int) :: stat, i, j, l, failures

  stat = mublasCreate(h)
  if (stat == MUBLAS_STATUS_NOT_INITIALIZED) then
    print '(a)', 'SKIPPED: no CUDA GPU (mublasCreate: ' // mublas_status_string(stat) // ')'
    stop 77
  end if
  call expect(stat, 'mublasCreate')
  failures = 0
  ! Fresh data each run: without arguments, random_seed seeds from the operating system (gfortran 7 on).
  call random_seed()
  call random_number(a); call random_number(b); call random_number(c)
  call random_number(x); call random_number(y); call random_number(t); call random_number(v)
  a = a - 0.5; b = b - 0.5; c = c - 0.5; x = x - 0.5; y = y - 0.5; t = t - 0.5; v = v - 0.5

  call expect(mublasAlloc(m * k, 4, da), 'mublasAlloc A')
  call expect(mublasAlloc(k * n, 4, db), 'mublasAlloc B')
  call expect(mublasAlloc(m * n, 4, dc), 'mublasAlloc C')
  call expect(mublasAlloc(n * n, 4, dx), 'mublasAlloc X')
  call expect(mublasAlloc(m, 4, dy), 'mublasAlloc y')

  ! SAXPY: y(1:m) = 2·y + y on device copies of y.
  call expect(mublasSetVector(m, 4, c_loc(y), 1, dy, 1), 'mublasSetVector')
  call expect(mublasSetVector(m, 4, c_loc(y), 1, dc, 1), 'mublasSetVector')
  alpha = 2.0
  call expect(mublasSaxpy(h, m, alpha, dc, 1, dy, 1), 'mublasSaxpy')
  call expect(mublasGetVector(m, 4, dy, 1, c_loc(out_y), 1), 'mublasGetVector')
  do i = 1, m
    call check('SAXPY', real(out_y(i), c_double), 3.0d0 * y(i), 3.0d0 * abs(y(i)), 4)
  end do
  call expect(mublasSetVector(m, 4, c_loc(y), 1, dy, 1), 'mublasSetVector')
  call expect(mublasSaxpy_64(h, m64, alpha, dc, one, dy, one), 'mublasSaxpy_64')
  call expect(mublasGetVector(m, 4, dy, 1, c_loc(out64_y), 1), 'mublasGetVector')
  call same_bits('mublasSaxpy_64', out64_y, out_y)

  ! SGEMV: y = 1.5·A(:, 1:n)·x + 0·y with A m×k and x of length k ≤ n.
  call expect(mublasSetMatrix(m, k, 4, c_loc(a), m, da, m), 'mublasSetMatrix A')
  call expect(mublasSetVector(k, 4, c_loc(x), 1, dx, 1), 'mublasSetVector x')
  alpha = 1.5; beta = 0.0
  call expect(mublasSgemv(h, MUBLAS_OP_N, m, k, alpha, da, m, dx, 1, beta, dy, 1), 'mublasSgemv')
  call expect(mublasGetVector(m, 4, dy, 1, c_loc(out_y), 1), 'mublasGetVector')
  do i = 1, m
    expected = 0; scale = 0
    do l = 1, k
      expected = expected + 1.5d0 * a(i, l) * x(l); scale = scale + abs(1.5d0 * a(i, l) * x(l))
    end do
    call check('SGEMV', real(out_y(i), c_double), expected, scale, k + 2)
  end do
  ! y back in dy first, so that a 64-bit call that wrote nothing could not pass on the 32-bit one's result.
  call expect(mublasSetVector(m, 4, c_loc(y), 1, dy, 1), 'mublasSetVector')
  call expect(mublasSgemv_64(h, MUBLAS_OP_N, m64, k64, alpha, da, m64, dx, one, beta, dy, one), 'mublasSgemv_64')
  call expect(mublasGetVector(m, 4, dy, 1, c_loc(out64_y), 1), 'mublasGetVector')
  call same_bits('mublasSgemv_64', out64_y, out_y)

  ! STRMV: v = T·v, T lower triangular, non-unit diagonal.
  call expect(mublasSetMatrix(n, n, 4, c_loc(t), n, dx, n), 'mublasSetMatrix T')
  call expect(mublasSetVector(n, 4, c_loc(v), 1, dy, 1), 'mublasSetVector v')
  call expect(mublasStrmv(h, MUBLAS_FILL_MODE_LOWER, MUBLAS_OP_N, MUBLAS_DIAG_NON_UNIT, n, dx, n, dy, 1), 'mublasStrmv')
  call expect(mublasGetVector(n, 4, dy, 1, c_loc(out_v), 1), 'mublasGetVector')
  do i = 1, n
    expected = 0; scale = 0
    do l = 1, i
      expected = expected + dble(t(i, l)) * v(l); scale = scale + abs(dble(t(i, l)) * v(l))
    end do
    call check('STRMV', real(out_v(i), c_double), expected, scale, n + 2)
  end do
  call expect(mublasSetVector(n, 4, c_loc(v), 1, dy, 1), 'mublasSetVector v')
  call expect(mublasStrmv_64(h, MUBLAS_FILL_MODE_LOWER, MUBLAS_OP_N, MUBLAS_DIAG_NON_UNIT, n64, dx, n64, dy, one), &
      'mublasStrmv_64')
  call expect(mublasGetVector(n, 4, dy, 1, c_loc(out64_v), 1), 'mublasGetVector')
  call same_bits('mublasStrmv_64', out64_v, out_v)

  ! SGEMM: C = 0.5·A·B + 2·C.
  call expect(mublasSetMatrix(k, n, 4, c_loc(b), k, db, k), 'mublasSetMatrix B')
  call expect(mublasSetMatrix(m, n, 4, c_loc(c), m, dc, m), 'mublasSetMatrix C')
  alpha = 0.5; beta = 2.0
  call expect(mublasSgemm(h, MUBLAS_OP_N, MUBLAS_OP_N, m, n, k, alpha, da, m, db, k, beta, dc, m), 'mublasSgemm')
  call expect(mublasGetMatrix(m, n, 4, dc, m, c_loc(out_c), m), 'mublasGetMatrix')
  do j = 1, n
    do i = 1, m
      expected = 2.0d0 * c(i, j); scale = abs(expected)
      do l = 1, k
        expected = expected + 0.5d0 * a(i, l) * b(l, j); scale = scale + abs(0.5d0 * a(i, l) * b(l, j))
      end do
      call check('SGEMM', real(out_c(i, j), c_double), expected, scale, k + 2)
    end do
  end do
  call expect(mublasSetMatrix(m, n, 4, c_loc(c), m, dc, m), 'mublasSetMatrix C')
  call expect(mublasSgemm_64(h, MUBLAS_OP_N, MUBLAS_OP_N, m64, n64, k64, alpha, da, m64, db, k64, beta, dc, m64), &
      'mublasSgemm_64')
  call expect(mublasGetMatrix(m, n, 4, dc, m, c_loc(out64_c), m), 'mublasGetMatrix')
  call same_bits('mublasSgemm_64', reshape(out64_c, [m * n]), reshape(out_c, [m * n]))

  call expect(mublasFree(da), 'mublasFree'); call expect(mublasFree(db), 'mublasFree')
  call expect(mublasFree(dc), 'mublasFree'); call expect(mublasFree(dx), 'mublasFree')
  call expect(mublasFree(dy), 'mublasFree')
  call expect(mublasDestroy(h), 'mublasDestroy')
  if (failures > 0) then
    print '(a, i0, a)', 'FAIL: ', failures, ' elements out of bounds'
    stop 1
  end if
  print '(a)', 'PASS: SAXPY, SGEMV, STRMV and SGEMM through the Fortran module, and their 64-bit forms'

contains

  subroutine expect(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= MUBLAS_STATUS_SUCCESS) then
      print '(a, a, a, i0, a, a)', 'FAIL: ', what, ' returned ', status, ': ', mublas_status_string(status)
      stop 1
    end if
  end subroutine

  subroutine same_bits(what, got, want)
    character(len=*), intent(in) :: what
    real(c_float), intent(in) :: got(:), want(:)
    ! transfer: bit patterns, so that a NaN or a -0 counts as a difference too.
    if (any(transfer(got, 0_c_int, size(got)) /= transfer(want, 0_c_int, size(want)))) then
      print '(a, a)', what, ': not the same bits as the 32-bit form'
      failures = failures + 1
    end if
  end subroutine

  subroutine check(what, got, want, magnitude, terms)
    character(len=*), intent(in) :: what
    real(c_double), intent(in) :: got, want, magnitude
    integer(c_int), intent(in) :: terms
    if (.not. (abs(got - want) <= 2.0d0 * terms * 5.96d-8 * magnitude + 1.0d-30)) then
      if (failures < 5) print '(a, a, es14.6, a, es14.6)', what, ': got ', got, ' expected ', want
      failures = failures + 1
    end if
  end subroutine
end program test_mublas
