//! The JSON report: one object per finding per line, then a summary object.
//!
//! ```text
//! {"kind":"finding","file":"s.ndjson","line":7,"severity":"error","rule":"notice-without-capability","message":"..."}
//! {"kind":"summary","file":"s.ndjson","format":"transcript","messages":12,"runs":1,"findings":1,"errors":1,"warnings":0,"info":0,"notes":0,"rules":{"notice-without-capability":1}}
//! ```

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use crate::finding::{Finding, Severity};
use crate::report::Summary;

#[derive(Serialize)]
struct FindingLine<'a> {
    kind: &'static str,
    file: &'a str,
    line: u64,
    severity: &'static str,
    rule: &'static str,
    message: &'a str,
}

#[derive(Serialize)]
struct SummaryLine<'a> {
    kind: &'static str,
    file: &'a str,
    format: &'static str,
    messages: u64,
    runs: u64,
    findings: u64,
    errors: u64,
    warnings: u64,
    info: u64,
    notes: u64,
    rules: Rules<'a>,
}

/// The per-rule counts as an object, in rule order.
struct Rules<'a>(&'a Summary);

impl Serialize for Rules<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (rule, count) in self.0.rules() {
            map.serialize_entry(rule.id(), &count)?;
        }
        map.end()
    }
}

fn to_line<T: Serialize>(value: &T) -> String {
    // Serialising these plain structs cannot fail.
    let mut text = serde_json::to_string(value).unwrap_or_default();
    text.push('\n');
    text
}

/// One finding as a JSON object and a line break.
pub fn json_finding(file: &str, finding: &Finding) -> String {
    to_line(&FindingLine {
        kind: "finding",
        file,
        line: finding.line,
        severity: finding.severity().as_str(),
        rule: finding.rule.id(),
        message: &finding.message,
    })
}

/// The summary as a JSON object and a line break.
pub fn json_summary(file: &str, summary: &Summary) -> String {
    to_line(&SummaryLine {
        kind: "summary",
        file,
        format: summary.format.as_str(),
        messages: summary.messages,
        runs: summary.runs,
        findings: summary.total(),
        errors: summary.by_severity(Severity::Error),
        warnings: summary.by_severity(Severity::Warning),
        info: summary.by_severity(Severity::Info),
        notes: summary.by_severity(Severity::Note),
        rules: Rules(summary),
    })
}
