//! The text output of `acp inspect`: short tables for people.

use std::io::Write;
use std::path::Path;

use acptk_inspect::import::Imported;
use acptk_inspect::message::Message;
use acptk_inspect::query::{
    CaptureSummary, Diff, FindingRow, FrameCount, FrameRow, MethodLatency, NoticeRow, Searched,
    SessionInfo,
};

use super::{Failed, message, write_error};

type Out<'a> = &'a mut dyn Write;

/// `2026-11-30 09:00:00` (UTC) from microseconds since the epoch.
fn when(micros: i64) -> String {
    let time = std::time::UNIX_EPOCH
        + std::time::Duration::from_micros(u64::try_from(micros).unwrap_or(0));
    let text = acptk_check::transcript::rfc3339(time);
    text.get(..19).unwrap_or(&text).replacen('T', " ", 1)
}

/// A duration in microseconds, in ms with one decimal.
fn ms(micros: i64) -> String {
    format!("{:.1} ms", micros as f64 / 1000.0)
}

fn peer(name: &Option<String>, version: &Option<String>) -> String {
    match (name, version) {
        (Some(n), Some(v)) => format!("{n} {v}"),
        (Some(n), None) => n.clone(),
        _ => "?".to_owned(),
    }
}

fn state(c: &CaptureSummary) -> &'static str {
    match (c.ended_at, c.live) {
        (Some(_), _) => "ended",
        (None, true) => "live",
        (None, false) => "cut off",
    }
}

macro_rules! w {
    ($out:expr, $($arg:tt)*) => {
        writeln!($out, $($arg)*).map_err(write_error)?
    };
}

pub(super) fn list(out: Out<'_>, captures: &[CaptureSummary], db: &Path) -> Result<(), Failed> {
    if captures.is_empty() {
        w!(out, "no captures in {}", db.display());
        return Ok(());
    }
    w!(
        out,
        "{:>5}  {:<19}  {:<7}  {:<22}  {:<22}  {:>3}  {:>7}  {:>6}  {:>7}  origin",
        "id",
        "started (UTC)",
        "state",
        "agent",
        "client",
        "v",
        "frames",
        "errors",
        "notices"
    );
    for c in captures {
        let version = c
            .protocol_version
            .map_or_else(|| "-".to_owned(), |v| v.to_string());
        w!(
            out,
            "{:>5}  {:<19}  {:<7}  {:<22}  {:<22}  {:>3}  {:>7}  {:>6}  {:>7}  {}",
            c.id,
            when(c.started_at),
            state(c),
            cut(&peer(&c.agent.name, &c.agent.version), 22),
            cut(&peer(&c.client.name, &c.client.version), 22),
            version,
            c.frames,
            c.errors,
            c.notices,
            c.origin
        );
    }
    Ok(())
}

fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(width - 1).collect();
    out.push('~');
    out
}

/// What `show` prints.
pub(super) struct Page<'a> {
    pub(super) capture: &'a CaptureSummary,
    pub(super) info: &'a SessionInfo,
    pub(super) notices: &'a [NoticeRow],
    pub(super) findings: &'a [FindingRow],
    /// The frames asked for, with their bytes as sent.
    pub(super) frames: &'a [(FrameRow, Vec<u8>)],
    /// Whether secrets are redacted.
    pub(super) redact: bool,
    /// The width message lines are cut at (`None`: whole).
    pub(super) width: Option<usize>,
}

