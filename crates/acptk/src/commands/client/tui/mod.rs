//! The terminal UI of `acp client`: its state and what each [`key`] does ([`app`],
//! [`editor`], [`history`], [`slash`], [`dialog`]), drawing it ([`view`], [`layout`],
//! [`conversation`], [`line_cache`], [`agent_pane`], [`placed`]), the session's steps on
//! their own tasks ([`steps`]), a terminal [`login`], the [`terminal`] itself, the
//! [`event_loop`], and the same client as plain lines for screen readers ([`plain_ui`]).

pub mod agent_pane;
pub mod app;
pub mod conversation;
pub mod dialog;
pub mod editor;
pub mod event_loop;
pub mod history;
pub mod key;
pub mod layout;
pub mod line_cache;
pub mod login;
pub mod placed;
pub mod plain_ui;
pub mod slash;
pub mod steps;
pub mod terminal;
pub mod view;
