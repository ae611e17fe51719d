//! Prompt suggestions (cargo feature `unstable_prompt_suggestions`): prompts the agent expects
//! the user to send next, which the client offers where the user types, and the client
//! capability that allows them. Same shape in every protocol version.
//!
//! The agent sends a `prompt_suggestions_update` session update only to a client that
//! advertised `session.promptSuggestions`. Each update replaces the whole list (a session starts
//! with none); suggestions are not conversation history, so an agent should leave them out of a
//! replay.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    /// The `prompt_suggestions_update` session update: the complete new list of suggestions.
    ///
    /// ```json
    /// {"sessionUpdate": "prompt_suggestions_update",
    ///  "suggestions": [{"prompt": [{"type": "text", "text": "Run the tests"}]}]}
    /// ```
    pub struct PromptSuggestionsUpdate {
        /// The suggestions, most likely first; an empty list withdraws every suggestion. Must
        /// be a list; suggestions that do not decode are skipped.
        #[serde(deserialize_with = "crate::de::items_skip_invalid")]
        pub suggestions: Vec<PromptSuggestion>,
    }
}

constructor! {
    /// An update replacing the list with `suggestions`.
    PromptSuggestionsUpdate(suggestions: impl Into<Vec<PromptSuggestion>>) { meta: None }
}

wire_struct! {
    /// One suggested prompt.
    pub struct PromptSuggestion {
        /// The prompt's content, at least one block, in the shape of the `prompt` of
        /// `session/prompt` (the client may send it there as it is). Only text and resource
        /// links, plus the kinds both the agent's prompt capabilities and the client's
        /// suggestion capabilities allow; never only empty or blank text.
        #[cfg_attr(feature = "schemars", schemars(length(min = 1)))]
        pub prompt: Vec<ContentBlock>,
    }
}

constructor! {
    /// A suggestion made of these content blocks.
    PromptSuggestion(prompt: impl Into<Vec<ContentBlock>>) { meta: None }
}

wire_struct! {
    /// Client capability (`session.promptSuggestions`): the client can offer prompt
    /// suggestions.
    ///
    /// `{}` allows suggestions made of text and resource links; each field allows one more
    /// content kind (the names follow the agent's prompt capabilities). A malformed field is
    /// treated as absent.
    #[derive(Default)]
    pub struct PromptSuggestionsCapabilities {
        /// Suggestions may include image blocks.
        #[opt("crate::de::lenient_object")]
        pub image: Option<PromptSuggestionsImageCapabilities>,
        /// Suggestions may include audio blocks.
        #[opt("crate::de::lenient_object")]
        pub audio: Option<PromptSuggestionsAudioCapabilities>,
        /// Suggestions may include embedded resources.
        #[opt("crate::de::lenient_object")]
        pub embedded_context: Option<PromptSuggestionsEmbeddedContextCapabilities>,
    }
}

default_new!(
    PromptSuggestionsCapabilities,
    "Text and resource links only."
);

setters!(PromptSuggestionsCapabilities {
    opt image: PromptSuggestionsImageCapabilities,
    opt audio: PromptSuggestionsAudioCapabilities,
    opt embedded_context: PromptSuggestionsEmbeddedContextCapabilities,
});

marker_capability! {
    /// Marks that prompt suggestions may include images. Sent as `{}`.
    PromptSuggestionsImageCapabilities
}

marker_capability! {
    /// Marks that prompt suggestions may include audio. Sent as `{}`.
    PromptSuggestionsAudioCapabilities
}

marker_capability! {
    /// Marks that prompt suggestions may include embedded resources. Sent as `{}`.
    PromptSuggestionsEmbeddedContextCapabilities
}
