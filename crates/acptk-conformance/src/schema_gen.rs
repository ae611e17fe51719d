//! Instances of a JSON Schema, drawn deterministically from a seed.
//!
//! [`SchemaGen`] walks the reference schemas of ACP (`acp-v1.schema.json`, `acp-v2.schema.json`)
//! and builds JSON values that follow them, with controlled deviations that exercise the corners
//! of the wire format: optional fields left out or set to `null`, unknown properties, values of
//! the wrong type in fields that are read leniently, invalid items in arrays that skip them,
//! unknown tags in open unions, and numbers at (or just past) the edge of their range.
//!
//! Only the keywords the ACP schemas use are understood: `$ref` into `$defs`, `const`, `enum`,
//! `type` (one or a list), `properties`, `required`, `additionalProperties`, `items`,
//! `minItems`, `minLength`, `maxLength`, `minimum`, `maximum`, `format`, `contentEncoding`,
//! `allOf`, `anyOf` / `oneOf` (an alternative titled `other` is the fallback of an open union),
//! and the ACP extensions `x-deserialize-default-on-error` and
//! `x-deserialize-skip-invalid-items`.

use serde_json::{Map, Number, Value, json};

use crate::rng::Rng;

/// How often the generator deviates from the plain, minimal instance.
#[derive(Debug, Clone)]
pub struct GenConfig {
    /// Probability that an optional property is written.
    pub optional: f64,
    /// Probability that a nullable value is `null`.
    pub null: f64,
    /// Probability that an object gets a property its schema does not name.
    pub unknown_field: f64,
    /// Probability that a lenient property (`x-deserialize-default-on-error`) gets a value of
    /// the wrong type.
    pub lenient_wrong_type: f64,
    /// Probability that an array marked `x-deserialize-skip-invalid-items` gets an invalid item.
    pub invalid_item: f64,
    /// Probability that an open union takes its `other` fallback (an unknown tag or value).
    pub other: f64,
    /// Probability that an integer is an edge value: a bound of its format, or one past it.
    pub edge_number: f64,
    /// Nesting depth (counted in schema steps) past which optional properties are left out and
    /// arrays stay as short as allowed.
    pub max_depth: usize,
}

impl Default for GenConfig {
    fn default() -> Self {
        Self {
            optional: 0.5,
            null: 0.1,
            unknown_field: 0.05,
            lenient_wrong_type: 0.05,
            invalid_item: 0.1,
            other: 0.15,
            edge_number: 0.05,
            max_depth: 24,
        }
    }
}

/// Builds instances of the types of one JSON Schema document (its `$defs`).
#[derive(Debug)]
pub struct SchemaGen<'s> {
    defs: &'s Map<String, Value>,
    rng: Rng,
    config: GenConfig,
}

/// Strings that stand in for unknown tags and unknown open-enum values. None of them is a
/// known ACP tag.
const UNKNOWN_WORDS: &[&str] = &[
    "_vendor_custom",
    "future_variant",
    "x-unknown",
    "Pending",
    "zz_new_kind_7",
    "_acme/flag",
];

/// Ordinary string values; some need escaping or are unusual Unicode.
const STRINGS: &[&str] = &[
    "",
    "a",
    "hello world",
    "src/main.rs",
    "/home/user/project/README.md",
    "héllo wörld ✓",
    "emoji 🎉 party",
    "line one\nline two",
    "tab\there",
    "quote \" and backslash \\",
    "<b>not html</b>",
    "\u{1b}[31mred\u{1b}[0m",
    "sess_01HZX7Q",
    "\u{202e}reversed",
    "𝕦𝕟𝕚𝕔𝕠𝕕𝕖",
];

const URIS: &[&str] = &[
    "file:///home/user/project/src/lib.rs",
    "https://example.com/docs?q=1",
    "zed://settings",
];

const DATES: &[&str] = &["2025-06-01T12:00:00Z", "2024-02-29T23:59:59.123+02:00"];

