//! The decoding skeleton shared by both versions: the routing enums have the same names in
//! `acptk_schema::v1::methods` and `acptk_schema::v2::methods`.

/// Generates `role`, `request`, `notification`, `notification_from` and `response` for one
/// version module, and the facts of its notifications and responses. The module must define
/// `request_facts`; it names its `session/update` notification type, the update variants that
/// make up a replay of history, and its own arms for any other variant that matters.
macro_rules! version_decoder {
    (
        $schema:ident,
        notification: $notification:ident,
        history: [$($history:ident),* $(,)?],
        others: {$($pattern:pat => $kind:expr,)*} $(,)?
    ) => {
        use acptk_schema::$schema::{$notification, SessionUpdate};

        use crate::decode::{NoticeView, UpdateKind};
        use crate::replay::UpdateClass;

        fn notification_facts(notification: AgentNotification) -> Facts {
            match notification {
                AgentNotification::SessionUpdate(update) => update_facts(update),
                _ => Facts::Nothing,
            }
        }

        fn update_facts(notification: $notification) -> Facts {
            let kind = match notification.update {
                SessionUpdate::Notice(notice) => UpdateKind::Notice(NoticeView {
                    reserved: notice.severity.is_reserved(),
                    severity: notice.severity.as_str().to_owned(),
                    title: notice.title.into_string(),
                    description: notice.description,
                }),
                $($pattern => $kind,)*
                // What a replay of history consists of. Anything else an agent may send at
                // any time, so it proves no replay.
                $(SessionUpdate::$history(_))|* => UpdateKind::Plain(UpdateClass::History),
                _ => UpdateKind::Plain(UpdateClass::Other),
            };
            Facts::Update {
                session: notification.session_id.0,
                kind,
            }
        }

        fn response_facts(response: AgentResponse) -> Facts {
            match response {
                AgentResponse::Initialize(init) => Facts::Initialized {
                    version: init.protocol_version.get(),
                },
                _ => Facts::Nothing,
            }
        }

        use acptk_schema::Error;
        use acptk_schema::$schema::methods::{
            AgentNotification, AgentRequest, AgentResponse, ClientNotification, ClientRequest,
            ClientResponse, ProtocolNotification,
        };
        use serde_json::value::RawValue;

        use crate::decode::{Facts, Role};
        use crate::transcript::Side;

        /// Which side sends `method`, and how, in this version's tables.
        pub(super) fn role(method: &str) -> Option<Role> {
            let role = |sender, request| Some(Role { sender, request });
            if ClientRequest::METHODS.contains(&method) {
                role(Some(Side::Client), true)
            } else if ClientNotification::METHODS.contains(&method) {
                role(Some(Side::Client), false)
            } else if AgentRequest::METHODS.contains(&method) {
                role(Some(Side::Agent), true)
            } else if AgentNotification::METHODS.contains(&method) {
                role(Some(Side::Agent), false)
            } else if ProtocolNotification::METHODS.contains(&method) {
                role(None, false)
            } else {
                None
            }
        }

        /// Decodes a request sent by `sender`.
        pub(super) fn request(
            sender: Side,
            method: &str,
            params: Option<&RawValue>,
        ) -> Result<Facts, Error> {
            match sender {
                Side::Client => ClientRequest::decode(method, params).map(request_facts),
                Side::Agent => AgentRequest::decode(method, params).map(|_| Facts::Nothing),
            }
        }

        /// Decodes a notification sent by `sender`.
        pub(super) fn notification(
            sender: Side,
            method: &str,
            params: Option<&RawValue>,
        ) -> Result<Facts, Error> {
            if ProtocolNotification::METHODS.contains(&method) {
                return ProtocolNotification::decode(method, params).map(|_| Facts::Cancel);
            }
            match sender {
                Side::Client => ClientNotification::decode(method, params).map(|_| Facts::Nothing),
                Side::Agent => AgentNotification::decode(method, params).map(notification_facts),
            }
        }

        /// [`notification`] in one pass: decodes the params straight from `deserializer`.
        /// The decoders are the schema's `read_params`, compiled once in `acptk_schema`.
        pub(super) fn notification_from(
            sender: Side,
            method: &str,
            deserializer: &mut crate::decode::TextDeserializer<'_>,
        ) -> Result<Facts, serde_json::Error> {
            if ProtocolNotification::METHODS.contains(&method) {
                return ProtocolNotification::read_params(method, deserializer)
                    .map(|_| Facts::Cancel);
            }
            match sender {
                Side::Client => ClientNotification::read_params(method, deserializer)
                    .map(|_| Facts::Nothing),
                Side::Agent => AgentNotification::read_params(method, deserializer)
                    .map(notification_facts),
            }
        }

        /// Decodes the result of a response sent by `responder` to a request for `method`.
        pub(super) fn response(
            responder: Side,
            method: &str,
            result: &RawValue,
        ) -> Result<Facts, Error> {
            match responder {
                Side::Agent => AgentResponse::decode(method, result).map(response_facts),
                Side::Client => ClientResponse::decode(method, result).map(|_| Facts::Nothing),
            }
        }
    };
}
