//! Canonical forms: one stored board for each class of positions that the
//! formation's symmetries make equivalent.

use board::Board;

/// The symmetries a formation admits. The stored key of a position is the
/// numerically smallest of its images (in 2048lab's layout: the
/// representative differs from the reference builder's, the classes do not).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Canon {
    /// No symmetry.
    Identity,
    /// All eight symmetries of the square.
    Full,
    /// The main-diagonal reflection.
    Diagonal,
    /// The left-right mirror.
    Horizontal,
    /// The four symmetries of the 2x4 block of rows 1 and 2 (rows 0 and 3
    /// are walls).
    Min24,
    /// The eight symmetries of the 3x3 block of rows and columns 0 to 2.
    Min33,
    /// The four symmetries of the 3x4 block of rows 0 to 2.
    Min34,
}

/// The name a formation file gives it: `identity`, `min24`, ...
impl std::fmt::Display for Canon {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Identity => "identity",
            Self::Full => "full",
            Self::Diagonal => "diagonal",
            Self::Horizontal => "horizontal",
            Self::Min24 => "min24",
            Self::Min33 => "min33",
            Self::Min34 => "min34",
        })
    }
}

impl Canon {
    /// The canonical form of `board`.
    #[inline(always)]
    pub fn canonical(self, board: u64) -> u64 {
        let b = Board::from_raw(board);
        match self {
            Self::Identity => board,
            Self::Full => b.canonical().raw(),
            Self::Diagonal => board.min(b.transpose().raw()),
            Self::Horizontal => board.min(b.mirror().raw()),
            Self::Min24 | Self::Min33 | Self::Min34 => self.smallest_image(board),
        }
    }

    /// The canonical forms of four boards: a move's four results at once,
    /// in vector registers for full symmetry ([`Board::canonical_four`]),
    /// which took free formations' builds about a tenth less CPU time than
    /// one board at a time (docs/tablebase-builder.md).
    #[inline(always)]
    pub fn canonical_all(self, boards: [u64; 4]) -> [u64; 4] {
        match self {
            Self::Identity => boards,
            Self::Full => Board::canonical_four(boards.map(Board::from_raw)).map(Board::raw),
            _ => boards.map(|board| self.canonical(board)),
        }
    }

    /// The smallest image under a small-board group, out of line: the
    /// common modes stay small enough to inline.
    #[inline(never)]
    fn smallest_image(self, board: u64) -> u64 {
        let (images, count) = self.image_array(board);
        images[..count].iter().copied().min().unwrap_or(board)
    }

    /// The images of `board` under the symmetries, the board first.
    pub fn images(self, board: u64) -> Vec<u64> {
        let (images, count) = self.image_array(board);
        images[..count].to_vec()
    }

    #[inline(always)]
    fn image_array(self, board: u64) -> ([u64; 8], usize) {
        let b = Board::from_raw(board);
        let mut images = [board; 8];
        let count = match self {
            Self::Identity => 1,
            Self::Full => {
                for (image, &symmetry) in images.iter_mut().zip(&board::Symmetry::ALL) {
                    *image = b.transform(symmetry).raw();
                }
                8
            }
            Self::Diagonal => {
                images[1] = b.transpose().raw();
                2
            }
            Self::Horizontal => {
                images[1] = b.mirror().raw();
                2
            }
            Self::Min24 => {
                let mirrored = b.mirror();
                images[1] = mirrored.raw();
                images[2] = b.flip().raw();
                images[3] = mirrored.flip().raw();
                4
            }
            Self::Min33 => {
                // Alternating the two reflections visits all eight images.
                for step in 1..8 {
                    images[step] = if step % 2 == 1 {
                        mirror3(images[step - 1])
                    } else {
                        Board::from_raw(images[step - 1]).transpose().raw()
                    };
                }
                8
            }
            Self::Min34 => {
                let mirrored = b.mirror().raw();
                images[1] = mirrored;
                images[2] = flip3(board);
                images[3] = flip3(mirrored);
                4
            }
        };
        (images, count)
    }
}

/// Mirrors columns 0 to 2 left to right, column 3 staying.
#[inline(always)]
fn mirror3(board: u64) -> u64 {
    const COLUMN_0: u64 = 0x000F_000F_000F_000F;
    const COLUMN_2: u64 = COLUMN_0 << 8;
    (board & !(COLUMN_0 | COLUMN_2)) | ((board & COLUMN_0) << 8) | ((board & COLUMN_2) >> 8)
}

/// Reflects rows 0 to 2 top to bottom, row 3 staying.
#[inline(always)]
fn flip3(board: u64) -> u64 {
    const ROW_0: u64 = 0xFFFF;
    const ROW_2: u64 = ROW_0 << 32;
    (board & !(ROW_0 | ROW_2)) | ((board & ROW_0) << 32) | ((board & ROW_2) >> 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Canon; 7] = [
        Canon::Identity,
        Canon::Full,
        Canon::Diagonal,
        Canon::Horizontal,
        Canon::Min24,
        Canon::Min33,
        Canon::Min34,
    ];

    /// What `tb-build list` and errors print is what a formation file says.
    #[test]
    fn displayed_as_in_formation_files() {
        for canon in ALL {
            assert_eq!(
                serde_json::to_string(&canon).unwrap(),
                format!("\"{canon}\"")
            );
        }
    }

    #[test]
    fn canonical_is_the_smallest_image_and_images_form_a_group() {
        let board = 0x0123_4567_89ab_cdefu64;
        for canon in ALL {
            let images = canon.images(board);
            assert_eq!(
                canon.canonical(board),
                *images.iter().min().unwrap(),
                "{canon:?}"
            );
            // Every image has the same image set: a group acting on the board.
            for &image in &images {
                let mut again = canon.images(image);
                let mut first = images.clone();
                again.sort_unstable();
                first.sort_unstable();
                assert_eq!(again, first, "{canon:?}");
                assert_eq!(canon.canonical(image), canon.canonical(board));
            }
        }
    }

    proptest::proptest! {
        /// Four boards at once (in vector registers for full symmetry) come
        /// out as one at a time, whatever their top cells: half the images
        /// of such boards have the top bit set, which a signed comparison
        /// would take for the smallest.
        #[test]
        fn four_boards_at_once_as_one_at_a_time(boards in proptest::prelude::any::<[u64; 4]>()) {
            for canon in ALL {
                proptest::prop_assert_eq!(
                    canon.canonical_all(boards),
                    boards.map(|board| canon.canonical(board)),
                    "{:?}", canon
                );
            }
        }
    }

    #[test]
    fn sub_board_symmetries_keep_the_walls_in_place() {
        // 3x3: column 3 and row 3 are walls.
        let walls = 0xFFFF_F000_F000_F000u64;
        for image in Canon::Min33.images(walls | 0x0000_0321_0054_0876) {
            assert_eq!(image & walls, walls);
        }
        // 3x4: row 3 is a wall; 2x4: rows 0 and 3.
        let row3 = 0xFFFF_0000_0000_0000u64;
        for image in Canon::Min34.images(row3 | 0x0000_4321_8765_cba9) {
            assert_eq!(image & row3, row3);
        }
        let rows03 = 0xFFFF_0000_0000_FFFFu64;
        for image in Canon::Min24.images(rows03 | 0x0000_8765_4321_0000) {
            assert_eq!(image & rows03, rows03);
        }
    }
}