const BASE64: &[&str] = &["aGVsbG8=", "", "iVBORw0KGgo="];

impl<'s> SchemaGen<'s> {
    /// A generator over the `$defs` of `document`, or `None` when it has none.
    pub fn new(document: &'s Value, seed: u64, config: GenConfig) -> Option<Self> {
        let defs = document.get("$defs")?.as_object()?;
        Some(Self {
            defs,
            rng: Rng::new(seed),
            config,
        })
    }

    /// The schema of the `$defs` entry `name`.
    pub fn definition(&self, name: &str) -> Option<&'s Value> {
        self.defs.get(name)
    }

    /// Names of every `$defs` entry.
    pub fn definition_names(&self) -> impl Iterator<Item = &'s str> {
        self.defs.keys().map(String::as_str)
    }

    /// An instance of the `$defs` entry `name`, or `None` when there is no such entry.
    pub fn instance_of(&mut self, name: &str) -> Option<Value> {
        let schema = self.definition(name)?;
        Some(self.value(schema, 0))
    }

    /// An instance of `schema`, which may refer to the document's `$defs`.
    pub fn instance(&mut self, schema: &'s Value) -> Value {
        self.value(schema, 0)
    }

    /// The random source, to draw further choices from the same stream.
    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }

    /// The deviation settings, to change them between instances.
    pub fn config_mut(&mut self) -> &mut GenConfig {
        &mut self.config
    }

    fn resolve(&self, reference: &str) -> Option<&'s Value> {
        reference
            .strip_prefix("#/$defs/")
            .and_then(|name| self.defs.get(name))
    }

    fn value(&mut self, schema: &'s Value, depth: usize) -> Value {
        if depth > self.config.max_depth * 2 {
            return Value::Null;
        }
        let Some(obj) = schema.as_object() else {
            // `true` (or any non-object schema) accepts everything.
            return self.any_value(depth);
        };
        if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
            return match self.resolve(reference) {
                Some(target) => self.value(target, depth + 1),
                None => Value::Null,
            };
        }
        if let Some(constant) = obj.get("const") {
            return constant.clone();
        }
        if let Some(Value::Array(options)) = obj.get("enum") {
            return self.rng.pick(options).cloned().unwrap_or(Value::Null);
        }
        let objectish = is_objectish(obj);
        if let Some(alternatives) = union_of(obj)
            && !objectish
        {
            let alternative = self.choose(alternatives, depth);
            return self.alternative(alternative, depth + 1);
        }
        if let Some(Value::Array(parts)) = obj.get("allOf")
            && !objectish
            && types_of(obj).is_empty()
        {
            return self.all_of(parts, depth + 1);
        }
        let types = types_of(obj);
        if types.is_empty() {
            return if objectish {
                self.object(obj, depth)
            } else {
                self.any_value(depth)
            };
        }
        let concrete: Vec<&str> = types.iter().copied().filter(|t| *t != "null").collect();
        if concrete.is_empty()
            || (concrete.len() < types.len() && self.rng.chance(self.config.null))
        {
            return Value::Null;
        }
        match self.rng.pick(&concrete).copied().unwrap_or("null") {
            "object" => self.object(obj, depth),
            "string" => self.string(obj),
            "integer" => self.integer(obj),
            "number" => self.number(obj),
            "boolean" => Value::Bool(self.rng.chance(0.5)),
            "array" => self.array(obj, depth),
            _ => Value::Null,
        }
    }

    /// Picks one alternative of a union: `null` and the `other` fallback with their configured
    /// probabilities, otherwise one of the regular alternatives.
    fn choose(&mut self, alternatives: &'s [Value], depth: usize) -> &'s Value {
        let mut nulls = Vec::new();
        let mut others = Vec::new();
        let mut regular = Vec::new();
        for alternative in alternatives {
            if is_null_schema(alternative) {
                nulls.push(alternative);
            } else if is_fallback(alternative) {
                others.push(alternative);
            } else {
                regular.push(alternative);
            }
        }
        if let Some(null) = nulls.first()
            && (regular.is_empty() || self.rng.chance(self.config.null))
        {
            return null;
        }
        if !others.is_empty()
            && (regular.is_empty() || self.rng.chance(self.config.other))
            && let Some(other) = self.rng.pick(&others)
        {
            return other;
        }
        if depth >= self.config.max_depth
            && let Some(first) = regular.first()
        {
            return first;
        }
        match self.rng.pick(&regular).or(others.first()).or(nulls.first()) {
            Some(choice) => choice,
            None => &Value::Null,
        }
    }

    fn alternative(&mut self, alternative: &'s Value, depth: usize) -> Value {
        if is_fallback(alternative) && types_of_value(alternative) == ["string"] {
            return self.unknown_word();
        }
        self.value(alternative, depth)
    }

    fn all_of(&mut self, parts: &'s [Value], depth: usize) -> Value {
        match parts {
            [single] => self.value(single, depth),
            _ => {
                let mut merged = Map::new();
                for part in parts {
                    if let Value::Object(fields) = self.value(part, depth) {
                        for (key, value) in fields {
                            merged.entry(key).or_insert(value);
                        }
                    }
                }
                Value::Object(merged)
            }
        }
    }

    fn object(&mut self, obj: &'s Map<String, Value>, depth: usize) -> Value {
        let fallback =
            obj.contains_key("not") || obj.get("title").and_then(Value::as_str) == Some("other");
        let required: Vec<&str> = obj
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out = Map::new();
        let properties = obj.get("properties").and_then(Value::as_object);
        if let Some(properties) = properties {
            for (name, property) in properties {
                let is_required = required.contains(&name.as_str());
                if !is_required
                    && (depth >= self.config.max_depth || !self.rng.chance(self.config.optional))
                {
                    continue;
                }
                let value = if fallback && is_required && is_plain_string(property) {
                    self.unknown_word()
                } else {
                    self.property(property, depth + 1)
                };
                out.insert(name.clone(), value);
            }
        }
        if let Some(Value::Array(parts)) = obj.get("allOf") {
            for part in parts {
                if let Value::Object(fields) = self.value(part, depth + 1) {
                    for (key, value) in fields {
                        out.entry(key).or_insert(value);
                    }
                }
            }
        }
        if let Some(alternatives) = union_of(obj) {
            let alternative = self.choose(alternatives, depth);
            if let Value::Object(fields) = self.alternative(alternative, depth + 1) {
                // The alternative is the more specific schema: its values win.
                for (key, value) in fields {
                    out.insert(key, value);
                }
            }
        }
        match obj.get("additionalProperties") {
            Some(Value::Bool(false)) => {}
            Some(Value::Object(entry)) if !entry.is_empty() => {
                let count = if depth >= self.config.max_depth {
                    0
                } else {
                    self.rng.below(3)
                };
                for index in 0..count {
                    let key = format!("{}{index}", self.key_word());
                    let value = self.value(&obj["additionalProperties"], depth + 1);
                    out.insert(key, value);
                }
            }
            _ if properties.is_none() && union_of(obj).is_none() && !obj.contains_key("allOf") => {
                // A free-form map such as `_meta`.
                let count = if depth >= self.config.max_depth {
                    0
                } else {
                    self.rng.below(3)
                };
                for index in 0..count {
                    let key = format!("{}{index}", self.key_word());
                    let value = self.any_value(depth + 1);
                    out.insert(key, value);
                }
            }
            _ => {
                if self.rng.chance(self.config.unknown_field) {
                    let value = self.any_value(depth + 1);
                    out.insert("unknownField".to_owned(), value);
                }
            }
        }
        Value::Object(out)
    }

    fn property(&mut self, property: &'s Value, depth: usize) -> Value {
        let lenient = property.get("x-deserialize-default-on-error") == Some(&Value::Bool(true));
        if lenient && self.rng.chance(self.config.lenient_wrong_type) {
            return self.wrong_type(property);
        }
        let mut value = self.value(property, depth);
        let skips_invalid =
            property.get("x-deserialize-skip-invalid-items") == Some(&Value::Bool(true));
        if skips_invalid
            && self.rng.chance(self.config.invalid_item)
            && let Value::Array(items) = &mut value
        {
            let junk = match self.rng.below(3) {
                0 => json!(42),
                1 => json!("junk"),
                _ => json!({ "type": "no_such_kind" }),
            };
            let at = self.rng.below(items.len() + 1);
            items.insert(at, junk);
        }
        value
    }

    /// A value whose JSON type is not one the schema expects (when the schema expects any
    /// type, some value anyway).
    fn wrong_type(&mut self, schema: &'s Value) -> Value {
        let mut expected = Vec::new();
        self.expected_kinds(schema, 0, &mut expected);
        let candidates = [
            json!(42),
            json!("not the right type"),
            json!(true),
            json!([1, 2]),
            json!({ "unexpected": "object" }),
            json!(-1),
            json!(1.5),
        ];
        let wrong: Vec<&Value> = candidates
            .iter()
            .filter(|value| !expected.contains(&kind_of(value)))
            .collect();
        match self.rng.pick(&wrong) {
            Some(value) => (*value).clone(),
            None => json!(42),
        }
    }

    fn expected_kinds(&self, schema: &'s Value, depth: usize, out: &mut Vec<&'static str>) {
        if depth > 8 {
            return;
        }
        let Some(obj) = schema.as_object() else {
            return;
        };
        if let Some(target) = obj
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| self.resolve(r))
        {
            self.expected_kinds(target, depth + 1, out);
        }
        if let Some(constant) = obj.get("const") {
            out.push(kind_of(constant));
        }
        for ty in types_of(obj) {
            out.push(match ty {
                "object" => "object",
                "string" => "string",
                "integer" => "integer",
                "number" => "number",
                "boolean" => "boolean",
                "array" => "array",
                _ => "null",
            });
            if ty == "number" {
                out.push("integer");
            }
        }
        if is_objectish(obj) {
            out.push("object");
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(parts)) = obj.get(key) {
                for part in parts {
                    self.expected_kinds(part, depth + 1, out);
                }
            }
        }
    }

    fn string(&mut self, obj: &Map<String, Value>) -> Value {
        let pool: &[&str] = match obj.get("format").and_then(Value::as_str) {
            Some("uri") => URIS,
            Some("date-time") => DATES,
            _ if obj.contains_key("contentEncoding") => BASE64,
            _ => STRINGS,
        };
        let mut text = self.rng.pick(pool).copied().unwrap_or("x").to_owned();
        if self.rng.chance(0.03) {
            text = "long ".repeat(60 + self.rng.below(40));
        }
        let min = obj.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = obj
            .get("maxLength")
            .and_then(Value::as_u64)
            .map(|m| m as usize);
        while text.chars().count() < min {
            text.push('x');
        }
        if let Some(max) = max {
            text = text.chars().take(max).collect();
        }
        Value::String(text)
    }

    fn integer(&mut self, obj: &Map<String, Value>) -> Value {
        let (mut low, mut high): (i128, i128) = match obj.get("format").and_then(Value::as_str) {
            Some("uint8") => (0, u8::MAX.into()),
            Some("uint16") => (0, u16::MAX.into()),
            Some("uint32") => (0, u32::MAX.into()),
            Some("uint64") => (0, u64::MAX.into()),
            Some("int32") => (i32::MIN.into(), i32::MAX.into()),
            _ => (i64::MIN.into(), i64::MAX.into()),
        };
        if let Some(minimum) = obj.get("minimum").and_then(Value::as_f64) {
            low = low.max(minimum.ceil() as i128);
        }
        if let Some(maximum) = obj.get("maximum").and_then(Value::as_f64) {
            high = high.min(maximum.floor() as i128);
        }
        let value = if self.rng.chance(self.config.edge_number) {
            match self.rng.below(4) {
                0 => low,
                1 => high,
                2 => low - 1,
                _ => high + 1,
            }
        } else {
            let small_low = low.max(-50);
            let small_high = high.min(5_000).max(small_low);
            small_low + self.rng.below((small_high - small_low + 1) as usize) as i128
        };
        integer_value(value)
    }

    fn number(&mut self, obj: &Map<String, Value>) -> Value {
        let low = obj.get("minimum").and_then(Value::as_f64);
        let high = obj.get("maximum").and_then(Value::as_f64);
        let pool: [f64; 8] = [0.0, 0.25, 0.5, 1.0, 0.001, 123.456, 1e-7, 42.0];
        let mut value = self.rng.pick(&pool).copied().unwrap_or(0.0);
        if let Some(low) = low {
            value = value.max(low);
        }
        if let Some(high) = high {
            value = value.min(high);
        }
        if self.rng.chance(self.config.edge_number) {
            value = match self.rng.below(2) {
                0 => low.map_or(-1.0, |low| low - 0.5),
                _ => high.map_or(1e300, |high| high + 0.5),
            };
        }
        Number::from_f64(value).map_or(Value::Null, Value::Number)
    }

    fn array(&mut self, obj: &'s Map<String, Value>, depth: usize) -> Value {
        let min = obj.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        let count = if depth >= self.config.max_depth {
            min
        } else {
            self.rng.below(4).max(min)
        };
        let items = obj.get("items");
        let mut out = Vec::with_capacity(count);
        for _ in 0..count {
            out.push(match items {
                Some(schema) => self.value(schema, depth + 1),
                None => self.any_value(depth + 1),
            });
        }
        Value::Array(out)
    }

    /// A small arbitrary JSON value.
    fn any_value(&mut self, depth: usize) -> Value {
        let nested = depth < self.config.max_depth;
        match self.rng.below(if nested { 8 } else { 6 }) {
            0 => Value::Null,
            1 => Value::Bool(self.rng.chance(0.5)),
            2 => json!(self.rng.below(1000)),
            3 => json!(-2.5),
            4 | 5 => Value::String(self.rng.pick(STRINGS).copied().unwrap_or("").to_owned()),
            6 => {
                let count = self.rng.below(3);
                Value::Array((0..count).map(|_| self.any_value(depth + 2)).collect())
            }
            _ => {
                let count = self.rng.below(3);
                let mut map = Map::new();
                for index in 0..count {
                    let key = format!("{}{index}", self.key_word());
                    let value = self.any_value(depth + 2);
                    map.insert(key, value);
                }
                Value::Object(map)
            }
        }
    }

    fn unknown_word(&mut self) -> Value {
        Value::String(
            self.rng
                .pick(UNKNOWN_WORDS)
                .copied()
                .unwrap_or("x-unknown")
                .to_owned(),
        )
    }

    fn key_word(&mut self) -> &'static str {
        self.rng
            .pick(&["key", "vendor.io/trace", "_private", "k", "nested"])
            .copied()
            .unwrap_or("k")
    }
}

