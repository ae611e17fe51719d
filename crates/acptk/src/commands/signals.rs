//! The signals that ask a long-running command to stop: SIGTERM, SIGINT (Ctrl-C) and SIGHUP
//! (the terminal went away). `acp proxy` and `acp agent --listen` create [`Signals`] before
//! they announce themselves, so a signal from then on stops them cleanly instead of ending the
//! process by its default action.

use std::io;
use std::time::Duration;

use tokio::signal::unix::{Signal, SignalKind, signal};

/// How close after a signal another one still counts as the same request to stop.
pub const REPEAT_WINDOW: Duration = Duration::from_millis(500);

/// SIGTERM, SIGINT and SIGHUP, as they arrive (or none, for a part of a program whose signals
/// something else handles: one connection of `acp proxy --listen`, say).
pub struct Signals {
    listening: Option<(Signal, Signal, Signal)>,
    /// When the last signal that counted came.
    last: Option<tokio::time::Instant>,
}

impl Signals {
    /// Starts listening (from now on these signals no longer end the process by themselves).
    pub fn new() -> io::Result<Self> {
        Ok(Self {
            listening: Some((
                signal(SignalKind::terminate())?,
                signal(SignalKind::interrupt())?,
                signal(SignalKind::hangup())?,
            )),
            last: None,
        })
    }

    /// No signals: [`Self::recv`] never resolves.
    pub fn none() -> Self {
        Self {
            listening: None,
            last: None,
        }
    }

    /// The signal that has already come, if one has (repeats are skipped as in [`Self::recv`]).
    /// The runtime's driver gets one turn first, so a signal delivered just before this call
    /// (while other events were being handled) is seen too.
    pub async fn already_come(&mut self) -> Option<i32> {
        self.listening.as_ref()?;
        // A yielded task resumes only after the driver has been polled.
        tokio::task::yield_now().await;
        tokio::select! {
            biased;
            number = self.recv() => Some(number),
            () = std::future::ready(()) => None,
        }
    }

    /// The number of the next signal (repeats within [`REPEAT_WINDOW`] are skipped).
    pub async fn recv(&mut self) -> i32 {
        let Some((term, int, hup)) = &mut self.listening else {
            return std::future::pending().await;
        };
        loop {
            let number = tokio::select! {
                _ = term.recv() => SignalKind::terminate().as_raw_value(),
                _ = int.recv() => SignalKind::interrupt().as_raw_value(),
                _ = hup.recv() => SignalKind::hangup().as_raw_value(),
            };
            let now = tokio::time::Instant::now();
            let repeat = self
                .last
                .is_some_and(|last| now.duration_since(last) < REPEAT_WINDOW);
            if !repeat {
                self.last = Some(now);
                return number;
            }
        }
    }
}
