//! Conformance tooling for `acptk-schema`: differential tests and benchmarks against the official
//! `agent-client-protocol-schema` crate.
//!
//! This crate is not published. Both crates are built with every unstable feature. Its tests
//! (`tests/differential.rs`) decode a corpus of several thousand ACP v1 and v2 messages with
//! both crates and check that they accept and reject the same messages and re-encode accepted
//! ones to the same JSON, except for the differences listed with a reason in
//! `tests/differences.md`; `tests/surface.rs` generates the official crate's unstable schema
//! live and checks that the checked-in reference equals it and that ours covers every type. Its benchmark (`benches/session_updates.rs`)
//! measures decoding and encoding of a realistic `session/update` stream with both crates side
//! by side. The official crate is a dev-dependency only: it serves as an oracle and is never
//! part of this library.
//!
//! The library holds what the tests and benchmarks share:
//!
//! * [`reference`](mod@reference): the checked-in reference schemas and method lists of the official crate;
//! * [`rng`]: a seeded random number generator, so that every corpus is reproducible;
//! * [`schema_gen`]: instances of the reference JSON Schemas, with controlled deviations;
//! * [`stream`]: the realistic `session/update` stream used by the benchmark;
//! * [`route`]: runs every routing decoder on a message (robustness tests and the fuzz targets
//!   under `fuzz/` of the repository).

pub mod reference;
pub mod rng;
pub mod route;
pub mod schema_gen;
pub mod stream;
