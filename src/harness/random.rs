//! Fresh random test data (SplitMix64): never zeros, seeded per run.

pub struct Random(u64);

impl Random {
    /// Seeded from the clock unless `MUBLAS_TEST_SEED` fixes it (printed by tests, to replay a failure).
    pub fn from_env() -> Random {
        let seed = std::env::var("MUBLAS_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
        });
        Random::new(seed)
    }

    pub fn new(seed: u64) -> Random {
        Random(seed)
    }

    pub fn seed(&self) -> u64 {
        self.0
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, -1/16] ∪ [1/16, 1]: signed, never zero, never tiny.
    pub fn value(&mut self) -> f32 {
        let bits = self.next_u64();
        let magnitude = 0.0625 + 0.9375 * ((bits >> 11) as f64 / (1u64 << 53) as f64);
        (if bits & 1 == 0 { magnitude } else { -magnitude }) as f32
    }

    pub fn vector(&mut self, len: usize) -> Vec<f32> {
        (0..len).map(|_| self.value()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_never_zero_and_both_signs_appear() {
        let v = Random::new(7).vector(10_000);
        assert!(v.iter().all(|x| x.abs() >= 0.0625 && x.abs() <= 1.0));
        assert!(v.iter().any(|x| *x < 0.0) && v.iter().any(|x| *x > 0.0));
        assert_ne!(Random::new(7).vector(4), Random::new(8).vector(4));
    }
}
