//! Matrices and vectors spanning more than 2^31 elements: every size, leading
//! dimension and increment fits the C API's int, but element offsets (column
//! × lda, index × inc) pass what 32-bit arithmetic holds; and SAXPY on more
//! than 2^31 elements through the 64-bit API. Two zeroed device
//! buffers of 8.7 GB hold them; only the elements a call uses are written, so
//! those cases take seconds (the 2^31-element SAXPY, which fills both
//! buffers, some more). Each result is checked against float64, and the
//! element just past each column or vector element written must still be
//! zero. Skipped, saying so, without a GPU or with less than 20 GiB of device
//! memory free.

mod common;

use common::*;
use mublas::capi::blas1::mublasSaxpy;
use mublas::capi::blas2::mublasSgemv;
use mublas::capi::gemm::mublasSgemm;
use mublas::capi::trmv::mublasStrmv;
use mublas::capi::types::*;
use mublas::harness::Random;
use mublas::launch::DeviceBuffer;

/// The first element offset that an i32 cannot hold.
const PAST_I32: usize = 1 << 31;
/// Floats in each buffer: past 2^31 by room for the last column.
const FAR_ELEMENTS: usize = PAST_I32 + (1 << 25);

/// A leading dimension of at least `rows` that puts column `cols - 1` past
/// 2^31 elements, with `ld % 4 == residue` (0: the float4 kernels can take it).
fn far_ld(rows: usize, cols: usize, residue: usize) -> usize {
    let mut ld = PAST_I32.div_ceil(cols - 1).max(rows);
    while ld % 4 != residue {
        ld += 1;
    }
    assert!((cols - 1) * ld + rows <= FAR_ELEMENTS && ld <= i32::MAX as usize);
    ld
}

/// A column-major matrix on the host, placed at `ld` in a far buffer.
struct Matrix {
    rows: usize,
    cols: usize,
    ld: usize,
    data: Vec<f32>,
}

impl Matrix {
    fn random(random: &mut Random, rows: usize, cols: usize, ld: usize, scale: f32) -> Matrix {
        Matrix { rows, cols, ld, data: random.vector(rows * cols).into_iter().map(|v| v * scale).collect() }
    }

    fn at(&self, i: usize, j: usize) -> f64 {
        self.data[i + j * self.rows] as f64
    }
}

/// A zeroed device buffer of FAR_ELEMENTS floats.
struct Far(DeviceBuffer);

impl Far {
    fn new(gpu: &Gpu) -> Far {
        let buffer = DeviceBuffer::new(gpu.context(), FAR_ELEMENTS * 4).unwrap();
        buffer.zero().unwrap();
        Far(buffer)
    }

    fn ptr(&self, element: usize) -> *mut f32 {
        (self.0.address() + 4 * element as u64) as *mut f32
    }

    fn put(&self, element: usize, values: &[f32]) {
        self.0.write(4 * element, values).unwrap();
    }

    fn get(&self, element: usize, count: usize) -> Vec<f32> {
        let mut out = vec![0f32; count];
        self.0.read(4 * element, &mut out).unwrap();
        out
    }

    fn put_matrix(&self, element: usize, a: &Matrix) {
        for j in 0..a.cols {
            self.put(element + j * a.ld, &a.data[j * a.rows..(j + 1) * a.rows]);
        }
    }

    /// The matrix's elements as the buffer holds them, and whether the element after each column is still zero.
    fn get_matrix(&self, element: usize, rows: usize, cols: usize, ld: usize) -> (Vec<f32>, bool) {
        let (mut data, mut untouched) = (Vec::with_capacity(rows * cols), true);
        for j in 0..cols {
            let column = self.get(element + j * ld, rows + 1);
            untouched &= column[rows] == 0.0;
            data.extend_from_slice(&column[..rows]);
        }
        (data, untouched)
    }
}

