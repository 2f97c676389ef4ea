//! [`Fnv`]: a stable 64-bit hash for the fingerprints a loader state
//! keeps (a pipeline's, an explicit order's).

/// FNV-1a, 64 bits: a stable hash for fingerprints (the same on every
/// platform and Rust version, unlike `DefaultHasher`).
pub(crate) struct Fnv(u64);

impl Fnv {
    pub(crate) fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    pub(crate) fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    pub(crate) fn write_str(&mut self, s: &str) {
        self.write(&(s.len() as u64).to_le_bytes());
        self.write(s.as_bytes());
    }

    pub(crate) fn finish(&self) -> u64 {
        self.0
    }
}
