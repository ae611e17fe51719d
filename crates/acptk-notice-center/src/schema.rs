//! Conversions from the `acptk-schema` wire types (v1 always, v2 with the `v2` feature).

use std::time::Duration;

use crate::center::{NoticeCenter, Receipt};
use crate::incoming::{IncomingNotice, SessionKey};
use crate::severity::Severity;

/// Conversions from the wire types of one protocol version; the types differ per version but
/// have the same shape, so one macro writes both.
macro_rules! from_schema_notice {
    ($version:ident, $notification:ident, $push:ident) => {
        impl<'a> From<&'a acptk_schema::$version::Notice> for IncomingNotice<'a> {
            fn from(notice: &'a acptk_schema::$version::Notice) -> Self {
                Self {
                    severity: Severity::from(&notice.severity),
                    title: notice.title.as_str(),
                    description: notice.description.as_deref(),
                }
            }
        }

        impl From<&acptk_schema::$version::NoticeSeverity> for Severity {
            fn from(severity: &acptk_schema::$version::NoticeSeverity) -> Self {
                Severity::from_wire(severity.as_str())
            }
        }

        impl From<&acptk_schema::$version::SessionId> for SessionKey {
            fn from(id: &acptk_schema::$version::SessionId) -> Self {
                SessionKey::new(id.as_str())
            }
        }

        impl NoticeCenter {
            #[doc = concat!(
                "Takes in a `session/update` notification of ACP ", stringify!($version),
                ": a notice is pushed into its session (see [`NoticeCenter::push`]) and its ",
                "receipt returned; any other update is ignored and gives `None`."
            )]
            pub fn $push(
                &mut self,
                notification: &acptk_schema::$version::$notification,
                now: Duration,
            ) -> Option<Receipt> {
                match &notification.update {
                    acptk_schema::$version::SessionUpdate::Notice(notice) => {
                        Some(self.push(notification.session_id.as_str(), notice.into(), now))
                    }
                    _ => None,
                }
            }
        }
    };
}

from_schema_notice!(v1, SessionNotification, push_v1);
#[cfg(feature = "v2")]
from_schema_notice!(v2, UpdateSessionNotification, push_v2);
