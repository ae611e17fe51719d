//! Checking a whole trace: the engine behind `acp check`.

use std::io::{self, BufRead};

use crate::engine::too_long;
use crate::finding::{Finding, Rule};
use crate::input::{self, Conductor, ConductorLine, EXPECTED, Event, Feed, InputFormat, detect};
use crate::lines::{DEFAULT_MAX_LINE, LineRead, read_line};
use crate::report::Summary;
use crate::transcript::{Entry, parse_line};

/// Options of a check.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CheckOptions {
    /// Lines (or Zed log entries) longer than this many bytes are skipped with
    /// `line-too-long`.
    pub max_line: usize,
    /// The format of the input ([`InputFormat::Auto`]: told from its start).
    pub format: InputFormat,
}

impl Default for CheckOptions {
    fn default() -> Self {
        Self {
            max_line: DEFAULT_MAX_LINE,
            format: InputFormat::Auto,
        }
    }
}

impl CheckOptions {
    /// The defaults: a 16 MiB line limit, the format told from the input.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the line limit in bytes.
    #[must_use]
    pub fn max_line(mut self, bytes: usize) -> Self {
        self.max_line = bytes;
        self
    }

    /// Reads the input as `format` instead of telling it from the input.
    #[must_use]
    pub fn format(mut self, format: InputFormat) -> Self {
        self.format = format;
        self
    }
}

/// Checks a trace read from `reader` (any of the [`InputFormat`]s), handing each finding to
/// `on_finding` as soon as it is found, and returns the summary. Fails only when reading
/// fails; any content is checked.
pub fn check<R: BufRead>(
    reader: R,
    options: &CheckOptions,
    mut on_finding: impl FnMut(&Finding),
) -> io::Result<Summary> {
    read(reader, options, Feed::new(&mut on_finding))
}

/// [`check`], also handing every run header and message to `on_event` as it is read (before
/// its findings go to `on_finding`): what `acp inspect import` stores.
pub fn visit<R: BufRead>(
    reader: R,
    options: &CheckOptions,
    mut on_event: impl FnMut(Event<'_>),
    mut on_finding: impl FnMut(&Finding),
) -> io::Result<Summary> {
    read(
        reader,
        options,
        Feed::new(&mut on_finding).events(&mut on_event),
    )
}

/// Reads a trace in any format into `feed`.
fn read<R: BufRead>(
    mut reader: R,
    options: &CheckOptions,
    mut feed: Feed<'_>,
) -> io::Result<Summary> {
    let format = match options.format {
        InputFormat::Auto => {
            let start = loop {
                match reader.fill_buf() {
                    Ok(start) => break start,
                    Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                    Err(error) => return Err(error),
                }
            };
            match detect(start) {
                Some(format) => format,
                None => {
                    feed.report(&Finding::new(
                        1,
                        Rule::UnknownInput,
                        format!(
                            "input format not recognised: {EXPECTED} (see --input-format); read as bare JSON-RPC lines"
                        ),
                    ));
                    InputFormat::Transcript
                }
            }
        }
        format => format,
    };
    if format == InputFormat::Zed {
        input::check_zed(reader, &mut feed, options.max_line)?;
    } else {
        lines(reader, format, options, &mut feed)?;
    }
    Ok(feed.finish(format))
}

/// Checks a line-based input in `format`.
fn lines<R: BufRead>(
    mut reader: R,
    format: InputFormat,
    options: &CheckOptions,
    feed: &mut Feed<'_>,
) -> io::Result<()> {
    let mut buf = Vec::new();
    let mut line: u64 = 0;
    let mut conductor = Conductor::default();
    while let Some(read) = read_line(&mut reader, &mut buf, options.max_line)? {
        line += 1;
        let text = match read {
            LineRead::TooLong => {
                feed.findings(&[too_long(line, options.max_line as u64)]);
                continue;
            }
            LineRead::Line if buf.iter().all(u8::is_ascii_whitespace) => continue,
            LineRead::Line => match std::str::from_utf8(&buf) {
                Ok(text) => text,
                Err(error) => {
                    feed.findings(&[Finding::new(
                        line,
                        Rule::InvalidMessage,
                        format!("line is not UTF-8: {error}"),
                    )]);
                    continue;
                }
            },
        };
        if let Some(reason) = input::acpx_error(text) {
            feed.skip(line, "acpx", || reason);
            continue;
        }
        match format {
            InputFormat::Conductor => match conductor.read(text) {
                ConductorLine::Message {
                    from,
                    text: message,
                } => {
                    feed.message(line, text, Some(from), &message);
                }
                ConductorLine::Skip { kind, reason } => feed.skip(line, kind, || reason),
                ConductorLine::Log => {}
                ConductorLine::Mixed(other) => feed.findings(&[mixed(line, other, format)]),
                ConductorLine::Invalid(reason) => {
                    feed.findings(&[Finding::new(line, Rule::InvalidMessage, reason)]);
                }
            },
            _ => {
                let entry = parse_line(text);
                // A line of another format reads as a broken entry, or as a bare line that is
                // no JSON-RPC message: only those get a closer look.
                let other = match entry {
                    Entry::Invalid { .. } => foreign(text, format),
                    Entry::Message { from: None, .. }
                        if memchr::memmem::find(text.as_bytes(), b"\"jsonrpc\"").is_none() =>
                    {
                        foreign(text, format)
                    }
                    _ => None,
                };
                match other {
                    Some(other) => feed.findings(&[mixed(line, other, format)]),
                    None => feed.entry(line, text, &entry),
                }
            }
        }
    }
    Ok(())
}

/// The other format a line of a `format` input belongs to, if it plainly does. Our
/// transcript, bare JSON-RPC lines and acpx's output are read alike (a transcript may hold
/// bare lines), so they are one family.
fn foreign(text: &str, format: InputFormat) -> Option<InputFormat> {
    let family = |f: InputFormat| match f {
        InputFormat::Transcript | InputFormat::JsonRpc | InputFormat::Acpx => {
            InputFormat::Transcript
        }
        other => other,
    };
    let other = input::line_format(text)?;
    (family(other) != family(format)).then_some(other)
}

/// The finding for a line of another format.
fn mixed(line: u64, other: InputFormat, format: InputFormat) -> Finding {
    Finding::new(
        line,
        Rule::UnknownInput,
        format!(
            "this line is from {}, but the input is read as {} (told from its start, or --input-format): one input holds one format; not checked",
            other.describe(),
            format.describe()
        ),
    )
}

/// Checks a trace held in memory; returns every finding and the summary.
pub fn check_bytes(input: &[u8], options: &CheckOptions) -> (Vec<Finding>, Summary) {
    let mut findings = Vec::new();
    // Reading from a slice cannot fail.
    let summary = check(input, options, |f| findings.push(f.clone())).unwrap_or_default();
    (findings, summary)
}
