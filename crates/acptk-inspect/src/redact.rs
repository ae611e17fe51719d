//! Redaction of secrets in frames, for export and for every answer of the MCP server.
//!
//! What is replaced by the string `"<redacted>"` (only string values; the structure stays):
//!
//! * the value of every object key that names a credential, compared without regard to case:
//!   `authorization`, `proxy-authorization`, `proxy-authentication`, `cookie`, `set-cookie`,
//!   `x-api-key`, `x-api-token`, `x-auth-token`, `api-key`, `api_key`, `apikey`, `proxy_key`,
//!   and any key ending in `token`, `secret`, `password` or `apikey` (`accessToken`,
//!   `clientSecret`, ...);
//! * MCP servers' environment and headers, and auth methods' variables: under any `env` or
//!   `headers` key, the `value` of each `{"name", "value"}` entry (the v1 and v2 shapes of
//!   `mcpServers` in `session/new`, `load`, `resume`, `fork`, and of `env` of terminal auth
//!   methods), or every string value of an object map (`{"NAME": "value"}`);
//! * under a `_meta` key, the whole string values of its proxy settings (`proxy`,
//!   `proxyConfig`, `proxyUrl`, `proxy_url`), which may carry credentials in their URLs.
//!
//! A frame with nothing to redact is kept byte for byte; one that had something redacted is
//! written again from its parsed JSON (object keys then come in sorted order).

use std::borrow::Cow;

use serde_json::Value;

/// What a redacted value becomes.
pub const REDACTED: &str = "<redacted>";

/// Keys whose string value is a credential, lower case.
const SECRET_KEYS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "proxy-authentication",
    "cookie",
    "set-cookie",
    "x-api-key",
    "x-api-token",
    "x-auth-token",
    "api-key",
    "api_key",
    "apikey",
    "proxy_key",
];

/// Endings of keys whose string value is a credential, lower case.
const SECRET_ENDINGS: &[&str] = &["token", "secret", "password", "apikey", "api_key"];

/// The proxy settings under `_meta` that are redacted whole.
const META_PROXY_KEYS: &[&str] = &["proxy", "proxyconfig", "proxyurl", "proxy_url"];

/// Words one of which a frame must hold (in ASCII lower case) to have anything to redact.
const TRIGGERS: &[&str] = &[
    "env", "header", "auth", "cookie", "key", "token", "secret", "password", "proxy",
];

/// Whether `key` names a credential.
fn secret_key(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    SECRET_KEYS.contains(&lower.as_str()) || SECRET_ENDINGS.iter().any(|e| lower.ends_with(e))
}

/// Redacts `value` in place; returns how many values were replaced.
pub fn value(value: &mut Value) -> usize {
    walk(value, false)
}

fn walk(value: &mut Value, in_meta: bool) -> usize {
    match value {
        Value::Object(map) => {
            let mut n = 0;
            for (key, item) in map.iter_mut() {
                let lower = key.to_ascii_lowercase();
                if item.is_string() && secret_key(key) {
                    *item = Value::String(REDACTED.to_owned());
                    n += 1;
                } else if lower == "env" || lower == "headers" {
                    n += variables(item);
                } else if in_meta && META_PROXY_KEYS.contains(&lower.as_str()) {
                    n += all_strings(item);
                } else {
                    n += walk(item, lower == "_meta");
                }
            }
            n
        }
        Value::Array(items) => items.iter_mut().map(|item| walk(item, in_meta)).sum(),
        _ => 0,
    }
}

/// Redacts environment variables or headers: `[{"name","value"}]` or `{"NAME": "value"}`.
fn variables(value: &mut Value) -> usize {
    match value {
        Value::Array(items) => items
            .iter_mut()
            .map(|item| match item {
                Value::Object(entry) => match entry.get_mut("value") {
                    Some(v @ Value::String(_)) => {
                        *v = Value::String(REDACTED.to_owned());
                        1
                    }
                    _ => walk(item, false),
                },
                other => all_strings(other),
            })
            .sum(),
        other => all_strings(other),
    }
}

/// Redacts every string under `value`.
fn all_strings(value: &mut Value) -> usize {
    match value {
        Value::String(s) if s != REDACTED => {
            *s = REDACTED.to_owned();
            1
        }
        Value::Object(map) => map.values_mut().map(all_strings).sum(),
        Value::Array(items) => items.iter_mut().map(all_strings).sum(),
        _ => 0,
    }
}

/// [`value`], for a callback that wants no count.
pub fn value_quietly(target: &mut Value) {
    value(target);
}

/// A frame's bytes with its secrets redacted: borrowed as it is when there was nothing to
/// redact (or it is not JSON).
pub fn frame(raw: &[u8]) -> Cow<'_, [u8]> {
    let lower = raw.to_ascii_lowercase();
    if !TRIGGERS
        .iter()
        .any(|t| memchr::memmem::find(&lower, t.as_bytes()).is_some())
    {
        return Cow::Borrowed(raw);
    }
    let Ok(mut parsed) = serde_json::from_slice::<Value>(raw) else {
        return Cow::Borrowed(raw);
    };
    if value(&mut parsed) == 0 {
        return Cow::Borrowed(raw);
    }
    Cow::Owned(serde_json::to_vec(&parsed).unwrap_or_else(|_| raw.to_vec()))
}

/// [`frame`] for text.
pub fn text(raw: &str) -> Cow<'_, str> {
    match frame(raw.as_bytes()) {
        Cow::Borrowed(_) => Cow::Borrowed(raw),
        Cow::Owned(bytes) => Cow::Owned(String::from_utf8_lossy(&bytes).into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_of_both_versions_go() {
        let raw = br#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[{"name":"gh","command":"gh-mcp","args":["--token-file","x"],"env":[{"name":"GITHUB_TOKEN","value":"ghp_secret1"}]},{"type":"http","name":"h","url":"https://h","headers":[{"name":"Authorization","value":"Bearer secret2"}]}],"_meta":{"proxyConfig":{"url":"http://u:secret3@proxy"},"apiKey":"secret4","other":"kept"}}}"#;
        let out = String::from_utf8(frame(raw).into_owned()).unwrap();
        for secret in ["secret1", "secret2", "secret3", "secret4"] {
            assert!(!out.contains(secret), "{secret} left in {out}");
        }
        for kept in [
            "GITHUB_TOKEN",
            "Authorization",
            "gh-mcp",
            "--token-file",
            "kept",
            "/w",
        ] {
            assert!(out.contains(kept), "{kept} lost from {out}");
        }
    }

    #[test]
    fn nothing_to_redact_keeps_the_bytes() {
        let raw = br#"{"jsonrpc":"2.0", "method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"my env has a token"}}}}"#;
        assert!(matches!(frame(raw), Cow::Borrowed(_)));
        assert!(matches!(frame(b"not json env"), Cow::Borrowed(_)));
    }

    #[test]
    fn object_maps_and_auth_method_env() {
        let mut v: Value = serde_json::from_str(
            r#"{"authMethods":[{"type":"terminal","id":"t","name":"T","env":{"API_SECRET":"s1"}}],"headers":{"X-Api-Key":"s2"},"maxTokens":5}"#,
        )
        .unwrap();
        assert_eq!(value(&mut v), 2);
        assert_eq!(v["authMethods"][0]["env"]["API_SECRET"], REDACTED);
        assert_eq!(v["headers"]["X-Api-Key"], REDACTED);
        assert_eq!(v["maxTokens"], 5);
    }
}
