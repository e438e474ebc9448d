//! Seeds: text given by the user, and one generator per episode.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// The seed named by `text`, hashed (64-bit FNV-1a) as TDL2048+ hashes its
/// seed strings: any text is a seed, and the same text the same seed.
pub fn seed_from_text(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The generator of episode `index` of a run seeded with `seed`.
///
/// Each episode draws from its own stream, so a run gives the same episodes
/// however it is split into blocks, resumed, or spread over threads (with
/// one thread it is reproducible bit for bit; with several, the order of the
/// updates varies).
pub fn episode_rng(seed: u64, index: u64) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(splitmix(seed ^ splitmix(index)))
}

/// A strong 64-bit mix (SplitMix64's finaliser).
fn splitmix(x: u64) -> u64 {
    let x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn text_seeds_are_stable() {
        assert_eq!(seed_from_text(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(seed_from_text("a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(seed_from_text("1"), seed_from_text("2"));
    }

    #[test]
    fn episodes_get_different_streams() {
        let first = episode_rng(1, 0).next_u64();
        assert_eq!(first, episode_rng(1, 0).next_u64());
        assert_ne!(first, episode_rng(1, 1).next_u64());
        assert_ne!(first, episode_rng(2, 0).next_u64());
    }
}
