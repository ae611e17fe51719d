//! `acp inspect`: the captures in the database of `acp proxy --capture`, from the shell
//! (`list`, `show`, `stats`, `diff`, `search`, `delete`, `import`, `export`), as a read-only
//! MCP server (`mcp`) and as a web inspector (`ui`).
//!
//! Exit codes: 0 done; 1 `search` matched nothing; 2 bad usage; 3 no capture with that id; 4
//! the database cannot be opened, read or written; 5 an import or export failed (a file that
//! cannot be read or written, or is in no known format).

mod message;
mod text;

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use acptk_inspect::export::{ExportOptions, Format as ExportFormat};
use acptk_inspect::query::SearchOptions;
use acptk_inspect::{Error, Store, import};
use serde_json::json;

/// Exit codes of `acp inspect`.
mod code {
    pub(super) const NOTHING_FOUND: u8 = 1;
    pub(super) const USAGE: u8 = 2;
    pub(super) const NO_CAPTURE: u8 = 3;
    pub(super) const DATABASE: u8 = 4;
    pub(super) const TRANSFER: u8 = 5;
}

/// Arguments of `acp inspect`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The capture database (default: $XDG_DATA_HOME/acp/captures.db, else
    /// ~/.local/share/acp/captures.db).
    #[arg(long, value_name = "FILE", global = true)]
    db: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

/// `--format` of the commands that print.
#[derive(Debug, Clone, Default, clap::Args)]
struct Output {
    /// Output: text for people, or JSON (one document) for scripts.
    #[arg(long, value_parser = ["text", "json"], default_value = "text")]
    format: String,
}

