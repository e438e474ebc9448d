//! Tables edited by hand or damaged, read by `info`, `verify` and `query`:
//! never a panic; one clear line, or the right answer.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::{Value, json};
use testkit::text;

fn tb_build(args: &[&str], dir: &Path) -> Output {
    testkit::run(env!("CARGO_BIN_EXE_tb-build"), args, dir)
}

/// A position of the table to query.
const BOARD: &str = "0xffff12000000ffff";

/// The commands that read a table, run on the table in `dir/t`.
const COMMANDS: [&[&str]; 3] = [
    &["info", "t"],
    &["verify", "t"],
    &["query", "--table", "t", "--board", BOARD],
];

/// A built 2x4-64 table, and what each command prints for it.
fn built() -> &'static (PathBuf, Vec<String>) {
    static BUILT: OnceLock<(PathBuf, Vec<String>)> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tb-build-edited");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let output = tb_build(&["build", "2x4", "64", "-o", "t"], &dir);
        assert!(output.status.success(), "{}", text(&output.stderr));
        let answers = COMMANDS
            .iter()
            .map(|args| {
                let output = tb_build(args, &dir);
                assert!(output.status.success(), "{}", text(&output.stderr));
                text(&output.stdout)
            })
            .collect();
        (dir.join("t"), answers)
    })
}

/// A copy of the table in a fresh folder, as `t`.
fn copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("t")).unwrap();
    for entry in std::fs::read_dir(&built().0).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join("t").join(path.file_name().unwrap())).unwrap();
    }
    dir
}

/// Runs every reader on the table in `dir/t`: none panics; each either
/// fails with one line, or (where `must_be_right` says so, in the order of
/// [`COMMANDS`]) prints what it prints for the intact table. Returns
/// whether each succeeded.
fn read_all(dir: &Path, must_be_right: [bool; 3]) -> Vec<bool> {
    COMMANDS
        .iter()
        .zip(&built().1)
        .zip(must_be_right)
        .map(|((args, intact), must_be_right)| {
            let output = tb_build(args, dir);
            let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
            match output.status.code() {
                Some(0) => {
                    if must_be_right {
                        assert_eq!(&stdout, intact, "{args:?}");
                    }
                    true
                }
                Some(1) => {
                    assert!(
                        stderr.starts_with("tb-build: ") && stderr.lines().count() == 1,
                        "{args:?}: {stderr}"
                    );
                    false
                }
                code => panic!("{args:?}: exit {code:?}: {stderr}"),
            }
        })
        .collect()
}

/// The manifest's fields, as JSON pointers.
const FIELDS: [&str; 19] = [
    "/version",
    "/formation/name",
    "/formation/masks",
    "/formation/target_cells",
    "/formation/canon",
    "/formation/large",
    "/formation/seeds/0",
    "/formation/extra_steps",
    "/formation/free",
    "/target",
    "/four_rate",
    "/options/precision",
    "/options/prune",
    "/options/level",
    "/options/optimal_only",
    "/steps",
    "/docheck",
    "/complete",
    "/checksum",
];

fn values() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        Just(None),
        any::<i64>().prop_map(|n| Some(json!(n))),
        (0u64..200).prop_map(|n| Some(json!(n))),
        any::<u64>().prop_map(|n| Some(json!(n))),
        (-10.0f64..10.0).prop_map(|x| Some(json!(x))),
        "0x[0-9a-f]{1,16}".prop_map(|s| Some(json!(s))),
        prop::sample::select(vec![
            "", "L3", "2x4", "3x3", "u16", "f64", "wall", "sliding", "identity", "min24", "full"
        ])
        .prop_map(|s| Some(json!(s))),
        any::<bool>().prop_map(|b| Some(json!(b))),
        Just(Some(Value::Null)),
        Just(Some(json!([]))),
        Just(Some(json!(["0xffff00000000ffff", "0x1"]))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// A field of the manifest set to anything, or removed. With its
    /// checksum the edit is caught; without (a manifest written before it
    /// was kept) the fields must at least agree, and nothing panics.
    #[test]
    fn an_edited_manifest_is_refused_or_read_right(
        field in prop::sample::select(FIELDS.to_vec()),
        value in values(),
        legacy in any::<bool>(),
    ) {
        let dir = copy();
        let path = dir.path().join("t/table.json");
        let original: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let mut manifest = original.clone();
        let (parent, key) = field.rsplit_once('/').unwrap();
        let parent = manifest.pointer_mut(if parent.is_empty() { "" } else { parent }).unwrap();
        match (parent, value) {
            (Value::Object(map), Some(value)) => { map.insert(key.to_owned(), value); }
            (Value::Object(map), None) => { map.remove(key); }
            (Value::Array(items), Some(value)) => items[0] = value,
            (Value::Array(items), None) => { items.remove(0); }
            _ => unreachable!("fields are in objects or arrays"),
        }
        if legacy {
            manifest.as_object_mut().unwrap().remove("checksum");
        }
        std::fs::write(&path, serde_json::to_string_pretty(&manifest).unwrap()).unwrap();
        // An edit that reads as the same manifest (a field left out that
        // defaults to its value) is no edit.
        let read = |json: &Value| {
            let mut json = json.clone();
            json.as_object_mut().unwrap().remove("checksum");
            serde_json::from_value::<tablebase::builder::Manifest>(json).ok()
        };
        let unchanged = read(&manifest).is_some() && read(&manifest) == read(&original);
        let succeeded = read_all(dir.path(), [!legacy || unchanged; 3]);
        if !legacy && !unchanged && field != "/checksum" {
            prop_assert_eq!(succeeded, vec![false; 3], "{} edited, checksum kept", field);
        }
    }

    /// A byte of a layer file changed: `verify` says so, and `query` fails
    /// with one line or answers right. (`info` reads headers and sizes
    /// only, not the data: it may describe what the header now says.)
    #[test]
    fn a_damaged_layer_file_is_found_by_verify(
        layer in 0usize..64,
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let dir = copy();
        let path = dir.path().join(format!("t/layer-{layer:04}.tbl"));
        let mut bytes = std::fs::read(&path).unwrap();
        let at = at.index(bytes.len().min(256));
        let changed = bytes[at] != byte;
        bytes[at] = byte;
        std::fs::write(&path, &bytes).unwrap();
        let succeeded = read_all(dir.path(), [false, true, true]);
        prop_assert!(!(changed && succeeded[1]), "verify found nothing at byte {} of layer {}", at, layer);
    }
}
