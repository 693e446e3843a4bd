//! Plans already decided, so that a repeated call costs one hash lookup.
//!
//! The key is the kernel's name, by the address and length of its `&'static
//! str` (each kernel's spec is one `static`, so this is its identity and
//! hashes in two words), the rule that made the plan (the optimizer's or a
//! routine's own, named the same way: one kernel may be shaped by two rules
//! for the same problem), the kernel's compiled resources (the same name may
//! be loaded as different binaries, and a test may pass several) and the
//! problem.
//! The device and recipes are fixed for the lifetime of a [`super::Tuner`],
//! which owns one cache. [`DecisionCache`] is the map underneath, also for
//! decisions a routine composes from several plans (SGEMM's whole plan).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

use parking_lot::RwLock;

use super::kernel_model::{KernelModel, Problem};
use super::optimizer::LaunchPlan;

/// Entries kept before the cache starts over. Each is about 100 bytes; a
/// program that cycles through more distinct sizes than this pays a cold
/// decision (microseconds) per call, which is still cheap next to a launch.
pub const DEFAULT_CAPACITY: usize = 4096;

/// A multiply-rotate hash in the style of rustc's FxHash: a few cycles per
/// word. Not resistant to chosen keys, which is fine for launch sizes.
#[derive(Clone, Copy, Debug, Default)]
pub struct FxHasher {
    hash: u64,
}

