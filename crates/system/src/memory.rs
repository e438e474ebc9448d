//! Memory figures the operating system gives (Linux's `/proc`), and byte
//! counts as people write them.

/// The memory the operating system says can be allocated without swapping
/// (`MemAvailable` in `/proc/meminfo`), or `None` where that is unknown.
pub fn available_memory() -> Option<u64> {
    proc_figure("/proc/meminfo", "MemAvailable:")
}

/// The peak resident memory of this process (`VmHWM` in
/// `/proc/self/status`), or `None` where that is unknown.
pub fn peak_resident_memory() -> Option<u64> {
    proc_figure("/proc/self/status", "VmHWM:")
}

/// The figure in kiB on the line of `file` that starts with `key`, in
/// bytes.
fn proc_figure(file: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|line| line.starts_with(key))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// A byte count in the largest binary unit that keeps it at least 1
/// (`256 MiB`, `1.5 GiB`).
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if value.fract() == 0.0 {
        format!("{value} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Reads a byte count such as `512M`, `2G`, `1.5GiB` or `1000000`: `None`
/// for anything else, a count past `u64::MAX` among them (rather than
/// quietly taking the largest).
pub fn parse_bytes(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return None,
    };
    // Whole numbers exactly (an f64 rounds past 2^53); fractions in f64.
    if let Ok(whole) = number.parse::<u64>() {
        return whole.checked_mul(scale);
    }
    let bytes = number.parse::<f64>().ok()? * scale as f64;
    // 2^64 is exact in f64; below it the cast cannot saturate.
    (bytes < 2f64.powi(64)).then_some(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_and_print() {
        assert_eq!(parse_bytes("2G"), Some(2 << 30));
        assert_eq!(parse_bytes("1.5GiB"), Some(3 << 29));
        assert_eq!(parse_bytes("512 m"), Some(512 << 20));
        assert_eq!(parse_bytes("100"), Some(100));
        assert_eq!(parse_bytes("lots"), None);
        assert_eq!(parse_bytes("3X"), None);
        assert_eq!(parse_bytes("16777215T"), Some(u64::MAX - (1 << 40) + 1));
        assert_eq!(parse_bytes("16777216T"), None);
        assert_eq!(parse_bytes("99999999999999999999"), None);
        assert_eq!(parse_bytes("18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_bytes("18446744073709551616"), None);
        assert_eq!(parse_bytes("9007199254740993"), Some((1 << 53) + 1));
        assert_eq!(format_bytes(256 << 20), "256 MiB");
        assert_eq!(format_bytes(3 << 29), "1.5 GiB");
        assert_eq!(format_bytes(100), "100 B");
    }

    #[test]
    fn this_machine_reports_memory() {
        if cfg!(target_os = "linux") {
            assert!(available_memory().unwrap() > 0);
            assert!(peak_resident_memory().unwrap() > 0);
        }
    }
}
