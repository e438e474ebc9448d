//! A table's definition: a formation, a target and the spawn rule, and the
//! layers they imply.

use crate::{Error, Formation, Large, Position};

/// What a table is built for: a formation played until a target tile shows
/// in one of its target cells.
///
/// Layer `i` holds the positions after a move (before the spawn) whose tile
/// sum is the seeds' sum + 2i. [`Spec::steps`] layers are built; the last
/// two are the horizon, and positions past [`Spec::docheck`] that show the
/// target are won (../shared/docs/tablebase.md, docs/tablebase.md).
#[derive(Clone, Debug)]
pub struct Spec {
    formation: Formation,
    target: u8,
    four_rate: f64,
    /// Computed once: [`Spec::is_won`] asks for it for every position.
    docheck: usize,
}

impl Spec {
    /// The exponents of the targets a table may have: 8 to 16384.
    pub const TARGETS: std::ops::RangeInclusive<u8> = 3..=14;

    /// Reads a target tile, `256`: a power of two from 8 to 16384.
    ///
    /// # Errors
    /// One line naming the text and the targets there are.
    pub fn parse_target(text: &str) -> Result<u8, String> {
        match text.parse::<u32>() {
            Ok(value) if value.is_power_of_two() => Some(value.trailing_zeros() as u8),
            _ => None,
        }
        .filter(|target| Self::TARGETS.contains(target))
        .ok_or_else(|| format!("{text:?} is not a target (8, 16, 32, ..., 16384)"))
    }

    /// The table of `formation` for the tile `2^target`, with new tiles
    /// being 4 with probability `four_rate`.
    ///
    /// # Errors
    /// [`Error::Target`] for a target below 8 or above 16384, or one that
    /// leaves fewer than three layers; [`Error::Formation`] for a 4-rate
    /// outside [0, 1].
    pub fn new(formation: Formation, target: u8, four_rate: f64) -> Result<Self, Error> {
        let value = 1u64 << target.min(63);
        if !Self::TARGETS.contains(&target) {
            return Err(Error::Target {
                target: value,
                problem: "targets go from 8 to 16384".to_owned(),
            });
        }
        if !(0.0..=1.0).contains(&four_rate) {
            return Err(Error::Formation {
                name: formation.name().to_owned(),
                problem: format!("4-rate {four_rate} is not a probability"),
            });
        }
        let tile = 1u32 << target;
        let docheck = ((tile - formation.seed_sum() % tile) / 2) as usize;
        let spec = Self {
            formation,
            target,
            four_rate,
            docheck,
        };
        // Past the largest tile sum a board can hold (sixteen 32768s) every
        // layer is empty: a formation file asking for more is a mistake, and
        // each of its layers would still be a file.
        let most = (16 * (1i64 << 15) - i64::from(spec.formation.seed_sum())) / 2 + 1;
        let layers = spec.steps_signed();
        if !(3..=most).contains(&layers) {
            return Err(Error::Target {
                target: value,
                problem: format!(
                    "formation {} with {} extra steps leaves {layers} layers, {}",
                    spec.formation.name(),
                    spec.formation.extra_steps(),
                    if layers < 3 {
                        "fewer than 3".to_owned()
                    } else {
                        format!("more than the {most} that boards can fill")
                    }
                ),
            });
        }
        Ok(spec)
    }

    /// The formation.
    pub fn formation(&self) -> &Formation {
        &self.formation
    }

    /// The target tile's exponent.
    pub fn target(&self) -> u8 {
        self.target
    }

    /// The probability that a new tile is a 4.
    pub fn four_rate(&self) -> f64 {
        self.four_rate
    }

    fn steps_signed(&self) -> i64 {
        (1i64 << self.target) / 2 + i64::from(self.formation.extra_steps())
    }

    /// The number of layers: target / 2 + the formation's extra steps.
    pub fn steps(&self) -> usize {
        self.steps_signed() as usize
    }

    /// The first layer where the target can show; positions of later
    /// layers that show it are won.
    pub fn docheck(&self) -> usize {
        self.docheck
    }

    /// Whether generation expands `layer`: every layer before the horizon.
    pub fn expands(&self, layer: usize) -> bool {
        layer + 3 <= self.steps()
    }