/// alpha·Σ_l entry(i, l)·v[l] + beta·y0[i] for i < len in float64, with Σ|terms|.
fn reference(
    len: usize,
    entry: impl Fn(usize, usize) -> f64,
    v: &[f64],
    alpha: f64,
    beta: f64,
    y0: &[f32],
) -> (Vec<f64>, Vec<f64>) {
    let (sum, magnitude) = product(len, entry, v);
    (0..len)
        .map(|i| {
            let y = if beta == 0.0 { 0.0 } else { beta * y0[i] as f64 };
            (alpha * sum[i] + y, (alpha * magnitude[i]).abs() + y.abs())
        })
        .unzip()
}

fn saxpy(gpu: &Gpu, random: &mut Random, a: &Far, b: &Far) {
    let n = 9usize;
    let (incx, incy) = ((1usize << 28) + 1, (1usize << 28) + 3);
    let (x, y) = (random.vector(n), random.vector(n));
    let alpha = 0.625f32;
    // y runs backwards (incy < 0): element i sits at (n - 1 - i)·|incy|.
    for i in 0..n {
        a.put(i * incx, &x[i..=i]);
        b.put((n - 1 - i) * incy, &y[i..=i]);
    }
    // SAFETY: both spans lie in the buffers.
    let status = unsafe { mublasSaxpy(gpu.handle, n as i32, &alpha, a.ptr(0), incx as i32, b.ptr(0), -(incy as i32)) };
    assert_eq!(status, MUBLAS_STATUS_SUCCESS);
    for i in 0..n {
        let got = b.get((n - 1 - i) * incy, 2);
        let expected = y[i] as f64 + alpha as f64 * x[i] as f64;
        assert!(
            (got[0] as f64 - expected).abs() <= 1e-6 * (1.0 + expected.abs()),
            "saxpy element {i}: {} against {expected}",
            got[0]
        );
        assert_eq!(got[1], 0.0, "saxpy wrote past element {i}");
    }
}

fn sgemv(gpu: &Gpu, random: &mut Random, a: &Far, b: &Far) {
    let shapes = [(0, 3000, 2100), (1, 3000, 2100), (0, 100, 9), (1, 100, 9), (0, 5, 9), (1, 5, 9)];
    for (trans, m, n) in shapes {
        for residue in [0, 1] {
            let what = format!("sgemv {} {m}x{n}, lda % 4 = {residue}", if trans == 1 { "T" } else { "N" });
            let matrix = Matrix::random(random, m, n, far_ld(m, n, residue), 1.0);
            let (len_x, len_y) = if trans == 1 { (m, n) } else { (n, m) };
            let (x, y0) = (random.vector(len_x), random.vector(len_y));
            a.0.zero().unwrap();
            b.0.zero().unwrap();
            a.put_matrix(0, &matrix);
            b.put(0, &x);
            let y_at = len_x.next_multiple_of(4) + 64;
            b.put(y_at, &y0);
            let (alpha, beta) = (1.5f32, 0.5f32);
            // SAFETY: A's span and both vectors lie in the buffers.
            let status = unsafe {
                mublasSgemv(
                    gpu.handle,
                    trans,
                    m as i32,
                    n as i32,
                    &alpha,
                    a.ptr(0),
                    matrix.ld as i32,
                    b.ptr(0),
                    1,
                    &beta,
                    b.ptr(y_at),
                    1,
                )
            };
            assert_eq!(status, MUBLAS_STATUS_SUCCESS, "{what}");
            let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
            let (expected, magnitude) = if trans == 1 {
                reference(n, |i, l| matrix.at(l, i), &x64, 1.5, 0.5, &y0)
            } else {
                reference(m, |i, l| matrix.at(i, l), &x64, 1.5, 0.5, &y0)
            };
            let got = b.get(y_at, len_y + 1);
            assert_close(&what, &got[..len_y], &expected, &magnitude, 2.0 * (len_x as f64 + 2.0));
            assert_eq!(got[len_y], 0.0, "{what}: wrote past y");
        }
    }
}

