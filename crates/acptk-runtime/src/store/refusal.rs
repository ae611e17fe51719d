//! Why a database store refused a lease or an append, judged the same way by SQLite and
//! PostgreSQL from what the session's row says after the refused statement.
//!
//! A refused statement and the read that explains it are two steps. In PostgreSQL another
//! instance may change the row between them, and a lease may run out between them: then
//! nothing is in the way any more and the right answer is to try the statement again, not to
//! report an error that names no cause (the cluster test once saw "the session changed at the
//! same moment" when a crashed instance's lease ran out in that gap).

use std::time::Duration;

use super::StoreError;

/// How many times a store runs a refused statement before it gives up with
/// [`changed_too_often`]. A retry is needed only when the row changed between the statement
/// and the read, so a third refusal in a row means the session is being fought over.
pub(super) const ATTEMPTS: usize = 3;

/// What was refused.
#[derive(Debug, Clone, Copy)]
pub(super) enum Attempt {
    /// Taking or renewing the lease.
    Lease,
    /// Appending `size` bytes of entry JSON under the store's `limit`.
    Append {
        /// The bytes the append adds.
        size: u64,
        /// The store's limit per session.
        limit: u64,
    },
}

impl Attempt {
    /// The action named in the error after the last attempt.
    fn action(self) -> &'static str {
        match self {
            Attempt::Lease => "taking the lease",
            Attempt::Append { .. } => "appending to the history",
        }
    }
}

/// The session's row as read after a refusal.
#[derive(Debug)]
pub(super) struct RowState {
    /// The history's size, in bytes of entry JSON.
    pub bytes: u64,
    /// The holder of a lease that has not run out, and how long it still runs.
    pub lease: Option<(String, Duration)>,
}

/// What a refusal means.
#[derive(Debug)]
pub(super) enum Verdict {
    /// A cause that another attempt would meet again.
    Refused(StoreError),
    /// Nothing in the row refuses the attempt now: the row changed after the statement.
    TryAgain,
}

/// Judges a refusal of `attempt` on session `id` by the store whose leases are held as
/// `own`, from the row (`None`: there is no such session).
pub(super) fn judge(id: &str, row: Option<RowState>, own: &str, attempt: Attempt) -> Verdict {
    let Some(row) = row else {
        return Verdict::Refused(StoreError::Unknown(id.to_owned()));
    };
    if let Some((holder, remaining)) = row.lease
        && holder != own
    {
        return Verdict::Refused(StoreError::Leased {
            id: id.to_owned(),
            holder,
            remaining,
        });
    }
    match attempt {
        Attempt::Append { size, limit } if row.bytes.saturating_add(size) > limit => {
            Verdict::Refused(StoreError::Full {
                id: id.to_owned(),
                used: row.bytes,
                limit,
                unit: "bytes",
            })
        }
        _ => Verdict::TryAgain,
    }
}

/// The error after [`ATTEMPTS`] refusals that each found nothing in the way when explained.
pub(super) fn changed_too_often(id: &str, attempt: Attempt) -> StoreError {
    StoreError::database(
        id,
        attempt.action(),
        format!(
            "the session changed between each of {ATTEMPTS} attempts and the read that explains it; try again"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(bytes: u64, lease: Option<(&str, u64)>) -> Option<RowState> {
        Some(RowState {
            bytes,
            lease: lease.map(|(holder, millis)| (holder.to_owned(), Duration::from_millis(millis))),
        })
    }

    const APPEND: Attempt = Attempt::Append {
        size: 10,
        limit: 100,
    };

    #[test]
    fn a_missing_row_is_an_unknown_session() {
        let verdict = judge("s", None, "me", Attempt::Lease);
        assert!(matches!(verdict, Verdict::Refused(StoreError::Unknown(id)) if id == "s"));
    }

    #[test]
    fn another_holders_live_lease_refuses_both_attempts() {
        for attempt in [Attempt::Lease, APPEND] {
            let verdict = judge("s", row(0, Some(("other", 1500))), "me", attempt);
            let Verdict::Refused(StoreError::Leased {
                holder, remaining, ..
            }) = verdict
            else {
                panic!("{attempt:?}: {verdict:?}");
            };
            assert_eq!(holder, "other");
            assert_eq!(remaining, Duration::from_millis(1500));
        }
    }

    #[test]
    fn an_append_past_the_limit_is_full_and_one_within_it_tries_again() {
        let full = judge("s", row(95, None), "me", APPEND);
        assert!(
            matches!(
                full,
                Verdict::Refused(StoreError::Full {
                    used: 95,
                    limit: 100,
                    ..
                })
            ),
            "{full:?}"
        );
        // The lease that refused it ran out before the read: not full, just try again.
        assert!(matches!(
            judge("s", row(90, None), "me", APPEND),
            Verdict::TryAgain
        ));
    }

    #[test]
    fn a_lease_that_ran_out_or_is_ours_means_try_again() {
        assert!(matches!(
            judge("s", row(0, None), "me", Attempt::Lease),
            Verdict::TryAgain
        ));
        assert!(matches!(
            judge("s", row(0, Some(("me", 900))), "me", Attempt::Lease),
            Verdict::TryAgain
        ));
    }

    #[test]
    fn the_last_error_names_the_action() {
        let message = changed_too_often("s", Attempt::Lease).to_string();
        assert!(message.contains("taking the lease"), "{message}");
        assert!(message.contains("3 attempts"), "{message}");
    }
}
