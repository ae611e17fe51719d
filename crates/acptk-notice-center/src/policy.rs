//! The presentation policy: per-severity presets and the user's preferences.

use std::time::Duration;

use crate::severity::{Politeness, Prominence, Severity};

/// How long an `info` toast (and an unknown severity's) stays visible by default.
pub const DEFAULT_AUTO_HIDE: Duration = Duration::from_secs(8);

/// Smallest accepted duration multiplier.
pub const MIN_DURATION_MULTIPLIER: f64 = 0.5;

/// Largest accepted duration multiplier.
pub const MAX_DURATION_MULTIPLIER: f64 = 10.0;

/// Bounds for the numeric limits of a [`Policy`]; values outside are clamped by the builder.
const VISIBLE_RANGE: (usize, usize) = (1, 32);
const QUEUE_RANGE: (usize, usize) = (0, 256);
const CAPACITY_RANGE: (usize, usize) = (1, 10_000);
const MUTED_RANGE: (usize, usize) = (0, 1_024);
const SESSIONS_RANGE: (usize, usize) = (1, 4_096);
const BURST_RANGE: (usize, usize) = (1, 64);

fn clamp(value: usize, (low, high): (usize, usize)) -> usize {
    value.clamp(low, high)
}

/// How one severity is presented.
///
/// ```
/// use std::time::Duration;
/// use acptk_notice_center::{Politeness, SeverityPreset};
///
/// let calm_error = SeverityPreset::sticky().with_politeness(Politeness::Polite);
/// let quick_info = SeverityPreset::auto_hide(Duration::from_secs(4));
/// assert_eq!(quick_info.hide_after(), Some(Duration::from_secs(4)));
/// assert_eq!(calm_error.hide_after(), None);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SeverityPreset {
    hide_after: Option<Duration>,
    toast: bool,
    politeness: Politeness,
    prominence: Prominence,
}

impl SeverityPreset {
    /// A toast that hides itself after `after` of visible, unpaused time; polite, normal look.
    #[must_use]
    pub fn auto_hide(after: Duration) -> Self {
        Self {
            hide_after: Some(after),
            toast: true,
            politeness: Politeness::Polite,
            prominence: Prominence::Normal,
        }
    }

    /// A toast that stays until the user dismisses it; polite, normal look.
    #[must_use]
    pub fn sticky() -> Self {
        Self {
            hide_after: None,
            ..Self::auto_hide(DEFAULT_AUTO_HIDE)
        }
    }

    /// Whether notices of this severity toast at all (`false`: list only).
    #[must_use]
    pub fn with_toast(mut self, toast: bool) -> Self {
        self.toast = toast;
        self
    }

    /// Sets how new entries are announced to screen readers.
    #[must_use]
    pub fn with_politeness(mut self, politeness: Politeness) -> Self {
        self.politeness = politeness;
        self
    }

    /// Sets how strongly the toast stands out.
    #[must_use]
    pub fn with_prominence(mut self, prominence: Prominence) -> Self {
        self.prominence = prominence;
        self
    }

    /// Sets the auto-hide time (`None`: stays until dismissed).
    #[must_use]
    pub fn with_hide_after(mut self, after: Option<Duration>) -> Self {
        self.hide_after = after;
        self
    }

    /// Visible time before the toast hides itself, before the user's multiplier; `None` if it
    /// stays until dismissed.
    #[must_use]
    pub fn hide_after(&self) -> Option<Duration> {
        self.hide_after
    }

    /// Whether the severity toasts at all.
    #[must_use]
    pub fn toasts(&self) -> bool {
        self.toast
    }

    /// How new entries are announced.
    #[must_use]
    pub fn politeness(&self) -> Politeness {
        self.politeness
    }

    /// How strongly the toast stands out.
    #[must_use]
    pub fn prominence(&self) -> Prominence {
        self.prominence
    }
}

/// What happens to a new toast when the visible slots are all taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Overflow {
    /// It waits in a queue (first in, first out) and shows when a slot frees. The queue is
    /// bounded ([`PolicyBuilder::max_queued`]); beyond it, toasts go to the list only.
    Queue,
    /// It goes to the notice list only.
    ListOnly,
}

/// Limits bursts of new toasts: once `max_burst` new toasts have arrived within `window`,
/// further new toasts go to the list only until the burst calms down.
///
/// Every notice that would toast counts towards the burst, including the ones the guard sent
/// to the list, so a sustained flood stays in the list until `window` passes without more than
/// `max_burst` arrivals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct FloodGuard {
    /// How many new toasts a window may hold (clamped to 1..=64).
    pub max_burst: usize,
    /// The sliding window.
    pub window: Duration,
}

impl FloodGuard {
    /// A guard letting at most `max_burst` new toasts through per `window`.
    #[must_use]
    pub fn new(max_burst: usize, window: Duration) -> Self {
        Self {
            max_burst: clamp(max_burst, BURST_RANGE),
            window,
        }
    }
}