fn strmv(gpu: &Gpu, random: &mut Random, a: &Far, b: &Far) {
    for (n, residue) in [(2000usize, 1usize), (2000, 0), (9, 0)] {
        for (uplo, trans) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
            let what = format!("strmv uplo {uplo} trans {trans} n {n}, lda % 4 = {residue}");
            let matrix = Matrix::random(random, n, n, far_ld(n, n, residue), 2.0 / n as f32);
            let x0 = random.vector(n);
            a.0.zero().unwrap();
            b.0.zero().unwrap();
            a.put_matrix(0, &matrix);
            b.put(0, &x0);
            // SAFETY: A's span and x lie in the buffers.
            let status =
                unsafe { mublasStrmv(gpu.handle, uplo, trans, 0, n as i32, a.ptr(0), matrix.ld as i32, b.ptr(0), 1) };
            assert_eq!(status, MUBLAS_STATUS_SUCCESS, "{what}");
            let in_triangle = |i: usize, j: usize| if uplo == 0 { i >= j } else { i <= j };
            let entry = |i: usize, l: usize| {
                let (r, c) = if trans == 1 { (l, i) } else { (i, l) };
                if in_triangle(r, c) { matrix.at(r, c) } else { 0.0 }
            };
            let x64: Vec<f64> = x0.iter().map(|&v| v as f64).collect();
            let (expected, magnitude) = reference(n, entry, &x64, 1.0, 0.0, &x0);
            let got = b.get(0, n + 1);
            assert_close(&what, &got[..n], &expected, &magnitude, 2.0 * (n as f64 + 2.0));
            assert_eq!(got[n], 0.0, "{what}: wrote past x");
        }
    }
}

fn sgemm(gpu: &Gpu, random: &mut Random, a: &Far, b: &Far) {
    let shapes = [(0, 0, 512, 512, 512), (1, 0, 1000, 300, 700), (0, 1, 129, 127, 1023), (1, 1, 300, 257, 64)];
    for (ta, tb, m, n, k) in shapes {
        for residue in [0, 1] {
            let what = format!("sgemm {ta}{tb} {m}x{n}x{k}, lda % 4 = ldc % 4 = {residue}");
            // A far in the first buffer, C far in the second, B small in the gap after C's first column.
            let (a_rows, a_cols) = if ta == 1 { (k, m) } else { (m, k) };
            let (b_rows, b_cols) = if tb == 1 { (n, k) } else { (k, n) };
            let op_a = Matrix::random(random, a_rows, a_cols, far_ld(a_rows, a_cols, residue), 1.0);
            let op_b = Matrix::random(random, b_rows, b_cols, b_rows, 1.0);
            let ldc = far_ld(m, n, residue);
            let c0 = Matrix::random(random, m, n, ldc, 1.0);
            let b_at = m.next_multiple_of(4) + 64;
            assert!(b_at + b_rows * b_cols < ldc);
            a.0.zero().unwrap();
            b.0.zero().unwrap();
            a.put_matrix(0, &op_a);
            b.put(b_at, &op_b.data);
            b.put_matrix(0, &c0);
            let (alpha, beta) = (0.75f32, -0.5f32);
            // SAFETY: A's and C's spans and B lie in the buffers, apart.
            let status = unsafe {
                mublasSgemm(
                    gpu.handle,
                    ta,
                    tb,
                    m as i32,
                    n as i32,
                    k as i32,
                    &alpha,
                    a.ptr(0),
                    op_a.ld as i32,
                    b.ptr(b_at),
                    b_rows as i32,
                    &beta,
                    b.ptr(0),
                    ldc as i32,
                )
            };
            assert_eq!(status, MUBLAS_STATUS_SUCCESS, "{what}");
            let a_at = |i: usize, l: usize| if ta == 1 { op_a.at(l, i) } else { op_a.at(i, l) };
            let b_at_ = |l: usize, j: usize| if tb == 1 { op_b.at(j, l) } else { op_b.at(l, j) };
            let (mut expected, mut magnitude) = (Vec::with_capacity(m * n), Vec::with_capacity(m * n));
            for j in 0..n {
                let column: Vec<f64> = (0..k).map(|l| b_at_(l, j)).collect();
                let c_column: Vec<f32> = (0..m).map(|i| c0.data[i + j * m]).collect();
                let (e, s) = reference(m, a_at, &column, 0.75, -0.5, &c_column);
                expected.extend(e);
                magnitude.extend(s);
            }
            let (got, untouched) = b.get_matrix(0, m, n, ldc);
            assert_close(&what, &got, &expected, &magnitude, 2.0 * (k as f64 + 2.0));
            assert!(untouched, "{what}: wrote past a column of C");
        }
    }
}

