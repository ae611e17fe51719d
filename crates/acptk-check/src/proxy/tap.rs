//! The capture hook: a [`Tap`] is shown every line the proxy reads, with what the checker made
//! of it, and is asked to make what it was shown durable before any of it is forwarded.
//!
//! It is how `acp proxy --capture` stores its frames in a database (crate `acptk-inspect`)
//! without this crate knowing about databases. The proxy calls [`Tap::frame`] for each line,
//! in the order of the record (both directions merged), and [`Tap::commit`] right after it
//! wrote the record of a batch and before it forwards the batch: a tap that keeps the write-ahead
//! promise commits there. A tap whose commit fails is reported once through
//! [`Hooks::on_tap_error`](super::Hooks) and is not called again; forwarding goes on.

use std::io;
use std::time::SystemTime;

use crate::decode::Version;
use crate::engine::NoticeEvent;
use crate::finding::Finding;
use crate::repair::Action;
use crate::transcript::Side;

/// What a line was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Body<'a> {
    /// The line as the peer sent it, without its line break.
    Line(&'a [u8]),
    /// A line longer than this many bytes: streamed through unchecked, its bytes not kept.
    TooLong(u64),
}

/// One line the proxy read, and what the checker made of it.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Frame<'a> {
    /// Who sent it.
    pub side: Side,
    /// When the batch it came in was read (all lines of one read share it).
    pub time: SystemTime,
    /// Its bytes, or that it was too long.
    pub body: Body<'a>,
    /// The findings about it, the proxy's `repair` included (their `line` is the line of the
    /// record, not a frame number).
    pub findings: &'a [Finding],
    /// The agent's notice in it, with the rules' verdict.
    pub notice: Option<&'a NoticeEvent>,
    /// What the proxy forwards for it: the line, a replacement, or nothing.
    pub action: &'a Action,
    /// Whether the client advertised `session.notices` (as v1 reads it); `None` before
    /// `initialize`.
    pub client_notices: Option<bool>,
    /// The version messages are decoded with; `None` before `initialize`.
    pub version: Option<Version>,
}

/// Where the proxy shows what it reads (see the module docs).
pub trait Tap: Send {
    /// One line, before it is forwarded. Must not block for long: it runs while the proxy
    /// holds its checking state.
    fn frame(&mut self, frame: &Frame<'_>);

    /// Makes every frame shown so far durable; called before they are forwarded. An error
    /// stops the tap.
    fn commit(&mut self) -> io::Result<()>;

    /// The run is over (after the last [`Tap::commit`]); the default does nothing.
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}