impl Default for FloodGuard {
    /// More than 3 new toasts within 800 ms go to the list only.
    fn default() -> Self {
        Self::new(3, Duration::from_millis(800))
    }
}

/// Everything that decides how notices are presented: per-severity presets and user
/// preferences. Build one with [`Policy::builder`]; [`Policy::default`] gives the presets
/// described below.
///
/// | severity | toast | hides after | announced | look |
/// |---|---|---|---|---|
/// | info | yes | 8 s | polite | normal |
/// | warning | yes | never (until dismissed) | polite | normal |
/// | error | yes | never (until dismissed) | assertive | prominent |
/// | unknown | yes | 8 s | polite | normal, neutral colours |
///
/// Other defaults: 3 visible toasts, overflow waits in a queue of 20, flood guard 3 per
/// 800 ms, identical notices coalesce within 10 s of the previous one, 200 entries per session,
/// 64 muted titles per session, 64 sessions, duration multiplier 1, auto-hide on,
/// do-not-disturb off.
///
/// ```
/// use std::time::Duration;
/// use acptk_notice_center::{Overflow, Policy, SeverityPreset, Severity};
///
/// let policy = Policy::builder()
///     .max_visible(5)
///     .overflow(Overflow::ListOnly)
///     .duration_multiplier(2.0)
///     .warning(SeverityPreset::auto_hide(Duration::from_secs(20)))
///     .build();
/// assert_eq!(policy.max_visible(), 5);
/// assert_eq!(policy.hide_after(&Severity::Info), Some(Duration::from_secs(16)));
/// assert_eq!(policy.hide_after(&Severity::Warning), Some(Duration::from_secs(40)));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    info: SeverityPreset,
    warning: SeverityPreset,
    error: SeverityPreset,
    unknown: SeverityPreset,
    max_visible: usize,
    overflow: Overflow,
    max_queued: usize,
    flood_guard: Option<FloodGuard>,
    coalesce_window: Option<Duration>,
    list_capacity: usize,
    max_muted_titles: usize,
    max_sessions: usize,
    duration_multiplier: f64,
    never_auto_hide: bool,
    do_not_disturb: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            info: SeverityPreset::auto_hide(DEFAULT_AUTO_HIDE),
            warning: SeverityPreset::sticky(),
            error: SeverityPreset::sticky()
                .with_politeness(Politeness::Assertive)
                .with_prominence(Prominence::High),
            unknown: SeverityPreset::auto_hide(DEFAULT_AUTO_HIDE),
            max_visible: 3,
            overflow: Overflow::Queue,
            max_queued: 20,
            flood_guard: Some(FloodGuard::default()),
            coalesce_window: Some(Duration::from_secs(10)),
            list_capacity: 200,
            max_muted_titles: 64,
            max_sessions: 64,
            duration_multiplier: 1.0,
            never_auto_hide: false,
            do_not_disturb: false,
        }
    }
}

impl Policy {
    /// Starts from the defaults.
    pub fn builder() -> PolicyBuilder {
        PolicyBuilder {
            policy: Self::default(),
        }
    }

    /// Turns this policy back into a builder, to change a few settings.
    pub fn to_builder(&self) -> PolicyBuilder {
        PolicyBuilder {
            policy: self.clone(),
        }
    }

    /// The preset for a severity.
    #[must_use]
    pub fn preset(&self, severity: &Severity) -> &SeverityPreset {
        match severity {
            Severity::Info => &self.info,
            Severity::Warning => &self.warning,
            Severity::Error => &self.error,
            Severity::Unknown(_) => &self.unknown,
        }
    }

    /// The preset for `info`.
    #[must_use]
    pub fn info(&self) -> &SeverityPreset {
        &self.info
    }

    /// The preset for `warning`.
    #[must_use]
    pub fn warning(&self) -> &SeverityPreset {
        &self.warning
    }

    /// The preset for `error`.
    #[must_use]
    pub fn error(&self) -> &SeverityPreset {
        &self.error
    }

    /// The preset for every severity this crate does not know.
    #[must_use]
    pub fn unknown(&self) -> &SeverityPreset {
        &self.unknown
    }

    /// The visible time after which a toast of this severity hides itself, with the user's
    /// multiplier applied; `None` if it stays until dismissed (always `None` with
    /// [`Policy::never_auto_hide`]).
    #[must_use]
    pub fn hide_after(&self, severity: &Severity) -> Option<Duration> {
        if self.never_auto_hide {
            return None;
        }
        let base = self.preset(severity).hide_after?;
        // Saturates instead of panicking on absurdly long presets.
        Some(
            Duration::try_from_secs_f64(base.as_secs_f64() * self.duration_multiplier)
                .unwrap_or(Duration::MAX),
        )
    }

    /// At most this many toasts are visible at once.
    #[must_use]
    pub fn max_visible(&self) -> usize {
        self.max_visible
    }

    /// What happens to a toast when all visible slots are taken.
    #[must_use]
    pub fn overflow(&self) -> Overflow {
        self.overflow
    }

