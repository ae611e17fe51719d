//! A minimal log facade: the runtime reports what it skipped or refused through a [`Logger`],
//! which the application chooses (nothing by default, or [`Logger::stderr`]).

use std::fmt;
use std::sync::Arc;

/// How serious a log record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Level {
    /// Details of normal operation.
    Debug,
    /// Something the peer did wrong that the runtime survived (bad line, protocol violation).
    Warn,
    /// Something that stopped a connection.
    Error,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Debug => "debug",
            Level::Warn => "warn",
            Level::Error => "error",
        })
    }
}

/// The function a [`Logger`] calls for each record.
type Sink = Arc<dyn Fn(Level, &str) + Send + Sync>;

/// Where log records go: a cheap-to-clone sink function.
#[derive(Clone, Default)]
pub struct Logger {
    sink: Option<Sink>,
}

impl fmt::Debug for Logger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Logger")
            .field("enabled", &self.sink.is_some())
            .finish()
    }
}

impl Logger {
    /// A logger that discards everything (the default).
    pub fn none() -> Self {
        Self::default()
    }

    /// A logger that calls `sink` for each record.
    pub fn new(sink: impl Fn(Level, &str) + Send + Sync + 'static) -> Self {
        Self {
            sink: Some(Arc::new(sink)),
        }
    }

    /// A logger that writes records at `min` or above to standard error, one line each.
    pub fn stderr(min: Level) -> Self {
        Self::new(move |level, message| {
            if level >= min {
                eprintln!("acptk-runtime {level}: {message}");
            }
        })
    }

    /// Sends one record.
    pub fn log(&self, level: Level, message: impl fmt::Display) {
        if let Some(sink) = &self.sink {
            sink(level, &message.to_string());
        }
    }
}