impl FxHasher {
    /// The multiplier of rustc's FxHasher (from the golden ratio).
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    #[inline]
    fn add_word(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(Self::SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add_word(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u8(&mut self, value: u8) {
        self.add_word(value as u64);
    }

    #[inline]
    fn write_u32(&mut self, value: u32) {
        self.add_word(value as u64);
    }

    #[inline]
    fn write_u64(&mut self, value: u64) {
        self.add_word(value);
    }

    #[inline]
    fn write_usize(&mut self, value: usize) {
        self.add_word(value as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct PlanKey {
    kernel_name_address: usize,
    kernel_name_length: usize,
    rule_address: usize,
    rule_length: usize,
    registers_per_thread: u32,
    static_shared_bytes: u32,
    max_threads_per_block: u32,
    problem: Problem,
}

impl PlanKey {
    fn new(kernel_name: &'static str, rule: &'static str, kernel: &KernelModel, problem: &Problem) -> PlanKey {
        PlanKey {
            kernel_name_address: kernel_name.as_ptr() as usize,
            kernel_name_length: kernel_name.len(),
            rule_address: rule.as_ptr() as usize,
            rule_length: rule.len(),
            registers_per_thread: kernel.registers_per_thread,
            static_shared_bytes: kernel.static_shared_bytes,
            max_threads_per_block: kernel.max_threads_per_block,
            problem: *problem,
        }
    }
}

/// Decisions by key, shared by the threads that use a handle: one read lock
/// and one hash lookup per call. When full it is emptied first: simpler and
/// cheaper than LRU, and a working set that large is rare.
#[derive(Debug)]
pub struct DecisionCache<K, V> {
    entries: RwLock<HashMap<K, V, BuildHasherDefault<FxHasher>>>,
    capacity: usize,
}

impl<K: Hash + Eq, V: Copy> DecisionCache<K, V> {
    /// A cache that starts over once it holds `capacity` entries (at least 1).
    pub fn with_capacity(capacity: usize) -> Self {
        DecisionCache { entries: RwLock::new(HashMap::default()), capacity: capacity.max(1) }
    }

    #[inline]
    pub fn get(&self, key: &K) -> Option<V> {
        self.entries.read().get(key).copied()
    }

    pub fn insert(&self, key: K, value: V) {
        let mut entries = self.entries.write();
        if entries.len() >= self.capacity {
            entries.clear();
        }
        entries.insert(key, value);
    }

    pub fn clear(&self) {
        self.entries.write().clear();
    }

    pub fn len(&self) -> usize {
        self.entries.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.read().is_empty()
    }
}

/// (kernel, rule, problem) → plan, shared by every thread that uses a handle.
#[derive(Debug)]
pub struct PlanCache {
    plans: DecisionCache<PlanKey, LaunchPlan>,
}

impl Default for PlanCache {
    fn default() -> Self {
        PlanCache::with_capacity(DEFAULT_CAPACITY)
    }
}

impl PlanCache {
    pub fn new() -> PlanCache {
        PlanCache::default()
    }

    /// A cache that starts over once it holds `capacity` plans (at least 1).
    pub fn with_capacity(capacity: usize) -> PlanCache {
        PlanCache { plans: DecisionCache::with_capacity(capacity) }
    }

    #[inline]
    pub fn get(
        &self,
        kernel_name: &'static str,
        rule: &'static str,
        kernel: &KernelModel,
        problem: &Problem,
    ) -> Option<LaunchPlan> {
        self.plans.get(&PlanKey::new(kernel_name, rule, kernel, problem))
    }

    pub fn insert(
        &self,
        kernel_name: &'static str,
        rule: &'static str,
        kernel: &KernelModel,
        problem: &Problem,
        plan: LaunchPlan,
    ) {
        self.plans.insert(PlanKey::new(kernel_name, rule, kernel, problem), plan);
    }

    pub fn clear(&self) {
        self.plans.clear();
    }

    pub fn len(&self) -> usize {
        self.plans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.plans.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tuner::kernel_model::{Geometry, LaunchShape};
    use crate::tuner::occupancy::Occupancy;
    use std::hash::Hash;

    fn plan(tx: u32) -> LaunchPlan {
        LaunchPlan {
            shape: LaunchShape { tx, ty: 1, split: 1 },
            geometry: Geometry { grid: (1, 1, 1), dynamic_shared_bytes: 0 },
            occupancy: Occupancy::NONE,
        }
    }

    fn vector(n: u64) -> Problem {
        Problem { m: 0, n, k: 0 }
    }

    static AXPY: &str = "axpy_f32_vec4";
    const K: KernelModel =
        KernelModel { registers_per_thread: 16, static_shared_bytes: 0, max_threads_per_block: 1024 };
    static GEMV: &str = "gemv_n_f32";
    static RULE: &str = "optimizer";
    static OTHER_RULE: &str = "a routine's own";

    #[test]
    fn stores_per_kernel_and_problem() {
        let cache = PlanCache::new();
        assert_eq!(cache.get(AXPY, RULE, &K, &vector(10)), None);
        cache.insert(AXPY, RULE, &K, &vector(10), plan(256));
        cache.insert(GEMV, RULE, &K, &vector(10), plan(64));
        assert_eq!(cache.get(AXPY, RULE, &K, &vector(10)), Some(plan(256)));
        assert_eq!(cache.get(GEMV, RULE, &K, &vector(10)), Some(plan(64)));
        assert_eq!(cache.get(AXPY, RULE, &K, &vector(11)), None);
        assert_eq!(cache.get(AXPY, RULE, &K, &Problem { m: 1, n: 10, k: 0 }), None);
        cache.insert(AXPY, RULE, &K, &vector(10), plan(128));
        assert_eq!(cache.get(AXPY, RULE, &K, &vector(10)), Some(plan(128)));
        assert_eq!(cache.len(), 2);
        let other_binary = KernelModel { registers_per_thread: 40, ..K };
        assert_eq!(cache.get(AXPY, RULE, &other_binary, &vector(10)), None);
        // Another rule's plan for the same kernel and problem is its own entry.
        assert_eq!(cache.get(AXPY, OTHER_RULE, &K, &vector(10)), None);
        cache.insert(AXPY, OTHER_RULE, &K, &vector(10), plan(512));
        assert_eq!(cache.get(AXPY, OTHER_RULE, &K, &vector(10)), Some(plan(512)));
        assert_eq!(cache.get(AXPY, RULE, &K, &vector(10)), Some(plan(128)));
        cache.clear();
        assert!(cache.is_empty());
    }

    #[test]
    fn starts_over_when_full() {
        let cache = PlanCache::with_capacity(3);
        for n in 0..3 {
            cache.insert(AXPY, RULE, &K, &vector(n), plan(32));
        }
        assert_eq!(cache.len(), 3);
        cache.insert(AXPY, RULE, &K, &vector(3), plan(64));
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.get(AXPY, RULE, &K, &vector(3)), Some(plan(64)));
        assert_eq!(cache.get(AXPY, RULE, &K, &vector(0)), None);
    }

    #[test]
    fn fx_hash_is_deterministic_and_spreads_nearby_keys() {
        let hash = |key: &PlanKey| {
            let mut hasher = FxHasher::default();
            key.hash(&mut hasher);
            hasher.finish()
        };
        let key = PlanKey::new(AXPY, RULE, &K, &vector(1000));
        assert_eq!(hash(&key), hash(&PlanKey::new(AXPY, RULE, &K, &vector(1000))));
        // Consecutive sizes must differ in the top 7 bits hashbrown uses as
        // tags often enough to keep probing short.
        let tags: std::collections::HashSet<u64> =
            (0..1000).map(|n| hash(&PlanKey::new(AXPY, RULE, &K, &vector(n))) >> 57).collect();
        assert!(tags.len() > 64, "{} distinct tags", tags.len());
        let mut bytes = FxHasher::default();
        bytes.write(b"0123456789");
        assert_ne!(bytes.finish(), 0);
    }
}
