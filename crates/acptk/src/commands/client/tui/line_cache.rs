//! The conversation's drawn lines, kept per transcript entry between frames so that only the
//! entries that changed are drawn again.

use std::collections::HashMap;
use std::rc::Rc;

use ratatui::text::Line;

use crate::commands::client::render::theme::Look;

/// An entry's lines, with what they were drawn for.
#[derive(Debug)]
struct Drawn {
    /// What besides the revision the drawing depends on (a tool call's terminal output).
    stamp: u64,
    lines: Rc<[Line<'static>]>,
    /// The frame that used it last.
    used: u64,
}

/// What the drawn lines depend on besides each entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Settings {
    pub(super) width: usize,
    pub(super) look: Option<Look>,
    pub(super) thoughts_folded: bool,
    pub(super) tools_unfolded: bool,
}

/// The drawn lines of the entries shown lately, by entry revision.
#[derive(Debug, Default)]
pub struct LineCache {
    settings: Settings,
    entries: HashMap<u64, Drawn>,
    frame: u64,
    /// Entries rendered (not found in the cache) since the cache was made.
    pub renders: u64,
}

impl LineCache {
    /// How many entries' lines are kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no lines are kept.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Starts a frame drawn with `settings`: everything drawn otherwise is dropped.
    pub(super) fn begin(&mut self, settings: Settings) {
        if settings != self.settings {
            self.entries.clear();
            self.settings = settings;
        }
        self.frame += 1;
    }

    /// Drops what the frame did not use.
    pub(super) fn end(&mut self) {
        let frame = self.frame;
        self.entries.retain(|_, drawn| drawn.used == frame);
    }

    /// The lines of the entry with `revision` and `stamp`, drawn by `draw` if not kept.
    pub(super) fn lines(
        &mut self,
        revision: u64,
        stamp: u64,
        draw: impl FnOnce() -> Vec<Line<'static>>,
    ) -> Rc<[Line<'static>]> {
        let frame = self.frame;
        if let Some(drawn) = self.entries.get_mut(&revision)
            && drawn.stamp == stamp
        {
            drawn.used = frame;
            return Rc::clone(&drawn.lines);
        }
        self.renders += 1;
        let lines: Rc<[Line<'static>]> = draw().into();
        self.entries.insert(
            revision,
            Drawn {
                stamp,
                lines: Rc::clone(&lines),
                used: frame,
            },
        );
        lines
    }
}
