//! Recorded games for the replay mode: the files of the folders given, and
//! a game laid out position by position.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use board::GameRecord;
use board::record::read_records;
use serde::Serialize;

use crate::text::board_text;

/// The largest record file read: about 60 million moves.
pub const MOST_RECORD_BYTES: u64 = 256 << 20;

/// The folders of record files the server may read, and nothing else.
#[derive(Clone, Debug, Default)]
pub struct RecordFolders {
    dirs: Vec<PathBuf>,
}

/// A record file the page can open.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RecordFile {
    /// Its name in its folder: what the page asks for.
    pub name: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// Where it is: never sent, since the page names files by name.
    #[serde(skip)]
    path: PathBuf,
}

/// One recorded game laid out for the page: every position, and the move
/// played on each.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Replay {
    /// The record's tags other than the computed ones.
    pub tags: Vec<(String, String)>,
    /// The game's score.
    pub score: u64,
    /// Every position to move on, then the last board ([`crate::text`]).
    pub boards: Vec<String>,
    /// The move played on each position but the last: `up`, ...
    pub moves: Vec<&'static str>,
    /// The score after each position (0 for the first).
    pub scores: Vec<u64>,
}

impl RecordFolders {
    /// The record files in `dirs`.
    pub fn new(dirs: Vec<PathBuf>) -> Self {
        Self { dirs }
    }

    /// The regular files in the folders, by name (the first folder's where
    /// two share a name), skipping hidden ones, those over
    /// [`MOST_RECORD_BYTES`], and links (which may lead out of the
    /// folders).
    pub fn list(&self) -> Vec<RecordFile> {
        let mut files: Vec<RecordFile> = Vec::new();
        for dir in &self.dirs {
            let Ok(entries) = fs::read_dir(dir) else {
                continue;
            };
            let mut here: Vec<RecordFile> = entries
                .filter_map(|entry| {
                    let entry = entry.ok()?;
                    // Of the entry itself: a link is not a regular file.
                    let metadata = entry.metadata().ok()?;
                    let name = entry.file_name().into_string().ok()?;
                    (metadata.is_file()
                        && !name.starts_with('.')
                        && metadata.len() <= MOST_RECORD_BYTES)
                        .then(|| RecordFile {
                            name,
                            bytes: metadata.len(),
                            path: entry.path(),
                        })
                })
                .filter(|file| files.iter().all(|known| known.name != file.name))
                .collect();
            here.sort_by(|a, b| a.name.cmp(&b.name));
            files.extend(here);
        }
        files
    }

    /// The games of the file listed as `name`.
    ///
    /// # Errors
    /// One line: a name that is not a listed file (a path, say), a file
    /// that cannot be read, or one that holds no records or a bad one.
    pub fn read(&self, name: &str) -> Result<Vec<GameRecord>, String> {
        let listed = self.list().into_iter().find(|file| file.name == name);
        match listed {
            Some(file) => read_file(&file.path),
            None => Err(format!(
                "no record file {name:?} in the record folders (GET /api/records lists them)"
            )),
        }
    }
}

/// The games of the file at `path`, read up to [`MOST_RECORD_BYTES`].
fn read_file(path: &Path) -> Result<Vec<GameRecord>, String> {
    let shown = path.display();
    let file = fs::File::open(path).map_err(|error| format!("{shown}: cannot open: {error}"))?;
    let mut text = String::new();
    file.take(MOST_RECORD_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|error| format!("{shown}: cannot read as text: {error}"))?;
    if text.len() as u64 > MOST_RECORD_BYTES {
        return Err(format!(
            "{shown}: over {} MiB, too large to open",
            MOST_RECORD_BYTES >> 20
        ));
    }
    read_text(&text).map_err(|problem| format!("{shown}: {problem}"))
}

/// The games of a record file's text.
///
/// # Errors
/// One line naming the first bad line, or saying there are no games.
pub fn read_text(text: &str) -> Result<Vec<GameRecord>, String> {
    let games = read_records(text).map_err(|error| error.to_string())?;
    if games.is_empty() {
        return Err("holds no game records (docs/records.md)".to_owned());
    }
    Ok(games)
}

impl Replay {
    /// `record` laid out position by position.
    pub fn of(record: &GameRecord) -> Self {
        let mut boards = vec![board_text(record.start())];
        let mut moves = Vec::with_capacity(record.steps().len());
        let mut scores = vec![0];
        for turn in record.turns() {
            boards.push(board_text(turn.next));
            moves.push(turn.direction.name());
            scores.push(scores.last().copied().unwrap_or(0) + u64::from(turn.afterstate.reward));
        }
        Self {
            tags: record.tags().to_vec(),
            score: record.score(),
            boards,
            moves,
            scores,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_files_listed_in_the_folders_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let records = dir.path().join("records");
        fs::create_dir(&records).unwrap();
        fs::write(records.join("games.txt"), "0111#L21\n").unwrap();
        fs::write(records.join("empty.txt"), "# nothing\n").unwrap();
        fs::write(dir.path().join("secret.txt"), "0111#L21\n").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), records.join("link.txt"))
            .unwrap();
        let folders = RecordFolders::new(vec![records]);
        let names: Vec<String> = folders.list().into_iter().map(|f| f.name).collect();
        assert_eq!(names, ["empty.txt", "games.txt"]);
        assert_eq!(folders.read("games.txt").unwrap().len(), 1);
        for outside in ["../secret.txt", "/etc/passwd", "secret.txt", "link.txt", ""] {
            let error = folders.read(outside).unwrap_err();
            assert!(error.contains("no record file"), "{outside}: {error}");
        }
        assert!(
            folders
                .read("empty.txt")
                .unwrap_err()
                .contains("holds no game records")
        );
    }

    #[test]
    fn a_replay_lists_every_position_move_and_score() {
        let record: GameRecord = "0111#L21#L31#D01".parse().unwrap();
        let replay = Replay::of(&record);
        assert_eq!(replay.boards.len(), 4);
        assert_eq!(replay.boards[0], "1100000000000000");
        assert_eq!(replay.moves, ["left", "left", "down"]);
        assert_eq!(replay.scores, [0, 4, 4, 4]);
        assert_eq!(replay.boards[3], "1000000000002101");
    }
}
