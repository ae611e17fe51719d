//! A minimal terminal for the terminal UI's pseudo-terminal tests: replays what the client
//! wrote (cursor moves, clears, text) onto a grid of cells, so that a test can read the
//! screen as a user sees it, row by row. Include it with `#[path = "support/vt.rs"] mod vt;`.
#![allow(dead_code)]

/// The screen `raw` leaves on a terminal of `rows` x `cols`, as rows of text. Knows what
/// ratatui's crossterm backend writes: `CSI row;col H` moves, `CSI 2 J` clears, carriage
/// returns and line feeds; other escape sequences (colours, modes, queries) change no cell.
pub fn screen(raw: &[u8], rows: usize, cols: usize) -> Vec<String> {
    let text = String::from_utf8_lossy(raw);
    let mut grid = vec![vec![' '; cols]; rows];
    let (mut y, mut x) = (0usize, 0usize);
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                Some('[') => {
                    let mut params = String::new();
                    let mut end = ' ';
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            end = c;
                            break;
                        }
                        params.push(c);
                    }
                    match end {
                        'H' | 'f' => {
                            let mut at = params
                                .split(';')
                                .map(|n| n.parse::<usize>().unwrap_or(1).max(1) - 1);
                            y = at.next().unwrap_or(0);
                            x = at.next().unwrap_or(0);
                        }
                        'J' if params == "2" => grid = vec![vec![' '; cols]; rows],
                        _ => {}
                    }
                }
                // An OSC sequence ends with BEL or ST (ESC \).
                Some(']') => {
                    let mut previous = ' ';
                    for c in chars.by_ref() {
                        if c == '\u{7}' || (previous == '\u{1b}' && c == '\\') {
                            break;
                        }
                        previous = c;
                    }
                }
                _ => {}
            },
            '\r' => x = 0,
            '\n' => y += 1,
            c if c.is_control() => {}
            c => {
                if let Some(cell) = grid.get_mut(y).and_then(|row| row.get_mut(x)) {
                    *cell = c;
                }
                x += 1;
            }
        }
    }
    grid.into_iter()
        .map(|row| row.into_iter().collect())
        .collect()
}
