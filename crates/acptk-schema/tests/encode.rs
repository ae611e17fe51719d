//! The hand-written encoders of the hot types write exactly what serde's generic path writes.
//!
//! The hot types (session update params, message chunks, content blocks, tool calls and their
//! updates, plans, usage, notices) have their own JSON encoder, which their `Serialize` impls
//! use when the serializer is `serde_json`'s compact one (`to_string`, `to_vec`,
//! `to_writer`). Any other serializer takes the generic serde path, field by field. Here a
//! `serde_json` serializer with a formatter of our own (which writes what the compact one
//! writes, but is not recognised) gives the generic output, and the two are compared byte for
//! byte: on random values of both versions (proptest) and on the session update corpus.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/arb.rs"]
mod arb;

use arb::{arb_meta, arb_text, arb_value};
use proptest::prelude::*;
use serde::Serialize;

/// A formatter with every default: the compact format, under a type the encoders do not know.
struct GenericFormatter;

impl serde_json::ser::Formatter for GenericFormatter {}

/// The output of serde's generic path.
fn generic<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, GenericFormatter);
    value.serialize(&mut serializer).unwrap();
    String::from_utf8(out).unwrap()
}

/// Checks that every way into `serde_json`'s compact serializer gives the generic output.
fn assert_identical<T: Serialize + ?Sized>(value: &T) {
    let expected = generic(value);
    let text = serde_json::to_string(value).unwrap();
    assert_eq!(text, expected);
    assert_eq!(serde_json::to_vec(value).unwrap(), expected.as_bytes());
    let mut buffer = Vec::new();
    serde_json::to_writer(&mut buffer, value).unwrap();
    assert_eq!(buffer, expected.as_bytes());
    // Another writer type than `&mut Vec<u8>`.
    let mut cursor = std::io::Cursor::new(Vec::new());
    serde_json::to_writer(&mut cursor, value).unwrap();
    assert_eq!(cursor.into_inner(), expected.as_bytes());
    // Nested in a cold value (the JSON-RPC envelope) and through a raw value.
    let envelope = acptk_schema::jsonrpc::Notification::new("session/update", Some(value));
    assert_eq!(
        serde_json::to_string(&envelope).unwrap(),
        generic(&envelope)
    );
    let raw = serde_json::value::to_raw_value(value).unwrap();
    assert_eq!(raw.get(), expected);
    // Pretty printing is not the compact format: it must still indent the hot types.
    let pretty = serde_json::to_string_pretty(value).unwrap();
    let reparsed: serde_json::Value = serde_json::from_str(&pretty).unwrap();
    let compact: serde_json::Value = serde_json::from_str(&expected).unwrap();
    assert_eq!(reparsed, compact);
}

/// The proptests of one version: its `session/update` params (type `$notification`, from random
/// session ids, updates of the version's `arb_update` and `_meta`) and the given further tests,
/// each encoding identically.
macro_rules! version_proptests {
    ($notification:ident; $($tests:tt)*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            #[test]
            fn notifications_encode_identically(
                session in arb_text(),
                update in arb_update(),
                meta in proptest::option::of(arb_meta()),
            ) {
                let mut notification = $notification::new(session, update);
                notification.meta = meta;
                assert_identical(&notification);
            }

            $($tests)*
        }
    };
}

