//! The stream both runtimes send: `acptk-conformance`'s realistic `session/update` mix (70% text
//! chunks, 10% thoughts, 12% tool call updates, 5% usage, 3% notices), ACP v1, decoded up front
//! into each runtime's own types so that the timed part is the runtime's work only.

use std::time::Duration;

use acptk_conformance::stream::{Version, session_updates};

/// What one run sends.
#[derive(Debug, Clone, Copy)]
pub struct Workload {
    /// Number of `session/update` notifications.
    pub count: usize,
    /// Seed of the stream.
    pub seed: u64,
    /// Pause before each message (`None`: as fast as the runtime takes them).
    pub pace: Option<Duration>,
}

impl Workload {
    /// The command-line form, for the peer process: `COUNT SEED PACE_US`.
    pub fn to_args(self) -> [String; 3] {
        [
            self.count.to_string(),
            self.seed.to_string(),
            self.pace.map_or(0, |pace| pace.as_micros()).to_string(),
        ]
    }

    /// Parses [`Workload::to_args`].
    pub fn from_args(args: &[String]) -> Result<Self, String> {
        let [count, seed, pace] = args else {
            return Err("expected COUNT SEED PACE_US".to_owned());
        };
        let number = |text: &String| {
            text.parse::<u64>()
                .map_err(|error| format!("{text:?}: {error}"))
        };
        let pace = number(pace)?;
        Ok(Self {
            count: usize::try_from(number(count)?).map_err(|error| error.to_string())?,
            seed: number(seed)?,
            pace: (pace > 0).then(|| Duration::from_micros(pace)),
        })
    }

    /// The `params` JSON texts of the stream. The last one is always a notice, so that the
    /// client's receipt of the last notice is the receipt of the last message.
    pub fn params(&self) -> Vec<String> {
        let mut params = session_updates(Version::V1, self.count, self.seed);
        let is_notice = |text: &String| text.contains(r#""sessionUpdate":"notice""#);
        if let Some(notice) = params.iter().rev().find(|text| is_notice(text)).cloned()
            && let Some(last) = params.last_mut()
            && !is_notice(last)
        {
            *last = notice;
        }
        params
    }
}
