//! Random values for the encoder tests: strings with every class of character JSON treats
//! apart, JSON values and `_meta` objects.

use proptest::prelude::*;
use serde_json::{Map, Value};

/// Characters of every escape class and of none: the two quotes, backslash, each control
/// character (short and `\u00XX` escapes), DEL, U+2028 and U+2029 (which serde_json does not
/// escape), multi-byte characters, and plenty of plain ASCII so that runs longer than a word
/// occur.
fn arb_char() -> impl Strategy<Value = char> {
    prop_oneof![
        8 => proptest::char::range(' ', '~'),
        1 => Just('"'),
        1 => Just('\\'),
        1 => proptest::char::range('\u{0}', '\u{1f}'),
        1 => prop::sample::select(vec!['\u{7f}', '\u{2028}', '\u{2029}', 'é', '—', '✓', '😀', '中']),
    ]
}

/// A string of up to 40 characters from [`arb_char`].
pub fn arb_text() -> impl Strategy<Value = String> {
    prop::collection::vec(arb_char(), 0..40).prop_map(String::from_iter)
}

/// Any JSON value (no NaN: a `Value` cannot hold one), nested up to three levels.
pub fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        arb_text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((arb_text(), inner), 0..4)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A `_meta` object of up to three entries.
pub fn arb_meta() -> impl Strategy<Value = acptk_schema::Meta> {
    prop::collection::vec((arb_text(), arb_value()), 0..3)
        .prop_map(|entries| entries.into_iter().collect())
}
