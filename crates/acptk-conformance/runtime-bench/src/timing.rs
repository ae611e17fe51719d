//! Clock readings shared by both processes, and the figures computed from them.

use std::time::{SystemTime, UNIX_EPOCH};

/// Nanoseconds since the Unix epoch: the one clock both processes of the OS-pipe case read
/// (both run on this machine, so their readings are comparable).
pub fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX)
        })
}

/// What the agent side recorded while sending one stream.
#[derive(Debug, Default, Clone)]
pub struct SendLog {
    /// Just before the first message was handed to the runtime.
    pub first_send: u64,
    /// Just before each notice was handed to the runtime, in stream order.
    pub notices: Vec<u64>,
}

impl SendLog {
    /// One number per line: `first_send`, then the notices.
    pub fn to_text(&self) -> String {
        let mut out = format!("{}\n", self.first_send);
        for at in &self.notices {
            out.push_str(&format!("{at}\n"));
        }
        out
    }

    /// Parses [`SendLog::to_text`].
    pub fn from_text(text: &str) -> Result<Self, String> {
        let mut numbers = text.lines().map(|line| {
            line.trim()
                .parse::<u64>()
                .map_err(|error| format!("bad send log line {line:?}: {error}"))
        });
        let first_send = numbers.next().ok_or("empty send log")??;
        let notices = numbers.collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            first_send,
            notices,
        })
    }
}

/// The figures of one run.
#[derive(Debug, Clone)]
pub struct RunFigures {
    /// `session/update` messages per second, from the first send to the last receipt.
    pub throughput: f64,
    /// Notice latencies in microseconds, sorted.
    pub latencies_us: Vec<f64>,
}

impl RunFigures {
    /// Combines the agent's send log with the client's notice receipt times. The stream ends
    /// with a notice, so the last receipt is the receipt of the last message.
    pub fn new(count: usize, sent: &SendLog, received: &[u64]) -> Result<Self, String> {
        if sent.notices.len() != received.len() {
            return Err(format!(
                "{} notices sent but {} received",
                sent.notices.len(),
                received.len()
            ));
        }
        let last = *received.last().ok_or("no notice received")?;
        let elapsed = last.saturating_sub(sent.first_send).max(1) as f64 / 1e9;
        let mut latencies_us: Vec<f64> = sent
            .notices
            .iter()
            .zip(received)
            .map(|(sent, received)| received.saturating_sub(*sent) as f64 / 1e3)
            .collect();
        latencies_us.sort_by(f64::total_cmp);
        Ok(Self {
            throughput: count as f64 / elapsed,
            latencies_us,
        })
    }
}

/// The `q` quantile (0..=1) of sorted values, nearest rank.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The median of unsorted values.
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    quantile(&sorted, 0.5)
}
