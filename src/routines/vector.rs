//! Strided vectors with reference-BLAS semantics: element i of a vector of
//! length n with increment inc is at `x[(inc >= 0 ? i : i - (n - 1)) * inc]`.

/// A device vector as BLAS describes it: base address, length, increment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StridedVector {
    pub base: u64,
    pub len: i64,
    pub inc: i64,
}

impl StridedVector {
    /// The address of element 0. With a negative increment the vector starts at
    /// the far end of the memory it spans, so kernels can always index `first + i * inc`.
    pub fn first_element(&self) -> u64 {
        if self.inc >= 0 || self.len == 0 {
            self.base
        } else {
            // unsigned_abs: -inc overflows for i64::MIN (the 64-bit API lets a caller pass it).
            let offset_elements = (self.len as u64 - 1).wrapping_mul(self.inc.unsigned_abs());
            self.base.wrapping_add(offset_elements.wrapping_mul(4))
        }
    }

    /// Elements `start..start + len` as a vector of their own, with the same
    /// increment (its base is the lowest address it spans, as BLAS's is).
    pub fn sub(&self, start: i64, len: i64) -> StridedVector {
        // Elements before `start` in memory order: with a negative increment, those after the range.
        let skipped = if self.inc >= 0 { start } else { self.len - start - len };
        let offset_elements = (skipped as u64).wrapping_mul(self.inc.unsigned_abs());
        StridedVector { base: self.base.wrapping_add(offset_elements.wrapping_mul(4)), len, inc: self.inc }
    }

    /// Unit stride forwards.
    pub fn is_contiguous(&self) -> bool {
        self.inc == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address_of(v: &StridedVector, i: i64) -> u64 {
        (v.first_element() as i64 + i * v.inc * 4) as u64
    }

    #[test]
    fn positive_increment_starts_at_base() {
        let v = StridedVector { base: 1000, len: 5, inc: 3 };
        assert_eq!(address_of(&v, 0), 1000);
        assert_eq!(address_of(&v, 4), 1000 + 4 * 3 * 4);
    }

    #[test]
    fn negative_increment_follows_reference_blas() {
        // Reference BLAS: element i at x[(i - (n-1)) * inc] from the base; with
        // n = 5, inc = -2 element 0 is x[8] and element 4 is x[0].
        let v = StridedVector { base: 1000, len: 5, inc: -2 };
        assert_eq!(address_of(&v, 0), 1000 + 8 * 4);
        assert_eq!(address_of(&v, 4), 1000);
        for i in 0..5 {
            let reference_index = (i - (5 - 1)) * -2;
            assert_eq!(address_of(&v, i), 1000 + reference_index as u64 * 4);
        }
    }

    #[test]
    fn a_sub_vector_holds_the_same_elements() {
        for inc in [1i64, 3, -1, -2] {
            let v = StridedVector { base: 4096, len: 10, inc };
            for (start, len) in [(0i64, 10i64), (0, 4), (3, 5), (9, 1), (4, 6)] {
                let sub = v.sub(start, len);
                assert_eq!(sub.inc, inc);
                for i in 0..len {
                    assert_eq!(address_of(&sub, i), address_of(&v, start + i), "inc {inc}, {start}+{len}, element {i}");
                }
                // The base is the lowest address the sub-vector spans.
                let lowest = (0..len).map(|i| address_of(&sub, i)).min().unwrap();
                assert_eq!(sub.base, lowest);
            }
        }
    }

    #[test]
    fn empty_vector_with_negative_increment_stays_at_base() {
        assert_eq!(StridedVector { base: 64, len: 0, inc: -3 }.first_element(), 64);
    }

    #[test]
    fn the_most_negative_increment_does_not_overflow() {
        // One element: at the base whatever the increment (debug builds used to panic negating i64::MIN).
        assert_eq!(StridedVector { base: 64, len: 1, inc: i64::MIN }.first_element(), 64);
        assert_eq!(StridedVector { base: 64, len: 3, inc: -(1 << 40) }.first_element(), 64 + 2 * (1 << 40) * 4);
    }
}
