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
        self.0 = self.0.wrapping_add(STEP);
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
        self.values(len, Random::value)
    }

    /// `len` calls of `value`, which must draw exactly one `next_u64` each (checked), giving what the calls
    /// one after another would: after i draws the state is the seed plus i steps, so each core starts its
    /// part of a long vector where those calls would have been: one core per whole `PARALLEL_FROM` values, up to all.
    pub fn values(&mut self, len: usize, value: fn(&mut Random) -> f32) -> Vec<f32> {
        let start = self.0;
        let mut out = vec![0f32; len];
        let part_len = len.div_ceil(super::host_cores().min(len / PARALLEL_FROM).max(1)).max(1);
        let fill = |offset: usize, part: &mut [f32]| {
            let first = start.wrapping_add(STEP.wrapping_mul(offset as u64));
            let mut random = Random(first);
            part.iter_mut().for_each(|v| *v = value(&mut random));
            let drawn = random.0.wrapping_sub(first);
            assert_eq!(
                drawn,
                STEP.wrapping_mul(part.len() as u64),
                "Random::values: `value` must draw one u64 a value"
            );
        };
        if part_len >= len {
            fill(0, &mut out);
        } else {
            std::thread::scope(|scope| {
                for (index, part) in out.chunks_mut(part_len).enumerate() {
                    scope.spawn(move || fill(index * part_len, part));
                }
            });
        }
        self.0 = start.wrapping_add(STEP.wrapping_mul(len as u64));
        out
    }
}

/// SplitMix64's increment of the state per draw.
const STEP: u64 = 0x9E37_79B9_7F4A_7C15;

/// Values a vector needs per core it draws on (shorter: one core), so that spawning stays negligible.
const PARALLEL_FROM: usize = 1 << 20;

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

    #[test]
    fn values_on_every_core_are_the_calls_one_after_another() {
        let len = 3 * PARALLEL_FROM + 5;
        let mut one_by_one = Random::new(11);
        let expected: Vec<f32> = (0..len).map(|_| one_by_one.value()).collect();
        let mut at_once = Random::new(11);
        let got = at_once.vector(len);
        assert!(got.iter().zip(&expected).all(|(g, e)| g.to_bits() == e.to_bits()));
        assert_eq!(at_once.next_u64(), one_by_one.next_u64(), "the state after them");
    }

    #[test]
    #[should_panic(expected = "one u64 a value")]
    fn values_refuses_a_draw_of_two_u64_a_value() {
        Random::new(3).values(10, |random| {
            random.next_u64();
            random.value()
        });
    }
}
