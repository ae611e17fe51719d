//! Finding `python3` for the script agents and clients: a missing one is a clear skip here and
//! a failure under `ACP_INTEROP_REQUIRED=1`.

use std::process::Command;

/// `python3` when it runs, else `None` after saying it is skipped (a panic when required).
pub fn python() -> Option<&'static str> {
    let found = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        Some("python3")
    } else if std::env::var_os("ACP_INTEROP_REQUIRED").is_some_and(|v| v == "1") {
        panic!("python3 is needed for the script peers (ACP_INTEROP_REQUIRED=1)");
    } else {
        eprintln!("skipped: python3 not found");
        None
    }
}
