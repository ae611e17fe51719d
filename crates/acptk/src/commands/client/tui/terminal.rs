//! The terminal under the UI: set up (raw mode, bracketed paste, focus events, the kitty
//! keyboard protocol where the terminal has it) and restored, left for a while and come back
//! to, and read on a thread of its own as keys, pastes and focus changes.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ratatui::crossterm::event::{
    self as term, KeyCode, KeyEventKind, KeyModifiers, KeyboardEnhancementFlags,
};
use ratatui::crossterm::{execute, terminal};
use tokio::sync::mpsc;

use super::key::Key;

/// Input from the terminal.
pub(super) enum Input {
    Key(Key),
    Paste(String),
    Focus(bool),
    Redraw,
    /// The input thread asked the terminal about the kitty keyboard protocol (with it,
    /// Shift-Enter can be told from Enter) and reads keys from now on.
    Ready {
        enhanced: bool,
    },
}

/// The terminal, set up for the UI; restored when dropped.
pub(super) struct Screen {
    pub(super) terminal: ratatui::DefaultTerminal,
    /// Whether the kitty keyboard flags were pushed (and must be popped).
    enhanced: bool,
}

/// The kitty keyboard protocol flags the UI asks for: keys told apart unambiguously
/// (Shift-Enter, Alt-Enter, Ctrl-J), nothing more.
fn enhancement() -> KeyboardEnhancementFlags {
    KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES
}

impl Screen {
    pub(super) fn open() -> io::Result<Self> {
        let terminal = ratatui::try_init()?;
        let mut screen = Self {
            terminal,
            enhanced: false,
        };
        screen.modes_on();
        Ok(screen)
    }

    /// Focus reports (toast timers pause while the window is in the background) and
    /// bracketed paste (a paste arrives whole, never as typed Enter keys).
    fn modes_on(&mut self) {
        let _ = execute!(
            io::stdout(),
            term::EnableFocusChange,
            term::EnableBracketedPaste
        );
    }

    fn modes_off(&mut self) {
        if self.enhanced {
            let _ = execute!(io::stdout(), term::PopKeyboardEnhancementFlags);
        }
        let _ = execute!(
            io::stdout(),
            term::DisableBracketedPaste,
            term::DisableFocusChange
        );
    }

    /// Turns the kitty keyboard protocol on (the terminal said it has it).
    pub(super) fn enhance(&mut self) {
        if !self.enhanced {
            self.enhanced = execute!(
                io::stdout(),
                term::PushKeyboardEnhancementFlags(enhancement())
            )
            .is_ok();
        }
    }

    /// Leaves the UI for a while (for a login in the terminal).
    pub(super) fn suspend(&mut self) {
        self.modes_off();
        let _ = ratatui::try_restore();
    }

    /// Comes back after [`Screen::suspend`]. (A new terminal draws everything on its first
    /// frame, so nothing needs clearing; clearing would also ask the terminal for the cursor
    /// position.)
    pub(super) fn resume(&mut self) -> io::Result<()> {
        self.terminal = ratatui::try_init()?;
        self.modes_on();
        if self.enhanced {
            let _ = execute!(
                io::stdout(),
                term::PushKeyboardEnhancementFlags(enhancement())
            );
        }
        Ok(())
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        self.modes_off();
        let _ = ratatui::try_restore();
    }
}

/// Reads terminal events on a thread of its own (crossterm's reading blocks) until `stop`;
/// reads nothing while `paused`.
pub(super) fn spawn_input_thread(
    tx: mpsc::Sender<Input>,
    stop: Arc<AtomicBool>,
    paused: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        // Ask the terminal whether it has the kitty keyboard protocol (waits up to 2 s for a
        // terminal that does not answer; keys typed meanwhile are kept for the loop below).
        let enhanced = terminal::supports_keyboard_enhancement().unwrap_or(false);
        if tx.blocking_send(Input::Ready { enhanced }).is_err() {
            return;
        }
        while !stop.load(Ordering::Relaxed) {
            if paused.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
            match term::poll(Duration::from_millis(100)) {
                Ok(false) => continue,
                Ok(true) => {}
                Err(_) => break,
            }
            let input = match term::read() {
                Ok(term::Event::Key(key)) if key.kind != KeyEventKind::Release => {
                    match convert_key(key.code, key.modifiers) {
                        Some(key) => Input::Key(key),
                        None => continue,
                    }
                }
                Ok(term::Event::Paste(text)) => Input::Paste(text),
                Ok(term::Event::FocusGained) => Input::Focus(true),
                Ok(term::Event::FocusLost) => Input::Focus(false),
                Ok(term::Event::Resize(..)) => Input::Redraw,
                Ok(_) => continue,
                Err(_) => break,
            };
            if tx.blocking_send(input).is_err() {
                break;
            }
        }
    })
}

/// The terminal-independent key for a crossterm key, if the client uses it.
#[must_use]
pub fn convert_key(code: KeyCode, modifiers: KeyModifiers) -> Option<Key> {
    let ctrl = modifiers.contains(KeyModifiers::CONTROL);
    let alt = modifiers.contains(KeyModifiers::ALT);
    let shift = modifiers.contains(KeyModifiers::SHIFT);
    Some(match code {
        KeyCode::Char(c) if ctrl => Key::Ctrl(c.to_ascii_lowercase()),
        KeyCode::Char(c) if alt => Key::Alt(c.to_ascii_lowercase()),
        KeyCode::Char(c) => Key::Char(c),
        KeyCode::Enter if alt || shift => Key::Newline,
        KeyCode::Enter => Key::Enter,
        KeyCode::Backspace if alt || ctrl => Key::WordBackspace,
        KeyCode::Backspace => Key::Backspace,
        KeyCode::Delete => Key::Delete,
        KeyCode::Esc => Key::Esc,
        KeyCode::Up => Key::Up,
        KeyCode::Down => Key::Down,
        KeyCode::Left if ctrl || alt => Key::WordLeft,
        KeyCode::Left => Key::Left,
        KeyCode::Right if ctrl || alt => Key::WordRight,
        KeyCode::Right => Key::Right,
        KeyCode::Home if ctrl => Key::ScrollTop,
        KeyCode::Home => Key::Home,
        KeyCode::End if ctrl => Key::ScrollBottom,
        KeyCode::End => Key::End,
        KeyCode::PageUp => Key::PageUp,
        KeyCode::PageDown => Key::PageDown,
        KeyCode::Tab => Key::Tab,
        _ => return None,
    })
}
