//! Faulting a table in makes its memory resident: in a test binary of its
//! own, so that no other test allocates or frees memory meanwhile.

#![cfg(target_os = "linux")]

use ntuple::Table;

/// This process's resident memory, from /proc/self/status.
fn resident_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux has /proc");
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS is reported");
    kib * 1024
}

#[test]
fn fault_in_makes_every_page_resident_and_keeps_the_weights() {
    const ENTRIES: usize = 16 << 20; // 64 MiB
    let table = Table::zeroed(ENTRIES).unwrap();
    table.set(12_345, 1.5);
    let before = resident_bytes();
    table.fault_in();
    let grown = resident_bytes().saturating_sub(before);
    assert!(
        grown >= (ENTRIES as u64 * 4) * 9 / 10,
        "resident memory grew by {grown} bytes for a 64 MiB table"
    );
    assert_eq!(table.get(12_345), 1.5);
    assert_eq!(table.get(ENTRIES - 1), 0.0);
}
