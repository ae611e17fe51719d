//! Giving memory back after a burst.
//!
//! The `acp` binary allocates with mimalloc (see `main.rs`), which returns freed memory to the
//! operating system lazily: a freed region is purged once its purge delay (1 s) is over, and
//! only when the allocator runs again. A server whose client has just been disconnected is
//! often idle, and then its resident memory stays where the burst left it. [`tick`] keeps the
//! allocator running a little: once a second it reserves and frees a block (never written, so
//! it costs no resident memory), which lets mimalloc purge what has expired. Measured in
//! `tests/memory_bounds.rs` (BENCHMARKS.md): with it, the memory held for a disconnected
//! client is back within about a second; without it, it stayed until the next request.

use std::time::Duration;

/// How often the allocator is run.
const INTERVAL: Duration = Duration::from_secs(1);
/// The size of the block reserved and freed: large enough to go to the allocator's arenas,
/// where purging happens.
const BLOCK: usize = 4 << 20;

/// Runs forever (spawn it next to a long-running server): see the module docs.
pub async fn tick() {
    let mut interval = tokio::time::interval(INTERVAL);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        let block: Vec<u8> = Vec::with_capacity(BLOCK);
        drop(std::hint::black_box(block));
    }
}
