//! The agent shown in the README's "Write an agent" section is the example that runs
//! (`cargo run -p acp-runtime --example word_counter`), line for line.

const README: &str = include_str!("../../../README.md");
const EXAMPLE: &str = include_str!("../examples/word_counter.rs");

#[test]
fn the_readme_shows_the_example_that_runs() {
    let section = README
        .split("## Write an agent")
        .nth(1)
        .expect("the README has a \"Write an agent\" section");
    let shown = section
        .split("```rust\n")
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
