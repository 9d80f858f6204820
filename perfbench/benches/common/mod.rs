//! What the synthetic-data benches share.

/// xorshift64*: the benches' own noise, independent of the library's.
pub struct Noise(pub u64);

impl Noise {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Roughly normal (a sum of four uniforms), mean 0, in `[-2, 2]`.
    pub fn centred(&mut self) -> f64 {
        (0..4)
            .map(|_| (self.next() >> 11) as f64 / (1u64 << 53) as f64)
            .sum::<f64>()
            - 2.0
    }
}
