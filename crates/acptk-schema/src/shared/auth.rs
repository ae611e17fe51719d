//! Authentication parts whose shape is the same in both versions: building an [`AuthMethod`]
//! from one of its kinds.
//!
//! The rest differs between the versions and stays in each version's own auth module: the
//! method union (closed with an untagged agent kind in v1, open and always tagged in v2), the
//! id field of a method (`id` in v1, `methodId` in v2), the terminal method's environment, and
//! the request and response names (`authenticate`/`logout` in v1, `auth/login`/`auth/logout`
//! in v2).

#[allow(unused_imports)]
use super::*;

from_variants!(AuthMethod { Terminal(AuthMethodTerminal), Agent(AuthMethodAgent) });
