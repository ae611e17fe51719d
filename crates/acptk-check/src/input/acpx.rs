//! acpx's JSON output (`acpx --format json`): every ACP message acpx sent or received, as the
//! raw JSON-RPC object, one per line and without its direction, so it reads like bare JSON-RPC
//! lines (senders inferred). When a run fails, acpx adds an error report of its own, shaped
//! like a JSON-RPC error response with a null id and `error.data.acpxCode`: it was never on
//! the wire, so it is not checked.
//!
//! ```text
//! {"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"agent exited","data":{"acpxCode":"RUNTIME","origin":"runtime"}}}
//! ```

use serde::Deserialize;

#[derive(Deserialize)]
struct Report {
    id: serde_json::Value,
    error: ReportError,
}

#[derive(Deserialize)]
struct ReportError {
    #[serde(default)]
    message: Option<String>,
    data: ReportData,
}

#[derive(Deserialize)]
struct ReportData {
    #[serde(rename = "acpxCode")]
    code: String,
}

/// When `line` is an error report of acpx's own, what it says.
pub(crate) fn own_error(line: &str) -> Option<String> {
    // The cheap look first: nearly every line is traffic.
    memchr::memmem::find(line.as_bytes(), b"\"acpxCode\"")?;
    let report: Report = serde_json::from_str(line).ok()?;
    if !report.id.is_null() {
        return None;
    }
    Some(format!(
        "acpx's own error report ({}: {}) was not on the wire: not checked",
        crate::finding::quote(&report.error.data.code),
        crate::finding::quote(report.error.message.as_deref().unwrap_or(""))
    ))
}
