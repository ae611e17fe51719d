//! One module per `acp` subcommand.

pub mod schema;
