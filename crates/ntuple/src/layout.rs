//! How a network's features are laid out in its tables, and visited:
//! the order TDL2048+ sums them in, on the fastest path each network
//! allows.

use board::Board;

use crate::Pattern;
use crate::Table;
use crate::features::{self, Feature, Indexer, Listed, PextFeature, TableFeature};

/// How a network's features are read and summed: TDL2048+'s two orders,
/// kept so that equal weights give bit-identical values.
#[derive(Clone, Debug)]
pub(crate) enum Layout {
    /// Every pattern isomorphic: the patterns are read on the eight images of
    /// the board, one partial sum per image. `fast` holds the same features
    /// when each index is one `pext`.
    Walk {
        features: Vec<TableFeature>,
        fast: Option<Vec<PextFeature>>,
    },
    /// Otherwise: one running sum over the features in TDL2048+'s list order
    /// (tables in order; an isomorphic table's eight features in the order
    /// of [`crate::pattern::feature_symmetries`]), each read on its image of the
    /// board.
    List {
        /// Each table's features, and where the table starts.
        tables: Vec<(Listed, *const u8)>,
        /// The same features when each is one `pext` of the board itself
        /// (networks without isomorphism, such as 8x4patt): a loop of a few
        /// instructions a weight, about 15% faster training of 8x4patt.
        fast: Option<Vec<PextFeature>>,
    },
}

impl Layout {
    /// The layout of `patterns`, read from `tables`.
    pub(crate) fn new(patterns: &[Pattern], tables: &[Table]) -> Self {
        let tables = patterns.iter().copied().zip(tables.iter().map(Table::base));
        if patterns.iter().all(Pattern::is_isomorphic) {
            let features = tables
                .clone()
                .map(|(pattern, base)| TableFeature {
                    indexer: Indexer::new(pattern),
                    base,
                })
                .collect();
            let fast = tables
                .map(|(pattern, base)| {
                    Some(PextFeature {
                        mask: pattern.pext_mask()?,
                        base,
                    })
                })
                .collect();
            return Self::Walk { features, fast };
        }
        let tables: Vec<_> = tables
            .map(|(pattern, base)| (Listed::of(pattern), base))
            .collect();
        let fast = tables
            .iter()
            .map(|&(features, base)| {
                Some(PextFeature {
                    mask: features.mask_on_the_board()?,
                    base,
                })
            })
            .collect();
        Self::List { tables, fast }
    }

    /// Sums `weight(entry)` over every feature of `board`, in the order
    /// [`crate::Network`] documents, on the fastest path the layout allows. The common pattern
    /// counts are unrolled, so that each weight costs a few instructions and
    /// many loads can be in flight at once.
    ///
    /// # Safety
    /// The tables must hold entries of type `E`.
    #[inline(always)]
    pub(crate) unsafe fn visit<E>(&self, board: Board, mut weight: impl FnMut(&E) -> f32) -> f32 {
        let (features, fast) = match self {
            Layout::Walk { features, fast } => (features, fast),
            Layout::List {
                fast: Some(fast), ..
            } => {
                return fast.iter().fold(0.0f32, |total, feature| {
                    // SAFETY: the caller promises the entry type.
                    total + weight(unsafe { feature.entry(board) })
                });
            }
            Layout::List { tables, .. } => {
                let images = features::images(board);
                return tables.iter().fold(0.0f32, |total, (features, base)| {
                    features.fold(total, &images, |total, index| {
                        // SAFETY: a feature's index is below its table's
                        // length; the network owns the table and keeps it
                        // mapped, and the caller promises the entry type.
                        total + weight(unsafe { features::entry_at(*base, index) })
                    })
                });
            }
        };
        let Some(fast) = fast else {
            // SAFETY: the caller promises the entry type.
            return unsafe { walk(&features[..], board, weight) };
        };
        // SAFETY: the caller promises the entry type.
        unsafe {
            match fast.len() {
                2 => walk(unrolled::<2>(fast), board, weight),
                4 => walk(unrolled::<4>(fast), board, weight),
                5 => walk(unrolled::<5>(fast), board, weight),
                6 => walk(unrolled::<6>(fast), board, weight),
                8 => walk(unrolled::<8>(fast), board, weight),
                _ => walk(&fast[..], board, weight),
            }
        }
    }
}

fn unrolled<const N: usize>(features: &[PextFeature]) -> &[PextFeature; N] {
    features.try_into().expect("the length was matched")
}

/// Sums `weight` over the features on the eight images of `board` (the
/// board, then alternately flipped and transposed), one partial sum per
/// image.
///
/// The flips and transposes alternate by position, a pair per turn of a
/// short loop that LLVM unrolls. A loop over the eight steps was not
/// unrolled, so each image chose between a flip and a transpose with a
/// branch and loaded the transpose's masks again; unrolled, testing runs
/// about 4% faster.
///
/// # Safety
/// The features' tables must hold entries of type `E`.
#[inline(always)]
unsafe fn walk<'a, F: Feature + 'a, E>(
    features: impl IntoIterator<Item = &'a F> + Copy,
    board: Board,
    mut weight: impl FnMut(&E) -> f32,
) -> f32 {
    let mut total = 0.0f32;
    let mut add = |image: Board| {
        let mut partial = 0.0f32;
        for feature in features {
            // SAFETY: the caller promises the entry type.
            partial += weight(unsafe { feature.entry(image) });
        }
        total += separate(partial);
    };
    let mut image = board;
    add(image);
    for _ in 0..3 {
        image = image.flip();
        add(image);
        image = image.transpose();
        add(image);
    }
    add(image.flip());
    total
}

/// `value`, unchanged, through a wall the optimiser cannot see through.
///
/// Without it, LLVM's SLP vectoriser sums two images' partial sums side by
/// side in the lanes of one vector register: each weight is then loaded
/// into a general register and inserted into its lane, with spills, where
/// alone it is one `vaddss` from memory. Fewer instructions a weight keep
/// more loads in flight: about 4% faster training of 4x6patt and 8x6patt
/// (docs/learning.md).
#[inline(always)]
fn separate(value: f32) -> f32 {
    #[cfg(target_arch = "x86_64")]
    {
        let mut value = value;
        // SAFETY: no instruction at all; the block only claims to change
        // `value` in its register, touching no memory, stack or flags.
        unsafe {
            std::arch::asm!(
                "/* {0} */",
                inout(xmm_reg) value,
                options(pure, nomem, nostack, preserves_flags)
            );
        }
        value
    }
    #[cfg(not(target_arch = "x86_64"))]
    value
}