pub(super) fn show(out: Out<'_>, page: &Page<'_>) -> Result<(), Failed> {
    let (c, info, notices, findings) = (page.capture, page.info, page.notices, page.findings);
    w!(
        out,
        "capture {} ({}, {}): {}",
        c.id,
        c.source,
        c.format,
        c.origin
    );
    if let Some(name) = &c.name {
        w!(out, "  name      {name}");
    }
    let ended = c.ended_at.map_or_else(|| state(c).to_owned(), when);
    w!(out, "  time      {} .. {} (UTC)", when(c.started_at), ended);
    w!(
        out,
        "  agent     {}\n  client    {}",
        peer(&c.agent.name, &c.agent.version),
        peer(&c.client.name, &c.client.version)
    );
    let v = |v: Option<i64>| v.map_or_else(|| "-".to_owned(), |v| v.to_string());
    w!(
        out,
        "  protocol  v{} (asked for v{})",
        v(c.protocol_version),
        v(c.proposed_version)
    );
    w!(
        out,
        "  frames    {} ({} bytes); findings {} ({} errors, {} warnings); notices {}",
        c.frames,
        c.bytes,
        c.findings,
        c.errors,
        c.warnings,
        c.notices
    );
    let compact = |value: &Option<serde_json::Value>| {
        value.as_ref().map_or_else(
            || "-".to_owned(),
            |v| {
                let mut v = v.clone();
                if page.redact {
                    acptk_inspect::redact::value(&mut v);
                }
                v.to_string()
            },
        )
    };
    w!(
        out,
        "  client capabilities  {}",
        compact(&info.client_capabilities)
    );
    w!(
        out,
        "  agent capabilities   {}",
        compact(&info.agent_capabilities)
    );
    w!(
        out,
        "  auth methods         {}",
        compact(&info.auth_methods)
    );
    for session in &info.sessions {
        w!(
            out,
            "  session {} ({}): mode {}, {} commands",
            session.id,
            session.opened_by.as_deref().unwrap_or("seen"),
            session.current_mode.as_deref().unwrap_or("-"),
            session
                .commands
                .as_ref()
                .and_then(|c| c.as_array())
                .map_or(0, Vec::len)
        );
    }
    if !notices.is_empty() {
        w!(out, "notices:");
        for n in notices {
            let advertised = match n.advertised {
                Some(true) => "advertised",
                Some(false) => "not advertised",
                None => "before initialize",
            };
            w!(
                out,
                "  #{:<6} {:<8} {:<40} {} ({advertised})",
                n.seq,
                n.severity.as_deref().unwrap_or("?"),
                cut(n.title.as_deref().unwrap_or("(malformed)"), 40),
                n.outcome
            );
        }
    }
    if !findings.is_empty() {
        w!(out, "findings:");
        for f in findings {
            let at = f
                .seq
                .map_or_else(|| "input".to_owned(), |s| format!("#{s}"));
            w!(out, "  {:<7} {}[{}]: {}", at, f.severity, f.rule, f.message);
        }
    }
    if !page.frames.is_empty() {
        w!(out, "frames:");
        for (f, raw) in page.frames {
            frame(out, f)?;
            let said = Message::read(f.kind, raw, page.redact);
            let line = format!("{MESSAGE_INDENT}{}", message::one_line(&said));
            w!(out, "{}", message::cut(&line, page.width));
        }
    }
    Ok(())
}

/// What a frame's message line starts with, under its frame's line.
const MESSAGE_INDENT: &str = "    ";

fn frame(out: Out<'_>, f: &FrameRow) -> Result<(), Failed> {
    let arrow = if f.side == acptk_check::Side::Client {
        "->"
    } else {
        "<-"
    };
    let latency = f.latency.map(ms).unwrap_or_default();
    w!(
        out,
        "  #{:<6} {arrow} {:<12} {:<28} {:>8} B  id {:<6} {}",
        f.seq,
        f.kind.as_str(),
        f.method.as_deref().unwrap_or("-"),
        f.size,
        f.rpc_id.as_deref().unwrap_or("-"),
        latency
    );
    Ok(())
}

