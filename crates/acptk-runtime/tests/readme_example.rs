//! The agent shown in the user guide's "Writing an agent" chapter is the example that runs
//! (`cargo run -p acptk-runtime --example word_counter`), line for line.

const CHAPTER: &str = include_str!("../../../docs/src/writing-an-agent.md");
const EXAMPLE: &str = include_str!("../examples/word_counter.rs");

#[test]
fn the_guide_shows_the_example_that_runs() {
    let shown = CHAPTER
        .split("```rust,no_run\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the section shows Rust code");
    // The example's file starts with its doc comment; the code follows it.
    let code: String = EXAMPLE
        .lines()
        .skip_while(|line| line.starts_with("//!"))
        .skip_while(|line| line.is_empty())
        .map(|line| format!("{line}\n"))
        .collect();
    assert_eq!(shown, code);
}
