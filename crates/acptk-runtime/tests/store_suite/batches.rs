//! Batches (`SessionStore::append_batch`): kept in order and whole, and a batch that cannot
//! be written leaves nothing of itself.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use acptk_runtime::ProtocolVersion;
use acptk_runtime::agent::{HistoryEntry, SessionMeta, SessionStore};

use super::{Fixture, readers, sessions_with, v1_text};

/// Two store values append batches of ten to one session at once: every batch lands whole
/// (its entries next to each other, in order), and nothing is lost.
pub async fn batches_keep_order_and_stay_whole(fixture: &impl Fixture) {
    const BATCHES: usize = 20;
    const EACH: usize = 10;
    let first = fixture.store();
    let second = fixture.second().unwrap_or_else(|| fixture.store());
    first
        .create(&SessionMeta::new("sess_batches", ProtocolVersion::V1, "/"))
        .await
        .unwrap();
    first
        .append_batch("sess_batches", Vec::new())
        .await
        .unwrap();
    let batch = |name: &str, n: usize| -> Vec<HistoryEntry> {
        (0..EACH)
            .map(|k| v1_text(&format!("{name} {n} {k}")))
            .collect()
    };
    let write = |store: Arc<dyn SessionStore>, name: &'static str| {
        tokio::spawn(async move {
            for n in 0..BATCHES {
                store
                    .append_batch("sess_batches", batch(name, n))
                    .await
                    .unwrap();
            }
        })
    };
    let a = write(first, "a");
    let b = write(second, "b");
    a.await.unwrap();
    b.await.unwrap();
    for reader in readers(fixture) {
        let history = reader.history("sess_batches").await.unwrap();
        assert_eq!(history.len(), 2 * BATCHES * EACH);
        let mut next = [0usize; 2];
        for group in history.chunks(EACH) {
            let writer = usize::from(group[0] != batch("a", next[0])[0]);
            let name = ["a", "b"][writer];
            assert_eq!(
                group,
                batch(name, next[writer]).as_slice(),
                "batch {} of {name} is whole and in its place",
                next[writer]
            );
            next[writer] += 1;
        }
        assert_eq!(next, [BATCHES, BATCHES]);
    }
}

/// A batch that the storage refuses leaves nothing of itself, and the session keeps what it
/// had; an unknown session's batch is refused as unknown.
pub async fn a_failed_batch_stores_none_of_it(fixture: &impl Fixture) {
    let store = fixture.store();
    let kept = [v1_text("kept 1"), v1_text("kept 2")];
    sessions_with(&store, &["sess_fails", "sess_goes_on"], &kept).await;
    let unknown = store
        .append_batch("sess_unknown", vec![v1_text("x")])
        .await
        .unwrap_err();
    assert!(
        matches!(unknown, acptk_runtime::agent::StoreError::Unknown(_)),
        "{unknown:?}"
    );
    let Some(writer) = fixture.break_writes("sess_fails").await else {
        eprintln!("skipped: this store cannot be broken from outside");
        return;
    };
    // Only the middle entry is refused by a database: the whole batch goes.
    let batch = vec![
        v1_text("fine 1"),
        v1_text("fine 2"),
        v1_text("lost 3"),
        v1_text("fine 4"),
    ];
    let error = writer.append_batch("sess_fails", batch).await.unwrap_err();
    assert!(error.to_string().contains("sess_fails"), "{error}");
    writer
        .append_batch("sess_goes_on", vec![v1_text("after")])
        .await
        .unwrap();
    for reader in readers(fixture) {
        assert_eq!(
            reader.history("sess_goes_on").await.unwrap(),
            [v1_text("kept 1"), v1_text("kept 2"), v1_text("after")]
        );
    }
    // (A broken file cannot be read back at all; a database's rows can.)
    if let Ok(history) = fixture.store().history("sess_fails").await {
        assert_eq!(history, [v1_text("kept 1"), v1_text("kept 2")]);
    }
}