pub(super) fn stats(
    out: Out<'_>,
    c: &CaptureSummary,
    latency: &[MethodLatency],
    kinds: &[FrameCount],
) -> Result<(), Failed> {
    w!(
        out,
        "capture {}: {} frames, {} bytes",
        c.id,
        c.frames,
        c.bytes
    );
    if !latency.is_empty() {
        w!(
            out,
            "\n{:<30} {:<6} {:>6} {:>6} {:>11} {:>11} {:>11}",
            "method",
            "from",
            "count",
            "errors",
            "p50",
            "p99",
            "max"
        );
        for l in latency {
            w!(
                out,
                "{:<30} {:<6} {:>6} {:>6} {:>11} {:>11} {:>11}",
                l.method,
                l.sender,
                l.count,
                l.errors,
                ms(l.p50),
                ms(l.p99),
                ms(l.max)
            );
        }
    }
    w!(
        out,
        "\n{:<6} {:<12} {:<30} {:>8} {:>10}",
        "from",
        "kind",
        "method",
        "frames",
        "bytes"
    );
    for k in kinds {
        w!(
            out,
            "{:<6} {:<12} {:<30} {:>8} {:>10}",
            k.side,
            k.kind,
            k.method.as_deref().unwrap_or("-"),
            k.count,
            k.bytes
        );
    }
    Ok(())
}

pub(super) fn diff(out: Out<'_>, d: &Diff) -> Result<(), Failed> {
    let show = |v: &Option<serde_json::Value>| {
        v.as_ref()
            .map_or_else(|| "(absent)".to_owned(), ToString::to_string)
    };
    w!(out, "capture {} vs capture {}", d.a, d.b);
    if d.versions.is_empty() && d.capabilities.is_empty() {
        w!(out, "  same versions, peers and capabilities");
    }
    for c in d.versions.iter().chain(&d.capabilities) {
        w!(out, "  {}: {} vs {}", c.path, show(&c.a), show(&c.b));
    }
    if !d.methods.is_empty() {
        w!(out, "frame counts that differ:");
        for m in &d.methods {
            w!(
                out,
                "  {:<6} {:<12} {:<30} {:>6} vs {}",
                m.side,
                m.kind,
                m.method.as_deref().unwrap_or("-"),
                m.a,
                m.b
            );
        }
    }
    match d.first_difference {
        None => w!(out, "the frames line up"),
        Some(row) => w!(out, "aligned frames (first difference at row {}):", row + 1),
    }
    let run = |r: &Option<acptk_inspect::query::Run>| match r {
        None => String::new(),
        Some(r) => {
            let what = r.update.as_deref().or(r.method.as_deref()).unwrap_or("-");
            let count = if r.count > 1 {
                format!(" x{}", r.count)
            } else {
                String::new()
            };
            format!("#{} {} {} {}{count}", r.seq, r.side, r.kind, what)
        }
    };
    if d.first_difference.is_some() {
        for (i, row) in d.aligned.iter().enumerate() {
            let mark = match (&row.a, &row.b) {
                (Some(a), Some(b)) if a.count == b.count => ' ',
                (Some(_), Some(_)) => '~',
                (Some(_), None) => '-',
                _ => '+',
            };
            w!(
                out,
                "{mark} {:>4}  {:<48} {}",
                i + 1,
                run(&row.a),
                run(&row.b)
            );
        }
        if d.truncated {
            w!(out, "(more rows: --limit N)");
        }
    }
    Ok(())
}

pub(super) fn search(out: Out<'_>, searched: &Searched) -> Result<(), Failed> {
    for hit in &searched.hits {
        let snippet = &hit.snippet;
        w!(
            out,
            "capture {} #{} {} {} {}: {}",
            hit.capture,
            hit.frame.seq,
            hit.frame.side,
            hit.frame.kind.as_str(),
            hit.frame.method.as_deref().unwrap_or("-"),
            snippet
        );
    }
    if searched.truncated {
        w!(out, "(more hits: --limit N)");
    }
    Ok(())
}

pub(super) fn imported(out: Out<'_>, file: &Path, imported: &Imported) -> Result<(), Failed> {
    let ids: Vec<String> = imported.captures.iter().map(i64::to_string).collect();
    w!(
        out,
        "{}: {} frames read as {}, capture{} {}",
        file.display(),
        imported.frames,
        imported.format,
        if ids.len() == 1 { "" } else { "s" },
        ids.join(", ")
    );
    Ok(())
}