/// SAXPY through the 64-bit entry point (`mublasSaxpy_64`) on more than 2^31 elements, x and y
/// filling both buffers: x and y equally aligned (the float4 kernel, 2^29
/// float4 groups and more), then x one float further on (the strided one).
/// Each call's every element is checked against float64, and the float just
/// past y must keep its value. The host's part (random data, checks) runs on
/// every core: 2^31 elements take a minute on one.
fn saxpy_past_2_31_elements(gpu: &Gpu, random: &mut Random, a: &Far, b: &Far) {
    use mublas::capi::blas1::mublasSaxpy_64;
    let n = PAST_I32 + 5;
    let chunk = (n + 1).div_ceil(mublas::harness::host_cores());
    let (x, mut y) = (random.vector(n + 1), random.vector(n + 1));
    a.put(0, &x);
    b.put(0, &y);
    let alpha = -0.375f32;
    for (x_at, what) in [(0usize, "x and y aligned alike"), (1, "x one float further on")] {
        let len = n - x_at;
        // SAFETY: our own handle; x and y lie in the buffers.
        let status = unsafe { mublasSaxpy_64(gpu.handle, len as i64, &alpha, a.ptr(x_at), 1, b.ptr(0), 1) };
        assert_eq!(status, MUBLAS_STATUS_SUCCESS, "{what}");
        let got = b.get(0, n + 1);
        // The first element of each core's part that is wrong, if any.
        let wrong: Vec<usize> = std::thread::scope(|scope| {
            let parts: Vec<_> = (0..len)
                .step_by(chunk)
                .map(|start| {
                    let (x, y, got) = (&x, &y, &got);
                    scope.spawn(move || {
                        (start..(start + chunk).min(len)).find(|&i| {
                            let expected = y[i] as f64 + alpha as f64 * x[x_at + i] as f64;
                            let bound =
                                2.0 * f32::EPSILON as f64 * (y[i].abs() as f64 + (alpha * x[x_at + i]).abs() as f64);
                            let error = (got[i] as f64 - expected).abs();
                            error.is_nan() || error > bound
                        })
                    })
                })
                .collect();
            parts.into_iter().filter_map(|p| p.join().unwrap()).collect()
        });
        if let Some(&i) = wrong.first() {
            panic!("saxpy past 2^31, {what}: element {i}: {} against {} (+ {} × {})", got[i], y[i], alpha, x[x_at + i]);
        }
        assert_eq!(got[len..], y[len..], "saxpy past 2^31, {what}: wrote past y");
        y = got;
    }
}

#[test]
fn gpu_offsets_past_2_31_elements() {
    let test = "gpu_offsets_past_2_31_elements";
    let Some(gpu) = gpu_or_skip(test) else { return };
    let (free, _) = {
        let _bound = mublas::launch::context::ContextGuard::bind(gpu.context()).unwrap();
        cudarc::driver::result::mem_get_info().unwrap()
    };
    if free < 20 << 30 {
        say(&format!("SKIPPED {test}: {} GiB of device memory free, 20 needed", free >> 30));
        return;
    }
    let mut random = random(test);
    let (a, b) = (Far::new(&gpu), Far::new(&gpu));
    saxpy(&gpu, &mut random, &a, &b);
    sgemv(&gpu, &mut random, &a, &b);
    strmv(&gpu, &mut random, &a, &b);
    sgemm(&gpu, &mut random, &a, &b);
    // Last: it fills both buffers. Its host side holds three copies of y.
    let host_gib = available_host_memory() >> 30;
    if host_gib >= 32 {
        saxpy_past_2_31_elements(&gpu, &mut random, &a, &b);
    } else {
        say(&format!("SKIPPED {test}'s SAXPY on 2^31 elements: {host_gib} GiB of host memory available, 32 needed"));
    }
}

/// MemAvailable from /proc/meminfo, in bytes (0 where it cannot be read).
fn available_host_memory() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|info| {
            let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map_or(0, |kib| kib << 10)
}
