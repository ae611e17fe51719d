//! Whether the tests that need a PostgreSQL cluster (and HAProxy) run: they use what
//! `scripts/test-postgres.sh` started (`ACP_TEST_POSTGRES_URL`), are skipped with a message
//! without it, and fail without it when a cluster is required (`ACP_CLUSTER_REQUIRED=1` or
//! `ACP_INTEROP_REQUIRED=1`, as `.ci/run` sets).
#![allow(dead_code)]

/// The variable that names the test cluster's database.
pub const POSTGRES_URL: &str = "ACP_TEST_POSTGRES_URL";

/// Whether missing cluster parts fail the test instead of skipping it.
pub fn required() -> bool {
    ["ACP_CLUSTER_REQUIRED", "ACP_INTEROP_REQUIRED"]
        .iter()
        .any(|name| std::env::var(name).is_ok_and(|value| value == "1"))
}

/// Skips (`None`, with a message) or, when required, fails for a missing `what`.
pub fn missing<T>(what: &str) -> Option<T> {
    let message =
        format!("{what} (scripts/test-postgres.sh start, then export its {POSTGRES_URL})");
    if required() {
        panic!("the cluster tests are required here, but: {message}");
    }
    eprintln!("skipped: {message}");
    None
}

/// The test cluster's database URL.
pub fn postgres_url() -> Option<String> {
    match std::env::var(POSTGRES_URL) {
        Ok(url) if !url.is_empty() => Some(url),
        _ => missing(&format!("no PostgreSQL: {POSTGRES_URL} is not set")),
    }
}