/// Every ASCII character, and the other classes of `arb::arb_text`, come out escaped as serde_json escapes them.
#[test]
fn every_escape_class_is_written_as_serde_json_writes_it() {
    let mut all_bytes = String::new();
    for code in 0u32..0x80 {
        all_bytes.push(char::from_u32(code).unwrap());
    }
    let texts = [
        all_bytes.as_str(),
        "",
        "plain ascii text that is long enough for several words",
        "quote \" backslash \\ slash / del \u{7f}",
        "\u{2028}\u{2029} line and paragraph separators stay as they are",
        "non-ASCII: é ü — ✓ 😀 中文",
        "\u{0}\u{1}\u{1f}\n\r\t\u{8}\u{c}",
        "exactly8\"exactly8",
        "1234567\\",
    ];
    for text in texts {
        let content = acptk_schema::v1::TextContent::new(text);
        assert_identical(&content);
        let expected = serde_json::to_string(&serde_json::Value::String(text.to_owned())).unwrap();
        assert_eq!(
            serde_json::to_string(&content).unwrap(),
            format!(r#"{{"text":{expected}}}"#)
        );
    }
}

#[test]
fn floats_are_written_as_serde_json_writes_them() {
    use acptk_schema::v1::{Cost, UsageUpdate};
    for amount in [
        0.0,
        -0.0,
        1.0,
        0.1,
        1e-7,
        1.5e300,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        let usage = UsageUpdate::new(1u64, 2u64).cost(Cost::new(amount, "USD"));
        assert_identical(&usage);
        let text = serde_json::to_string(&usage).unwrap();
        if amount.is_finite() {
            let number = serde_json::Number::from_f64(amount).unwrap();
            assert!(text.contains(&format!(r#""amount":{number},"#)), "{text}");
        } else {
            assert!(text.contains(r#""amount":null,"#), "{text}");
        }
    }
}

/// Each line of the session update corpus (every variant of both versions, minimal and full):
/// the typed value's encoding is the generic one, and says what the line said.
#[test]
fn the_session_update_corpus_encodes_identically() {
    fn check<T: serde::de::DeserializeOwned + Serialize>(corpus: &str) -> usize {
        let mut checked = 0;
        for line in corpus.lines().filter(|line| !line.trim().is_empty()) {
            let Ok(typed) = serde_json::from_str::<T>(line) else {
                continue; // a tag of a feature this build leaves out
            };
            assert_identical(&typed);
            let ours: serde_json::Value = serde_json::to_value(&typed).unwrap();
            let text: serde_json::Value =
                serde_json::from_str(&serde_json::to_string(&typed).unwrap()).unwrap();
            assert_eq!(text, ours, "{line}");
            checked += 1;
        }
        checked
    }
    let v1 = check::<acptk_schema::v1::SessionNotification>(include_str!(
        "data/v1-session-updates.jsonl"
    ));
    assert!(v1 >= 20, "only {v1} v1 lines decoded");
    #[cfg(feature = "unstable_protocol_v2")]
    {
        let v2 = check::<acptk_schema::v2::UpdateSessionNotification>(include_str!(
            "data/v2-session-updates.jsonl"
        ));
        assert!(v2 >= 20, "only {v2} v2 lines decoded");
    }
}

/// A value that is not the whole message: hot types nested in cold ones and cold ones nested in
/// hot ones.
#[test]
fn hot_and_cold_types_nest_both_ways() {
    use acptk_schema::v1::{
        ContentBlock, ContentChunk, ImageContent, SessionNotification, SessionUpdate,
    };
    let image: ContentBlock = ImageContent::new("aGVsbG8=", "image/png").into();
    let chunk = ContentChunk::new(image).message_id("m\"1");
    assert_identical(&chunk);
    let update = SessionUpdate::AgentMessageChunk(chunk);
    // The union alone takes serde's derived path, whose payload is a hot type.
    assert_eq!(serde_json::to_string(&update).unwrap(), generic(&update));
    assert_identical(&SessionNotification::new("s", update));
    // A list of hot values (a cold container).
    let list = vec![
        acptk_schema::v1::TextContent::new("a"),
        acptk_schema::v1::TextContent::new("b\n"),
    ];
    assert_identical(&list);
}

/// A message larger than the buffer each thread keeps.
#[test]
fn large_messages_encode_identically() {
    let text = "long line with \"quotes\" and \\ backslashes\n".repeat(4_000);
    let notification = acptk_schema::v1::SessionNotification::new(
        "sess",
        acptk_schema::v1::SessionUpdate::agent_message_chunk(text.as_str()),
    );
    assert_identical(&notification);
    assert_identical(&notification);
}

mod v1 {
    use super::*;
    use acptk_schema::v1::*;

    fn arb_block() -> impl Strategy<Value = ContentBlock> {
        prop_oneof![
            4 => (arb_text(), any::<bool>(), proptest::option::of(arb_meta())).prop_map(
                |(text, annotated, meta)| {
                    let mut content = TextContent::new(text);
                    if annotated {
                        content = content.annotations(Annotations::new().priority(0.5));
                    }
                    if let Some(meta) = meta {
                        content = content.meta(meta);
                    }
                    content.into()
                }
            ),
            1 => arb_text().prop_map(|data| ImageContent::new(data, "image/png").into()),
            1 => (arb_text(), arb_text()).prop_map(|(name, uri)| ResourceLink::new(name, uri).into()),
        ]
    }

    fn arb_tool_content() -> impl Strategy<Value = ToolCallContent> {
        prop_oneof![
            arb_block().prop_map(|block| ToolCallContent::Content(Content::new(block))),
            (arb_text(), proptest::option::of(arb_text()), arb_text()).prop_map(
                |(path, old, new)| {
                    let mut diff = Diff::new(path, new);
                    if let Some(old) = old {
                        diff = diff.old_text(old);
                    }
                    ToolCallContent::Diff(diff)
                }
            ),
        ]
    }

    fn arb_location() -> impl Strategy<Value = ToolCallLocation> {
        (arb_text(), proptest::option::of(any::<u32>())).prop_map(|(path, line)| {
            let location = ToolCallLocation::new(path);
            match line {
                Some(line) => location.line(line),
                None => location,
            }
        })
    }

    fn arb_kind() -> impl Strategy<Value = ToolKind> {
        prop::sample::select(vec![
            ToolKind::Read,
            ToolKind::Edit,
            ToolKind::Delete,
            ToolKind::Move,
            ToolKind::Search,
            ToolKind::Execute,
            ToolKind::Think,
            ToolKind::Fetch,
            ToolKind::SwitchMode,
            ToolKind::Other,
        ])
    }

    fn arb_status() -> impl Strategy<Value = ToolCallStatus> {
        prop::sample::select(vec![
            ToolCallStatus::Pending,
            ToolCallStatus::InProgress,
            ToolCallStatus::Completed,
            ToolCallStatus::Failed,
        ])
    }

    fn arb_tool_call_update() -> impl Strategy<Value = ToolCallUpdate> {
        (
            arb_text(),
            proptest::option::of(arb_kind()),
            proptest::option::of(arb_status()),
            proptest::option::of(arb_text()),
            proptest::option::of(prop::collection::vec(arb_tool_content(), 0..3)),
            proptest::option::of(prop::collection::vec(arb_location(), 0..3)),
            proptest::option::of(arb_value()),
            proptest::option::of(arb_meta()),
        )
            .prop_map(|(id, kind, status, title, content, locations, raw, meta)| {
                let mut update = ToolCallUpdate::new(id);
                update.kind = kind;
                update.status = status;
                update.title = title.clone();
                update.name = title;
                update.content = content;
                update.locations = locations;
                update.raw_input = raw.clone();
                update.raw_output = raw;
                update.meta = meta;
                update
            })
    }

    fn arb_tool_call() -> impl Strategy<Value = ToolCall> {
        (
            arb_text(),
            arb_text(),
            proptest::option::of(arb_kind()),
            proptest::option::of(arb_status()),
            prop::collection::vec(arb_tool_content(), 0..3),
            prop::collection::vec(arb_location(), 0..3),
            proptest::option::of(arb_value()),
        )
            .prop_map(|(id, title, kind, status, content, locations, raw)| {
                let mut call = ToolCall::new(id, title.clone()).content(content);
                call.locations = locations;
                call.kind = kind;
                call.status = status;
                call.name = Some(title);
                call.raw_output = raw;
                call
            })
    }

    fn arb_plan() -> impl Strategy<Value = Plan> {
        let priority = prop::sample::select(vec![
            PlanEntryPriority::High,
            PlanEntryPriority::Medium,
            PlanEntryPriority::Low,
        ]);
        let status = prop::sample::select(vec![
            PlanEntryStatus::Pending,
            PlanEntryStatus::InProgress,
            PlanEntryStatus::Completed,
        ]);
        prop::collection::vec((arb_text(), priority, status), 0..4).prop_map(|entries| {
            Plan::new(
                entries
                    .into_iter()
                    .map(|(content, priority, status)| PlanEntry::new(content, priority, status))
                    .collect::<Vec<_>>(),
            )
        })
    }

    fn arb_update() -> impl Strategy<Value = SessionUpdate> {
        let chunk = (
            arb_block(),
            proptest::option::of(arb_text()),
            proptest::option::of(arb_meta()),
        )
            .prop_map(|(block, message, meta)| {
                let mut chunk = ContentChunk::new(block);
                chunk.message_id = message.map(MessageId::new);
                chunk.meta = meta;
                chunk
            })
            .boxed();
        let usage = (
            any::<u64>(),
            any::<u64>(),
            proptest::option::of((any::<f64>(), arb_text())),
        )
            .prop_map(|(used, size, cost)| {
                let usage = UsageUpdate::new(used, size);
                match cost {
                    Some((amount, currency)) => usage.cost(Cost::new(amount, currency)),
                    None => usage,
                }
            });
        prop_oneof![
            4 => chunk.clone().prop_map(SessionUpdate::AgentMessageChunk),
            1 => chunk.clone().prop_map(SessionUpdate::AgentThoughtChunk),
            1 => chunk.prop_map(SessionUpdate::UserMessageChunk),
            2 => arb_tool_call_update().prop_map(SessionUpdate::from),
            1 => arb_tool_call().prop_map(SessionUpdate::from),
            1 => arb_plan().prop_map(SessionUpdate::from),
            1 => (arb_text(), arb_plan()).prop_map(|(id, plan)| {
                SessionUpdate::from(PlanUpdate::new(PlanItems::new(id, plan.entries)))
            }),
            1 => (arb_text(), arb_text()).prop_map(|(id, text)| {
                SessionUpdate::from(PlanUpdate::new(PlanMarkdown::new(id, text).path("p")))
            }),
            1 => usage.prop_map(SessionUpdate::from),
            1 => arb_text().prop_map(|id| SessionUpdate::from(PlanRemoved::new(id))),
            1 => arb_text().prop_map(|title| SessionUpdate::from(SessionInfoUpdate::new().title(title))),
            1 => super::notices::arb_v1(),
        ]
    }

    version_proptests! {
        SessionNotification;

        #[test]
        fn tool_call_parts_encode_identically(update in arb_tool_call_update(), call in arb_tool_call()) {
            assert_identical(&update);
            assert_identical(&call);
        }
    }
}

/// Notices of both versions, for the session update strategies.
mod notices {
    use super::*;

    pub(super) fn arb_v1() -> BoxedStrategy<acptk_schema::v1::SessionUpdate> {
        use acptk_schema::v1::{Notice, NoticeSeverity, SessionUpdate};
        let severity = prop::sample::select(vec!["info", "warning", "error", "_acme.debug"]);
        (severity, arb_text(), proptest::option::of(arb_text()))
            .prop_map(|(severity, title, description)| {
                let title = if title.is_empty() {
                    "t".to_owned()
                } else {
                    title
                };
                let mut notice = Notice::try_new(NoticeSeverity::from(severity), title).unwrap();
                notice.description = description;
                SessionUpdate::from(notice)
            })
            .boxed()
    }

    #[cfg(feature = "unstable_protocol_v2")]
    pub(super) fn arb_v2() -> BoxedStrategy<acptk_schema::v2::SessionUpdate> {
        use acptk_schema::v2::{Notice, NoticeSeverity, SessionUpdate};
        (arb_text(), proptest::option::of(arb_text()))
            .prop_map(|(title, description)| {
                let title = if title.is_empty() {
                    "t".to_owned()
                } else {
                    title
                };
                let mut notice = Notice::try_new(NoticeSeverity::Warning, title).unwrap();
                notice.description = description;
                SessionUpdate::from(notice)
            })
            .boxed()
    }
}

#[cfg(feature = "unstable_protocol_v2")]
mod v2 {
    use super::*;
    use acptk_schema::Patch;
    use acptk_schema::v2::*;

    fn arb_block() -> impl Strategy<Value = ContentBlock> {
        prop_oneof![
            4 => (arb_text(), proptest::option::of(arb_meta())).prop_map(|(text, meta)| {
                let content = TextContent::new(text);
                match meta {
                    Some(meta) => content.meta(meta).into(),
                    None => content.into(),
                }
            }),
            1 => arb_text().prop_map(|data| ImageContent::new(data, "image/png").into()),
        ]
    }

    fn arb_patch<T: std::fmt::Debug + Clone>(
        value: impl Strategy<Value = T>,
    ) -> impl Strategy<Value = Patch<T>> {
        prop_oneof![
            Just(Patch::Unchanged),
            Just(Patch::Clear),
            value.prop_map(Patch::Set),
        ]
    }

    fn arb_tool_call_update() -> impl Strategy<Value = ToolCallUpdate> {
        let content = prop::collection::vec(
            arb_block().prop_map(|block| ToolCallContent::Content(Content::new(block))),
            0..3,
        );
        let location = (arb_text(), proptest::option::of(any::<u32>())).prop_map(|(path, line)| {
            let mut location = ToolCallLocation::new(path);
            location.line = line;
            location
        });
        (
            arb_text(),
            arb_patch(arb_text()),
            arb_patch(arb_text().prop_map(ToolKind::from)),
            arb_patch(arb_text().prop_map(ToolCallStatus::from)),
            arb_patch(content),
            arb_patch(prop::collection::vec(location, 0..3)),
            arb_patch(arb_value()),
            arb_patch(Just(ToolCallCapabilities::new())),
            arb_patch(arb_meta()),
        )
            .prop_map(
                |(id, title, kind, status, content, locations, raw, capabilities, meta)| {
                    let mut update = ToolCallUpdate::new(id);
                    update.title = title.clone();
                    update.name = title;
                    update.kind = kind;
                    update.status = status;
                    update.content = content;
                    update.locations = locations;
                    update.raw_input = raw.clone();
                    update.raw_output = raw;
                    update.capabilities = capabilities;
                    update.meta = meta;
                    update
                },
            )
    }

    fn arb_update() -> impl Strategy<Value = SessionUpdate> {
        let chunk = (arb_text(), arb_block(), proptest::option::of(arb_meta()))
            .prop_map(|(message, block, meta)| {
                let mut chunk = ContentChunk::new(message, block);
                chunk.meta = meta;
                chunk
            })
            .boxed();
        let entries =
            prop::collection::vec((arb_text(), arb_text(), arb_text()), 0..4).prop_map(|entries| {
                entries
                    .into_iter()
                    .map(|(content, priority, status)| {
                        PlanEntry::new(
                            content,
                            PlanEntryPriority::from(priority),
                            PlanEntryStatus::from(status),
                        )
                    })
                    .collect::<Vec<_>>()
            });
        let unknown = (arb_text(), arb_value()).prop_map(|(name, value)| {
            let mut fields = acptk_schema::unknown::Fields::new();
            fields.insert("value".to_owned(), value);
            SessionUpdate::unknown(format!("_x_{name}"), fields).unwrap()
        });
        prop_oneof![
            4 => chunk.clone().prop_map(SessionUpdate::AgentMessageChunk),
            1 => chunk.clone().prop_map(SessionUpdate::AgentThoughtChunk),
            1 => chunk.prop_map(SessionUpdate::UserMessageChunk),
            2 => arb_tool_call_update().prop_map(SessionUpdate::from),
            1 => (arb_text(), arb_block()).prop_map(|(id, block)| {
                SessionUpdate::from(ToolCallContentChunk::new(
                    id,
                    ToolCallContent::Content(Content::new(block)),
                ))
            }),
            1 => (arb_text(), entries).prop_map(|(id, entries)| {
                SessionUpdate::from(PlanUpdate::new(PlanItems::new(id, entries)))
            }),
            1 => (any::<u64>(), any::<u64>(), any::<f64>()).prop_map(|(used, size, amount)| {
                SessionUpdate::from(UsageUpdate::new(used, size).cost(Cost::new(amount, "EUR")))
            }),
            1 => arb_text().prop_map(|id| SessionUpdate::from(PlanRemoved::new(id))),
            1 => unknown,
            1 => super::notices::arb_v2(),
        ]
    }

    version_proptests! {
        UpdateSessionNotification;

        #[test]
        fn tool_call_updates_encode_identically(update in arb_tool_call_update()) {
            assert_identical(&update);
        }
    }
}
