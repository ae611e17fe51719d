//! The report of a suite, as text (evidence as `FILE:LINE: ...`, like `acp check`), one JSON
//! document, or JUnit XML for CI systems.

use std::fmt::Write as _;

use acptk_check::Severity;
use acptk_check::report::text_finding;
use serde_json::{Value, json};

use crate::outcome::{Outcome, Verdict};
use crate::suite::Report;

/// Counts of outcomes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Counts {
    /// Passed.
    pub passed: usize,
    /// Failed (any level).
    pub failed: usize,
    /// Failed `MUST`s.
    pub failed_must: usize,
    /// Not exercised.
    pub not_exercised: usize,
    /// Not applicable.
    pub not_applicable: usize,
}

impl Counts {
    /// Counts the verdicts of `report`.
    pub fn of(report: &Report) -> Self {
        let mut counts = Counts::default();
        for verdict in &report.verdicts {
            match verdict.outcome {
                Outcome::Passed => counts.passed += 1,
                Outcome::Failed { .. } => {
                    counts.failed += 1;
                    counts.failed_must += usize::from(verdict.fails_run());
                }
                Outcome::NotExercised { .. } => counts.not_exercised += 1,
                Outcome::NotApplicable { .. } => counts.not_applicable += 1,
            }
        }
        counts
    }
}

/// Why a verdict that did not pass or fail came out so.
fn reason(outcome: &Outcome) -> Option<&str> {
    match outcome {
        Outcome::NotExercised { why } | Outcome::NotApplicable { why } => Some(why),
        _ => None,
    }
}

/// The text report: one line per verdict, the evidence of each failure under it as
/// `FILE:LINE: note`, the findings of `acp check` over the runs, and a summary with the time.
pub fn text(report: &Report) -> String {
    let mut out = String::new();
    for verdict in &report.verdicts {
        let requirement = verdict.requirement;
        let _ = write!(
            out,
            "{:<14} {:<6} v{} {}",
            verdict.outcome.as_str(),
            requirement.level,
            verdict.version,
            requirement.id
        );
        match &verdict.outcome {
            Outcome::Failed { evidence } => {
                let _ = writeln!(out, ": {}", requirement.summary);
                for e in evidence {
                    let _ = writeln!(out, "    {}:{}: {}", e.run, e.line, e.note);
                }
                let _ = writeln!(out, "    ({})", requirement.source);
            }
            other => match reason(other) {
                Some(why) => {
                    let _ = writeln!(out, ": {why}");
                }
                None => out.push('\n'),
            },
        }
    }
    let findings: usize = report.runs.iter().map(|r| r.findings.len()).sum();
    if findings > 0 {
        let _ = writeln!(out, "\nacp check over the recorded runs:");
        for run in &report.runs {
            for finding in &run.findings {
                out.push_str(&text_finding(&run.name, finding));
            }
        }
    }
    if !report.to_look_at.is_empty() {
        let _ = writeln!(
            out,
            "\nFor a person to check (what the client should have shown):"
        );
        for item in &report.to_look_at {
            let _ = writeln!(out, "  - {item}");
        }
    }
    let c = Counts::of(report);
    let _ = writeln!(
        out,
        "\n{} passed, {} failed ({} MUST), {} not exercised, {} not applicable; {} finding(s) of acp check; {:.2} s",
        c.passed,
        c.failed,
        c.failed_must,
        c.not_exercised,
        c.not_applicable,
        findings,
        report.elapsed.as_secs_f64()
    );
    out
}

fn verdict_json(verdict: &Verdict) -> Value {
    let r = verdict.requirement;
    let mut object = json!({
        "id": r.id,
        "level": r.level.as_str(),
        "version": verdict.version,
        "outcome": verdict.outcome.as_str(),
        "summary": r.summary,
        "source": r.source,
    });
    match &verdict.outcome {
        Outcome::Failed { evidence } => {
            object["evidence"] = evidence
                .iter()
                .map(|e| json!({"file": e.run, "line": e.line, "note": e.note}))
                .collect();
        }
        other => {
            if let Some(why) = reason(other) {
                object["why"] = Value::from(why);
            }
        }
    }
    object
}