impl Output {
    fn json(&self) -> bool {
        self.format == "json"
    }
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// The captures, newest first (also what `acp inspect` alone prints).
    List {
        /// At most this many.
        #[arg(long, default_value_t = 50)]
        limit: usize,
        #[command(flatten)]
        out: Output,
    },
    /// One capture: its peers, versions, capabilities, sessions, notice lane and findings,
    /// and (with --frames) its frames, each with what it said.
    ///
    /// Text: a line about each frame, then its message on one line (JSON without spaces,
    /// control characters escaped), cut at the width unless --full. JSON: each frame has
    /// `message`, the JSON as captured (`null` when the frame is not JSON: its text is then in
    /// `raw`, or, for bytes that are not UTF-8, in `raw_base64`), and `redacted`; so
    /// `acp inspect show ID --frames 20 --format json | jq '.frames[].message'` reads them.
    Show {
        /// The capture's id (from `list`).
        id: i64,
        /// Also print this many frames.
        #[arg(long, value_name = "N", default_value_t = 0)]
        frames: usize,
        /// The first frame printed (with --frames).
        #[arg(long, value_name = "SEQ", default_value_t = 1)]
        from: i64,
        /// Text: print each frame's message whole. Without it, the message line is cut with
        /// `…` at $COLUMNS, else at the terminal's width; on a pipe or in a file it is whole.
        #[arg(long)]
        full: bool,
        /// Show secrets as sent (auth headers, MCP server env and headers, tokens and keys),
        /// in the frames and the session info. Without it they are `<redacted>`, as `export`
        /// redacts them.
        #[arg(long)]
        no_redact: bool,
        #[command(flatten)]
        out: Output,
    },
    /// Per-method latency (count, errors, p50, p99, max) and frame counts of a capture.
    Stats {
        /// The capture's id.
        id: i64,
        #[command(flatten)]
        out: Output,
    },
    /// What differs between two captures: versions, capabilities, method counts, and the
    /// frames aligned by method and order.
    Diff {
        /// The first capture.
        a: i64,
        /// The second capture.
        b: i64,
        /// At most this many aligned rows.
        #[arg(long, default_value_t = 200)]
        limit: usize,
        #[command(flatten)]
        out: Output,
    },
    /// Full-text search across captures (exit status 1 when nothing matched).
    Search {
        /// The words to find, in order.
        text: String,
        /// Only in this capture.
        #[arg(long, value_name = "ID")]
        capture: Option<i64>,
        /// At most this many hits.
        #[arg(long, default_value_t = 50)]
        limit: usize,
        #[command(flatten)]
        out: Output,
    },
    /// Delete a capture.
    Delete {
        /// The capture's id.
        id: i64,
        #[command(flatten)]
        out: Output,
    },
    /// Import traces: our transcripts, bare JSON-RPC, ACP conductor traces, Zed ACP log
    /// copies, acpx output, acp-devtools exports (one capture per run).
    Import {
        /// The files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        out: Output,
    },
    /// Write a capture as our transcript (which `acp check` reads) or acp-devtools' export
    /// JSON, with secrets redacted unless --no-redact.
    Export {
        /// The capture's id.
        id: i64,
        /// The format written: our transcript, or acp-devtools' export JSON.
        #[arg(long, value_name = "FORMAT", value_parser = ["transcript", "devtools"], default_value = "transcript")]
        format: String,
        /// Keep secrets (auth headers, MCP server env and headers, tokens and keys).
        #[arg(long)]
        no_redact: bool,
        /// Write to FILE instead of standard output.
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Serve the captures to a coding agent: a read-only MCP server over stdio.
    Mcp,
    /// Serve the web inspector on a loopback port; prints the URL to open (it carries a
    /// random token) and runs until interrupted.
    ///
    /// In a browser, opening the URL sets a cookie and takes the token out of the address
    /// bar. Scripts send the token in a header on any route, page or API:
    /// `curl -H "Authorization: Bearer TOKEN" http://127.0.0.1:PORT/api/captures`; the printed
    /// URL itself (`curl "$URL"`) answers the page directly to a client that is not a browser.
    /// Without the token, or with a wrong one, the answer is 401.
    Ui {
        /// The port (default: any free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// The address to listen on. Anything but a loopback address lets other machines
        /// reach the inspector (with the token, by that address); 0.0.0.0 and :: are refused.
        #[arg(long, value_name = "IP", default_value = "127.0.0.1")]
        bind: std::net::IpAddr,
    },
}

/// A failure with its exit code.
struct Failed(u8, String);

impl From<Error> for Failed {
    fn from(error: Error) -> Self {
        let code = match &error {
            Error::NoCapture(_) => code::NO_CAPTURE,
            Error::Invalid(_) => code::USAGE,
            _ => code::DATABASE,
        };
        Failed(code, error.to_string())
    }
}

impl From<io::Error> for Failed {
    fn from(error: io::Error) -> Self {
        Failed(code::TRANSFER, error.to_string())
    }
}

/// Runs `acp inspect`.
pub fn run(args: Args) -> super::Outcome {
    match dispatch(args) {
        Ok(code) => Ok(code),
        Err(Failed(_, message)) if message == BROKEN_PIPE => Ok(ExitCode::SUCCESS),
        Err(Failed(code, message)) => {
            let _ = writeln!(io::stderr().lock(), "acp inspect: {message}");
            Ok(ExitCode::from(code))
        }
    }
}

const BROKEN_PIPE: &str = "\0broken pipe";

fn db_path(args: &Args) -> Result<PathBuf, Failed> {
    match &args.db {
        Some(path) => Ok(path.clone()),
        None => acptk_inspect::default_path().ok_or_else(|| {
            Failed(
                code::USAGE,
                "no database: set XDG_DATA_HOME or HOME, or give --db FILE".to_owned(),
            )
        }),
    }
}

fn dispatch(args: Args) -> Result<ExitCode, Failed> {
    let path = db_path(&args)?;
    let command = args.command.unwrap_or(Command::List {
        limit: 50,
        out: Output::default(),
    });
    if let Command::Mcp = command {
        return acptk_inspect::mcp::serve_stdio(&path)
            .map(|()| ExitCode::SUCCESS)
            .map_err(Failed::from);
    }
    if let Command::Ui { port, bind } = command {
        return ui(&path, std::net::SocketAddr::new(bind, port));
    }
    let mut store = Store::open(&path)?;
    // What proxies killed while capturing left in their spools: not this command's failure.
    if let Err(error) = store.recover() {
        eprintln!("acp inspect: a killed proxy's capture could not be recovered: {error}");
    }
    let mut out = io::BufWriter::new(io::stdout().lock());
    let mut found = true;
    match command {
        Command::List { limit, out: o } => {
            let json = o.json();
            let captures = store.captures(limit, 0)?;
            if json {
                emit(&mut out, &captures)?;
            } else {
                text::list(&mut out, &captures, &path)?;
            }
        }
        Command::Show {
            id,
            frames,
            from,
            full,
            no_redact,
            out: o,
        } => show(
            &store,
            &mut out,
            id,
            (from, frames),
            full,
            !no_redact,
            o.json(),
        )?,
        Command::Stats { id, out: o } => {
            let json = o.json();
            let summary = store.capture(id)?;
            let latency = store.latency(id)?;
            let kinds = store.frame_counts(id)?;
            if json {
                emit(
                    &mut out,
                    &json!({"capture": summary, "latency": latency, "kinds": kinds}),
                )?;
            } else {
                text::stats(&mut out, &summary, &latency, &kinds)?;
            }
        }
        Command::Diff {
            a,
            b,
            limit,
            out: o,
        } => {
            let json = o.json();
            let diff = store.diff(a, b, limit)?;
            if json {
                emit(&mut out, &diff)?;
            } else {
                text::diff(&mut out, &diff)?;
            }
        }
        Command::Search {
            text: needle,
            capture,
            limit,
            out: o,
        } => {
            let json = o.json();
            store.index()?;
            let mut options = SearchOptions::new().limit(limit).redacted();
            if let Some(id) = capture {
                store.capture(id)?;
                options = options.capture(id);
            }
            let searched = store.search(&needle, &options)?;
            found = !searched.hits.is_empty();
            if json {
                emit(&mut out, &searched)?;
            } else {
                text::search(&mut out, &searched)?;
            }
        }
        Command::Delete { id, out: o } => {
            let json = o.json();
            store.delete(id)?;
            if json {
                emit(&mut out, &json!({"deleted": id}))?;
            } else {
                writeln!(out, "deleted capture {id}").map_err(write_error)?;
            }
        }
        Command::Import { files, out: o } => {
            let json = o.json();
            let mut done = Vec::new();
            for file in &files {
                let imported = import::file(&mut store, file).map_err(|e| match e {
                    Error::Sqlite(_) | Error::TooNew { .. } => Failed::from(e),
                    other => Failed(code::TRANSFER, other.to_string()),
                })?;
                if !json {
                    text::imported(&mut out, file, &imported)?;
                }
                done.push(json!({"file": file, "format": imported.format, "captures": imported.captures, "frames": imported.frames}));
            }
            if json {
                emit(&mut out, &done)?;
            }
        }
        Command::Export {
            id,
            format,
            no_redact,
            output,
        } => export(&store, &mut out, id, &format, no_redact, output.as_deref())?,
        Command::Mcp | Command::Ui { .. } => {}
    }
    out.flush().map_err(write_error)?;
    Ok(if found {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(code::NOTHING_FOUND)
    })
}

/// `acp inspect show`: capture `id` with its session info, notices, findings and, from frame
/// `from`, `frames` frames (secrets `redact`ed), as text or JSON.
fn show(
    store: &Store,
    out: &mut impl Write,
    id: i64,
    (from, frames): (i64, usize),
    full: bool,
    redact: bool,
    json: bool,
) -> Result<(), Failed> {
    let summary = store.capture(id)?;
    let info = store.session_info(id)?;
    let notices = store.notices(id)?;
    let findings = store.findings(id)?;
    let mut rows = Vec::new();
    if frames > 0 {
        store.each_frame_from(id, from, frames, |row, raw| {
            rows.push((row.clone(), raw.to_vec()));
            Ok(())
        })?;
    }
    if json {
        let mut info = serde_json::to_value(&info).unwrap_or_default();
        if redact {
            acptk_inspect::redact::value(&mut info);
        }
        let frames = rows
            .iter()
            .map(|(row, raw)| message::JsonFrame::new(row, raw, redact))
            .collect();
        let shown = Shown {
            capture: &summary,
            findings: &findings,
            frames,
            info,
            notices: &notices,
        };
        emit(out, &shown)?;
    } else {
        let page = text::Page {
            capture: &summary,
            info: &info,
            notices: &notices,
            findings: &findings,
            frames: &rows,
            redact,
            width: message::width(full),
        };
        text::show(out, &page)?;
    }
    Ok(())
}

/// `acp inspect export`: capture `id` in `format`, into `output` or else `out`.
fn export(
    store: &Store,
    out: &mut impl Write,
    id: i64,
    format: &str,
    no_redact: bool,
    output: Option<&std::path::Path>,
) -> Result<(), Failed> {
    store.capture(id)?;
    let format: ExportFormat = format.parse().map_err(|e: String| Failed(code::USAGE, e))?;
    let mut options = ExportOptions::new(format);
    if no_redact {
        options = options.keep_secrets();
    }
    let exported = match output {
        Some(file) => {
            let created = std::fs::File::create(file).map_err(|e| {
                Failed(
                    code::TRANSFER,
                    format!("cannot write {}: {e}", file.display()),
                )
            })?;
            let mut writer = io::BufWriter::new(created);
            acptk_inspect::export::export(store, id, options, &mut writer)
        }
        None => acptk_inspect::export::export(store, id, options, out),
    };
    exported.map_err(|e| match e {
        Error::Io { source, .. } if source.kind() == io::ErrorKind::BrokenPipe => {
            Failed(0, BROKEN_PIPE.to_owned())
        }
        Error::Io { source, .. } => Failed(code::TRANSFER, source.to_string()),
        other => Failed::from(other),
    })?;
    Ok(())
}

/// `acp inspect ui`: binds, prints the URL, serves until SIGTERM, SIGINT or SIGHUP.
fn ui(path: &std::path::Path, addr: std::net::SocketAddr) -> Result<ExitCode, Failed> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failed(code::DATABASE, format!("cannot start: {e}")))?;
    runtime.block_on(async {
        let mut signals = super::signals::Signals::new()
            .map_err(|e| Failed(code::DATABASE, format!("cannot watch signals: {e}")))?;
        let inspector = acptk_inspect::web::Inspector::bind(path, addr)
            .await
            .map_err(|e| Failed(code::USAGE, format!("cannot listen on {addr}: {e}")))?;
        let mut out = io::stdout().lock();
        writeln!(out, "{}", inspector.url()).map_err(write_error)?;
        out.flush().map_err(write_error)?;
        drop(out);
        let stop = async move {
            signals.recv().await;
        };
        inspector.serve(stop).await.map_err(Failed::from)?;
        Ok(ExitCode::SUCCESS)
    })
}

/// A failed write to standard output: a closed pipe (`| head`) is no failure.
fn write_error(error: io::Error) -> Failed {
    if error.kind() == io::ErrorKind::BrokenPipe {
        Failed(0, BROKEN_PIPE.to_owned())
    } else {
        Failed(code::TRANSFER, format!("cannot write the output: {error}"))
    }
}

/// `show --format json`: the capture and its frames with their messages.
#[derive(serde::Serialize)]
struct Shown<'a> {
    capture: &'a acptk_inspect::query::CaptureSummary,
    findings: &'a [acptk_inspect::query::FindingRow],
    frames: Vec<message::JsonFrame<'a>>,
    info: serde_json::Value,
    notices: &'a [acptk_inspect::query::NoticeRow],
}

/// Prints `value` as one JSON document.
fn emit(out: &mut impl Write, value: &impl serde::Serialize) -> Result<(), Failed> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(|e| write_error(io::Error::from(e)))?;
    writeln!(out).map_err(write_error)
}
