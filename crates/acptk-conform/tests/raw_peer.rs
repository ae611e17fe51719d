//! The raw peer's reading: a line the agent writes in two pieces with a pause longer than the
//! wait is read whole once it is complete (a wait that times out loses nothing), and a line
//! over the limit is recorded by its length without being held, the next line read as usual.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a failing test may panic

use std::time::Duration;

use acptk_conform::peer::{LINE_LIMIT, RawPeer};
use acptk_runtime::transport::AgentCommand;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn python(script: &str) -> AgentCommand {
    AgentCommand::new("python3")
        .arg("-c")
        .arg(script)
        .grace_period(Duration::from_millis(200))
}

#[test]
fn a_line_split_by_a_pause_longer_than_the_wait_is_read_whole() {
    let agent = python(
        "import sys, time\n\
         sys.stdout.write('{\"jsonrpc\":\"2.0\",'); sys.stdout.flush()\n\
         time.sleep(0.6)\n\
         sys.stdout.write('\"method\":\"late\"}\\n'); sys.stdout.flush()\n\
         time.sleep(5)\n",
    );
    runtime().block_on(async {
        let mut peer = RawPeer::spawn(&agent, "split", Duration::from_secs(2)).unwrap();
        // The first wait ends while only half the line has come.
        assert!(peer.next(Duration::from_millis(200)).await.is_none());
        let line = peer
            .next(Duration::from_secs(3))
            .await
            .expect("the whole line");
        assert_eq!(line.method(), Some("late"));
        let transcript = peer.finish().await;
        assert_eq!(transcript.len(), 1, "{transcript:?}");
    });
}

#[test]
fn a_line_over_the_limit_is_recorded_by_its_length_and_the_next_one_is_read() {
    let agent = python(&format!(
        "import sys\n\
         sys.stdout.write('x' * {}); sys.stdout.write('\\n')\n\
         sys.stdout.write('{{\"jsonrpc\":\"2.0\",\"method\":\"after\"}}\\n'); sys.stdout.flush()\n\
         import time; time.sleep(5)\n",
        LINE_LIMIT + 10
    ));
    runtime().block_on(async {
        let mut peer = RawPeer::spawn(&agent, "long", Duration::from_secs(2)).unwrap();
        let long = peer
            .next(Duration::from_secs(5))
            .await
            .expect("the long line");
        assert!(long.value.is_none());
        let after = peer
            .next(Duration::from_secs(5))
            .await
            .expect("the next line");
        assert_eq!(after.method(), Some("after"));
        let transcript = peer.finish().await;
        assert!(
            transcript[0].contains(&format!("a line of {} bytes", LINE_LIMIT + 10)),
            "{}",
            &transcript[0][..200.min(transcript[0].len())]
        );
        assert!(
            transcript[0].len() < 64 * 1024,
            "the long line is not kept whole"
        );
    });
}
