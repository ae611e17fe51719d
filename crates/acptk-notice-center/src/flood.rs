//! The sliding window behind the flood guard.

use std::collections::VecDeque;
use std::time::Duration;

use crate::policy::FloodGuard;

/// Arrival times of the latest would-be toasts, at most `max_burst` of them.
#[derive(Debug, Default)]
pub(crate) struct FloodWindow {
    recent: VecDeque<Duration>,
}

impl FloodWindow {
    /// Records a would-be toast at `now` and says whether it may toast: it may unless
    /// `max_burst` others arrived within the window before it.
    pub fn admit(&mut self, guard: FloodGuard, now: Duration) -> bool {
        let max_burst = guard.max_burst.clamp(1, 64);
        while let Some(&oldest) = self.recent.front() {
            if now.saturating_sub(oldest) >= guard.window {
                self.recent.pop_front();
            } else {
                break;
            }
        }
        let admitted = self.recent.len() < max_burst;
        self.recent.push_back(now);
        while self.recent.len() > max_burst {
            self.recent.pop_front();
        }
        admitted
    }
}