    /// Whether `layer` is one of the last two, the horizon: worth 1 where
    /// the target shows, else 0, never expanded.
    pub fn is_horizon(&self, layer: usize) -> bool {
        layer + 2 >= self.steps()
    }

    /// Whether a position of `layer` is won: it is past
    /// [`Spec::docheck`] and shows the target.
    #[inline]
    pub fn is_won(&self, board: u64, layer: usize) -> bool {
        layer > self.docheck && self.formation.shows(board, self.target)
    }

    /// The layer a board of this tile sum belongs to, if any.
    pub fn layer_of_sum(&self, sum: u32) -> Option<usize> {
        let seed_sum = self.formation.seed_sum();
        let above = sum.checked_sub(seed_sum)?;
        (above % 2 == 0 && (above / 2) < self.steps() as u32).then_some((above / 2) as usize)
    }

    /// A position from a game as the table sees it: every tile above the
    /// target becomes a large tile (0xF, which never merges), so that a
    /// board can be written with its real tiles (`0x100000001bcd2a98` for
    /// L3-64's seed `0x100000001fff2fff`, in the reference's order). The
    /// walls of a formation with walls are written as 0xF already, and its
    /// boards are left as they are.
    ///
    /// ```
    /// use tablebase::{Formation, Position, Spec};
    ///
    /// let spec = Spec::new(Formation::builtin("L3")?, 6, 0.1)?;
    /// let game: Position = "0x100000001bcd2a98".parse()?;
    /// assert_eq!(spec.with_large_tiles(game).to_string(), "0x100000001fff2fff");
    /// # Ok::<(), tablebase::Error>(())
    /// ```
    pub fn with_large_tiles(&self, position: Position) -> Position {
        let board = position.bits();
        if self.formation.large() == Large::Wall {
            return position;
        }
        let board = (0..16).fold(board, |board, cell| {
            let tile = (board >> (4 * cell)) & 0xF;
            if tile > u64::from(self.target) {
                board | 0xF << (4 * cell)
            } else {
                board
            }
        });
        Position::from_bits(board)
    }

    /// A short name: formation and target tile, `L3-64`.
    pub fn name(&self) -> String {
        format!("{}-{}", self.formation.name(), 1u32 << self.target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l3_64_has_the_reference_layers() {
        let spec = Spec::new(Formation::builtin("L3").unwrap(), 6, 0.1).unwrap();
        assert_eq!((spec.steps(), spec.docheck()), (80, 28));
        assert_eq!(spec.name(), "L3-64");
    }

    /// `board` with the large tiles `spec` reads in it.
    fn large(spec: &Spec, board: u64) -> u64 {
        spec.with_large_tiles(Position::from_bits(board)).bits()
    }

    #[test]
    fn tiles_above_the_target_are_large_but_walls_stay() {
        let spec = Spec::new(Formation::builtin("L3").unwrap(), 6, 0.1).unwrap();
        // Tiles up to 64 stay, 128 and above become 0xF.
        assert_eq!(large(&spec, 0x6543_21e7), 0x6543_21ff);
        let walls = Spec::new(Formation::builtin("3x3").unwrap(), 5, 0.1).unwrap();
        assert_eq!(large(&walls, 0xfff0_0087), 0xfff0_0087);
    }

    #[test]
    fn impossible_targets_are_refused() {
        let l3 = || Formation::builtin("L3").unwrap();
        assert!(Spec::new(l3(), 2, 0.1).is_err());
        assert!(Spec::new(l3(), 15, 0.1).is_err());
        assert!(Spec::new(l3(), 6, 1.5).is_err());
        // Layers past the largest tile sum a board holds: L3-8 can have
        // 163,837 (its seeds sum to 196,616, six large tiles of 32768 and
        // 2 + 2 + 4).
        let steps =
            |extra: i32| Spec::new(l3().with_extra_steps(extra), 3, 0.1).map(|spec| spec.steps());
        assert_eq!(steps(163_833).unwrap(), 163_837);
        let error = steps(163_834).unwrap_err().to_string();
        assert!(
            error.ends_with("leaves 163838 layers, more than the 163837 that boards can fill"),
            "{error}"
        );
        let error = steps(-2).unwrap_err().to_string();
        assert!(error.ends_with("leaves 2 layers, fewer than 3"), "{error}");
    }
}
