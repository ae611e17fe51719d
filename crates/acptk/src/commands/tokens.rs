//! Bearer tokens from the command line: `--token TOKEN`, `$ACP_TOKEN` and (for listeners)
//! `--token-file FILE`, one principal per token. An empty token is a usage error everywhere,
//! never "no token".
//!
//! The token file: one `NAME TOKEN` per line (separated by spaces or tabs); lines that start
//! with `#` are comments. NAME is the principal (letters, digits, `.`, `_`, `-`); a name may
//! have several tokens (one line each), a token belongs to one name. Empty lines, a line
//! without a token and a token given twice are errors naming the line.

use std::fmt;
use std::path::Path;

/// The environment variable with the bearer token of `--url` (and of `acp agent --listen`).
pub const TOKEN_ENV: &str = "ACP_TOKEN";

/// A usage error: `acp` prints it and exits with 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Why `token` cannot be a bearer token, if it cannot.
fn refuse(token: &str) -> Option<&'static str> {
    if token.is_empty() {
        Some("an empty token would let anyone in")
    } else if token
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || !c.is_ascii())
    {
        Some("a token may hold only visible ASCII characters (no spaces)")
    } else {
        None
    }
}

/// The clap value parser of `--token`: not empty, visible ASCII only.
pub fn parse_token(text: &str) -> Result<String, String> {
    match refuse(text) {
        Some(reason) => Err(reason.to_owned()),
        None => Ok(text.to_owned()),
    }
}

/// `$ACP_TOKEN`: `None` when unset; set but empty (or not a token) is a usage error.
pub fn env_token() -> Result<Option<String>, UsageError> {
    let Some(value) = std::env::var_os(TOKEN_ENV) else {
        return Ok(None);
    };
    let value = value
        .into_string()
        .map_err(|_| UsageError(format!("${TOKEN_ENV} is not valid UTF-8")))?;
    match refuse(&value) {
        Some(reason) => Err(UsageError(format!(
            "${TOKEN_ENV} is set but cannot be a token: {reason} (unset it, or set a token)"
        ))),
        None => Ok(Some(value)),
    }
}

/// `--token` if given, else `$ACP_TOKEN`.
pub fn token(flag: Option<&String>) -> Result<Option<String>, UsageError> {
    match flag {
        Some(token) => Ok(Some(token.clone())),
        None => env_token(),
    }
}

/// The principals of a token file: `(name, token)` in file order.
pub fn read_token_file(path: &Path) -> Result<Vec<(String, String)>, UsageError> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|error| UsageError(format!("--token-file {shown}: {error}")))?;
    let entries = parse_token_file(&text)
        .map_err(|error| UsageError(format!("--token-file {shown}: {error}")))?;
    warn_if_readable_by_others(path);
    Ok(entries)
}

/// Parses the text of a token file (see the module docs).
pub fn parse_token_file(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut entries: Vec<(String, String)> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let trimmed = line.trim();
        if trimmed.starts_with('#') {
            continue;
        }
        let mut fields = trimmed.split_whitespace();
        let (Some(name), token, rest) = (fields.next(), fields.next(), fields.next()) else {
            return Err(format!(
                "line {number} is empty (write `NAME TOKEN`, or `#` for a comment)"
            ));
        };
        let Some(token) = token else {
            return Err(format!(
                "line {number} names `{name}` without a token (expected `NAME TOKEN`)"
            ));
        };
        if rest.is_some() {
            return Err(format!(
                "line {number} has more than `NAME TOKEN` (a token may not hold spaces)"
            ));
        }
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        {
            return Err(format!(
                "line {number}: `{name}` is not a name (letters, digits, `.`, `_` and `-`)"
            ));
        }
        if let Some(reason) = refuse(token) {
            return Err(format!("line {number}: {reason}"));
        }
        if let Some((other, _)) = entries.iter().find(|(_, known)| known == token) {
            return Err(format!(
                "line {number} gives `{name}` the token of `{other}`: each token stands for one principal"
            ));
        }
        entries.push((name.to_owned(), token.to_owned()));
    }
    if entries.is_empty() {
        return Err("no `NAME TOKEN` line".to_owned());
    }
    Ok(entries)
}

/// Says so on standard error when the token file can be read by other users.
fn warn_if_readable_by_others(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = std::fs::metadata(path)
            && meta.permissions().mode() & 0o077 != 0
        {
            eprintln!(
                "acp: warning: the token file {} can be read by other users (chmod 600 it)",
                path.display()
            );
        }
    }
}