    /// At most this many toasts wait in the overflow queue.
    #[must_use]
    pub fn max_queued(&self) -> usize {
        self.max_queued
    }

    /// The flood guard, if enabled.
    #[must_use]
    pub fn flood_guard(&self) -> Option<FloodGuard> {
        self.flood_guard
    }

    /// Identical notices arriving within this time of the previous one are coalesced;
    /// `None` turns coalescing off.
    #[must_use]
    pub fn coalesce_window(&self) -> Option<Duration> {
        self.coalesce_window
    }

    /// Entries kept per session; the oldest is evicted beyond it.
    #[must_use]
    pub fn list_capacity(&self) -> usize {
        self.list_capacity
    }

    /// Muted titles kept per session.
    #[must_use]
    pub fn max_muted_titles(&self) -> usize {
        self.max_muted_titles
    }

    /// Sessions tracked at once; the least recently active one is dropped beyond it.
    #[must_use]
    pub fn max_sessions(&self) -> usize {
        self.max_sessions
    }

    /// The user's factor on every auto-hide time.
    #[must_use]
    pub fn duration_multiplier(&self) -> f64 {
        self.duration_multiplier
    }

    /// Whether the user turned auto-hiding off: every toast stays until dismissed.
    #[must_use]
    pub fn never_auto_hide(&self) -> bool {
        self.never_auto_hide
    }

    /// Whether do-not-disturb is on: only errors toast.
    #[must_use]
    pub fn do_not_disturb(&self) -> bool {
        self.do_not_disturb
    }

    pub(crate) fn set_do_not_disturb(&mut self, on: bool) {
        self.do_not_disturb = on;
    }

    pub(crate) fn set_never_auto_hide(&mut self, on: bool) {
        self.never_auto_hide = on;
    }

    pub(crate) fn set_duration_multiplier(&mut self, factor: f64) {
        self.duration_multiplier = clamp_multiplier(factor);
    }
}

fn clamp_multiplier(factor: f64) -> f64 {
    if factor.is_nan() {
        1.0
    } else {
        factor.clamp(MIN_DURATION_MULTIPLIER, MAX_DURATION_MULTIPLIER)
    }
}

/// Builds a [`Policy`]. Numeric settings are clamped to sane ranges: 1-32 visible toasts,
/// 0-256 queued, 1-10,000 entries per session, 0-1,024 muted titles, 1-4,096 sessions, and a
/// duration multiplier of 0.5-10.
#[derive(Debug, Clone)]
#[must_use]
pub struct PolicyBuilder {
    policy: Policy,
}

/// Generates builder setters: `name(arg: Type) = value;` sets the policy's field `name` to
/// `value` (made of `arg`) and returns the builder.
macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident($arg:ident: $type:ty) = $value:expr;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(mut self, $arg: $type) -> Self {
                self.policy.$name = $value;
                self
            }
        )*
    };
}

impl PolicyBuilder {
    setters! {
        /// Preset for `info`.
        info(preset: SeverityPreset) = preset;

        /// Preset for `warning`.
        warning(preset: SeverityPreset) = preset;

        /// Preset for `error`.
        error(preset: SeverityPreset) = preset;

        /// Preset for severities this crate does not know.
        unknown(preset: SeverityPreset) = preset;

        /// Most toasts visible at once.
        max_visible(count: usize) = clamp(count, VISIBLE_RANGE);

        /// What happens when all visible slots are taken.
        overflow(overflow: Overflow) = overflow;

        /// Most toasts waiting in the overflow queue.
        max_queued(count: usize) = clamp(count, QUEUE_RANGE);

        /// The flood guard, or `None` to turn it off.
        flood_guard(guard: Option<FloodGuard>) = guard.map(|g| FloodGuard::new(g.max_burst, g.window));

        /// The coalescing window, or `None` to turn coalescing off.
        coalesce_window(window: Option<Duration>) = window;

        /// Entries kept per session.
        list_capacity(capacity: usize) = clamp(capacity, CAPACITY_RANGE);

        /// Muted titles kept per session.
        max_muted_titles(count: usize) = clamp(count, MUTED_RANGE);

        /// Sessions tracked at once.
        max_sessions(count: usize) = clamp(count, SESSIONS_RANGE);

        /// Turns auto-hiding off for every severity (WCAG 2.2.1, timing adjustable).
        never_auto_hide(on: bool) = on;

        /// Starts with do-not-disturb on or off.
        do_not_disturb(on: bool) = on;
    }

    /// The user's factor on auto-hide times, clamped to
    /// [`MIN_DURATION_MULTIPLIER`]..=[`MAX_DURATION_MULTIPLIER`] (NaN means 1).
    pub fn duration_multiplier(mut self, factor: f64) -> Self {
        self.policy.set_duration_multiplier(factor);
        self
    }

    /// The finished policy.
    #[must_use]
    pub fn build(self) -> Policy {
        self.policy
    }
}