/// The JSON kind of a value, as a JSON Schema `type` name.
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn integer_value(value: i128) -> Value {
    if let Ok(v) = i64::try_from(value) {
        json!(v)
    } else if let Ok(v) = u64::try_from(value) {
        json!(v)
    } else {
        // Past the 64-bit range: written as a float, which no integer field accepts.
        json!(value as f64)
    }
}

fn union_of(obj: &Map<String, Value>) -> Option<&Vec<Value>> {
    obj.get("oneOf")
        .or_else(|| obj.get("anyOf"))
        .and_then(Value::as_array)
}

fn is_objectish(obj: &Map<String, Value>) -> bool {
    obj.contains_key("properties") || types_of(obj) == ["object"]
}

fn types_of(obj: &Map<String, Value>) -> Vec<&str> {
    match obj.get("type") {
        Some(Value::String(ty)) => vec![ty.as_str()],
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn types_of_value(schema: &Value) -> Vec<&str> {
    schema.as_object().map(types_of).unwrap_or_default()
}

fn is_null_schema(schema: &Value) -> bool {
    types_of_value(schema) == ["null"]
}

/// Whether an alternative is the `other` fallback of an open union.
fn is_fallback(schema: &Value) -> bool {
    schema.get("title").and_then(Value::as_str) == Some("other")
}

/// `{"type": "string"}` with nothing else that constrains it (a discriminator in a fallback).
fn is_plain_string(schema: &Value) -> bool {
    schema.as_object().is_some_and(|obj| {
        obj.get("type").and_then(Value::as_str) == Some("string")
            && !obj.contains_key("const")
            && !obj.contains_key("format")
    })
}

/// Where a [`mutate`] call changed a value, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mutation {
    /// JSON pointer of the changed node.
    pub pointer: String,
    /// What was done there.
    pub action: &'static str,
}

/// Applies one random structural change to `value`: removes a property, gives a node a value
/// of another type, swaps a string for an unknown tag, or empties an array. Returns what was
/// done, or `None` when `value` has no node to change.
pub fn mutate(value: &mut Value, rng: &mut Rng) -> Option<Mutation> {
    let mut pointers = Vec::new();
    collect_pointers(value, String::new(), &mut pointers);
    let pointer = rng.pick(&pointers)?.clone();
    let action;
    if pointer.is_empty() {
        *value = json!(["not", "an", "object"]);
        action = "replace the whole payload";
    } else {
        let (parent_pointer, last) = pointer.rsplit_once('/')?;
        let last = last.replace("~1", "/").replace("~0", "~");
        let parent = value.pointer_mut(parent_pointer)?;
        let choice = rng.below(4);
        match parent {
            Value::Object(map) if choice == 0 => {
                map.shift_remove_entry_compat(&last);
                action = "remove the property";
            }
            _ => {
                let node = value.pointer_mut(&pointer)?;
                action = match (choice, &node) {
                    (1 | 0, Value::String(_)) => {
                        *node = json!("bogus_tag");
                        "replace a string with an unknown word"
                    }
                    (2, Value::Array(_)) => {
                        *node = json!([]);
                        "empty the array"
                    }
                    (_, Value::Null) => {
                        *node = json!({});
                        "replace null with an object"
                    }
                    (_, Value::Object(_)) | (_, Value::Array(_)) => {
                        *node = json!("a string");
                        "replace a container with a string"
                    }
                    _ => {
                        *node = Value::Null;
                        "replace a value with null"
                    }
                };
            }
        }
    }
    Some(Mutation { pointer, action })
}

/// Removal that keeps the order of the remaining keys whether or not serde_json's
/// `preserve_order` feature is on.
trait RemoveInOrder {
    fn shift_remove_entry_compat(&mut self, key: &str);
}

impl RemoveInOrder for Map<String, Value> {
    fn shift_remove_entry_compat(&mut self, key: &str) {
        let kept: Map<String, Value> = std::mem::take(self)
            .into_iter()
            .filter(|(k, _)| k != key)
            .collect();
        *self = kept;
    }
}

fn collect_pointers(value: &Value, pointer: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let escaped = key.replace('~', "~0").replace('/', "~1");
                collect_pointers(child, format!("{pointer}/{escaped}"), out);
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                collect_pointers(child, format!("{pointer}/{index}"), out);
            }
        }
        _ => {}
    }
    out.push(pointer);
}
