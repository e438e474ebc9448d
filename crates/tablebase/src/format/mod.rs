//! What a table's folder holds on disk: the manifest (`table.json`), the
//! layer files and the page writer that writes them past the page cache.

pub mod layer_file;
pub mod manifest;
pub(crate) mod page_writer;
pub mod partition;

use std::path::{Path, PathBuf};

/// The file of solved layer `index`.
pub fn layer_path(dir: &Path, index: usize) -> PathBuf {
    dir.join(format!("layer-{index:04}.tbl"))
}