/// The JSON report: one document with the verdicts, the findings of `acp check`, the counts
/// and the time in milliseconds.
pub fn json(report: &Report) -> String {
    let c = Counts::of(report);
    let findings: Vec<Value> = report
        .runs
        .iter()
        .flat_map(|run| {
            run.findings.iter().map(|f| {
                json!({"file": run.name, "line": f.line, "severity": f.severity().as_str(), "rule": f.rule.id(), "message": f.message})
            })
        })
        .collect();
    let document = json!({
        "requirements": report.verdicts.iter().map(verdict_json).collect::<Vec<_>>(),
        "findings": findings,
        "runs": report.runs.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        "passed": c.passed,
        "failed": c.failed,
        "failed_must": c.failed_must,
        "not_exercised": c.not_exercised,
        "not_applicable": c.not_applicable,
        "elapsed_ms": report.elapsed.as_millis() as u64,
        "subject": report.subject,
        "to_look_at": report.to_look_at,
        "ok": !report.failed(),
    });
    let mut text = document.to_string();
    text.push('\n');
    text
}

/// Escapes text for XML attributes and content; control characters XML 1.0 cannot carry
/// become spaces.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The JUnit XML report: one `testsuite` per protocol version with one `testcase` per
/// requirement (`failure` for a failed one of any level, its `type` the level; `skipped` for
/// not exercised and not applicable), and a suite `acp-check` with one case per run that
/// fails when `acp check` found an error in it.
pub fn junit(report: &Report) -> String {
    let subject = report.subject;
    let mut suites = String::new();
    let mut versions: Vec<u16> = report.verdicts.iter().map(|v| v.version).collect();
    versions.dedup();
    for version in versions {
        let verdicts: Vec<&Verdict> = report
            .verdicts
            .iter()
            .filter(|v| v.version == version)
            .collect();
        let failures = verdicts
            .iter()
            .filter(|v| matches!(v.outcome, Outcome::Failed { .. }))
            .count();
        let skipped = verdicts
            .iter()
            .filter(|v| reason(&v.outcome).is_some())
            .count();
        let _ = writeln!(
            suites,
            "  <testsuite name=\"acp conform {subject} v{version}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">",
            verdicts.len()
        );
        for verdict in verdicts {
            let r = verdict.requirement;
            let _ = write!(
                suites,
                "    <testcase classname=\"acp.conform.{subject}.v{version}\" name=\"{} [{}]\">",
                xml(r.id),
                r.level
            );
            match &verdict.outcome {
                Outcome::Failed { evidence } => {
                    let body: String = evidence
                        .iter()
                        .map(|e| format!("{}:{}: {}\n", e.run, e.line, e.note))
                        .collect();
                    let _ = write!(
                        suites,
                        "<failure type=\"{}\" message=\"{}\">{}({})</failure>",
                        r.level,
                        xml(r.summary),
                        xml(&body),
                        xml(r.source)
                    );
                }
                other => {
                    if let Some(why) = reason(other) {
                        let _ = write!(
                            suites,
                            "<skipped message=\"{}: {}\"/>",
                            other.as_str(),
                            xml(why)
                        );
                    }
                }
            }
            suites.push_str("</testcase>\n");
        }
        suites.push_str("  </testsuite>\n");
    }
    let errors = |run: &crate::suite::Run| {
        run.findings
            .iter()
            .filter(|f| f.severity() == Severity::Error)
            .count()
    };
    let failing = report.runs.iter().filter(|r| errors(r) > 0).count();
    let _ = writeln!(
        suites,
        "  <testsuite name=\"acp check\" tests=\"{}\" failures=\"{failing}\" errors=\"0\" skipped=\"0\">",
        report.runs.len()
    );
    for run in &report.runs {
        let text: String = run
            .findings
            .iter()
            .map(|f| text_finding(&run.name, f))
            .collect();
        let _ = write!(
            suites,
            "    <testcase classname=\"acp.check\" name=\"{}\">",
            xml(&run.name)
        );
        if errors(run) > 0 {
            let _ = write!(
                suites,
                "<failure type=\"acp check\" message=\"acp check found errors\">{}</failure>",
                xml(&text)
            );
        } else if !text.is_empty() {
            let _ = write!(suites, "<system-out>{}</system-out>", xml(&text));
        }
        suites.push_str("</testcase>\n");
    }
    suites.push_str("  </testsuite>\n");
    let c = Counts::of(report);
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"acp conform {subject}\" tests=\"{}\" failures=\"{}\" time=\"{:.3}\">\n{suites}</testsuites>\n",
        report.verdicts.len() + report.runs.len(),
        c.failed + failing,
        report.elapsed.as_secs_f64()
    )
}
