//! Agent skills in ACP v2 (cargo feature `unstable_agent_skills`): skills an agent lists beside
//! its slash commands, the `skill` content block with which a user invokes one, and the
//! capabilities both sides advertise for them.
//!
//! The flow: a client that can show skills advertises `session.commands.skill`; the agent then
//! may list [`Skill`] entries in its available commands (and must advertise
//! `session.prompt.skill`); the user picks one, and the client sends a prompt whose content
//! holds a [`SkillReference`] naming it.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    /// A skill the user can invoke: an entry of the command list tagged `"type": "skill"`.
    ///
    /// Unlike a slash command it is not typed as `/name`: the client invokes it with a `skill`
    /// content block naming it.
    ///
    /// ```json
    /// {"type": "skill", "name": "pdf-processing", "description": "Fill in and merge PDF files"}
    /// ```
    pub struct Skill {
        /// The name a `skill` content block refers to. It has no whitespace and is unique in
        /// the command list, commands included.
        pub name: String,
        /// What the skill does, shown to the user.
        pub description: String,
        /// The absolute path, on the agent's machine, of the file that defines the skill
        /// (usually its `SKILL.md`). Absent for a skill with no such file (built into the agent
        /// or served by an MCP server). A malformed value is treated as absent.
        #[opt("crate::de::lenient_string")]
        pub path: Option<AbsolutePath>,
    }
}

constructor! {
    /// A skill `name` described by `description`, with no defining file.
    Skill(name: impl Into<String>, description: impl Into<String>) { path: None, meta: None }
}

setters!(Skill { opt path: AbsolutePath });

from_variants!(AvailableCommand { Skill(Skill) });

wire_struct! {
    /// A prompt content block that invokes a skill: `{"type": "skill", "name": "..."}`.
    ///
    /// `name` is the name of a [`Skill`] entry of the session's current command list; an agent
    /// that cannot resolve it rejects the prompt as invalid params. How many of these a prompt
    /// may hold, and where, depends on the agent's [`PromptSkillCapabilities`].
    pub struct SkillReference {
        /// The name of the skill to invoke.
        pub name: String,
    }
}

constructor! {
    /// A reference to the skill `name`.
    SkillReference(name: impl Into<String>) { meta: None }
}

from_variants!(ContentBlock { Skill(SkillReference) });

wire_struct! {
    /// Agent capability (`session.prompt.skill`): prompts may hold `skill` content blocks.
    ///
    /// `{}` allows one skill block, as the first block of a prompt; `inline` allows any number
    /// anywhere. An agent that lists skills in its command list must advertise it.
    #[derive(Default)]
    pub struct PromptSkillCapabilities {
        /// Present when skill blocks may appear any number of times, at any position. A
        /// malformed value is treated as absent (the first level stays).
        #[opt("crate::de::lenient_object")]
        pub inline: Option<PromptSkillInlineCapabilities>,
    }
}

default_new!(
    PromptSkillCapabilities,
    "One leading skill block per prompt."
);

setters!(PromptSkillCapabilities { opt inline: PromptSkillInlineCapabilities });

marker_capability! {
    /// Marks that skill blocks may appear anywhere in a prompt, any number of times. Sent as
    /// `{}`.
    PromptSkillInlineCapabilities
}

wire_struct! {
    /// The command entry kinds, beyond slash commands, that a client can show
    /// (`clientCapabilities.session.commands`). Only a group: `{}` advertises nothing.
    #[derive(Default)]
    pub struct CommandsCapabilities {
        /// Present when the agent may list [`Skill`] entries. A malformed value is treated as
        /// absent.
        #[opt("crate::de::lenient_object")]
        pub skill: Option<CommandsSkillCapabilities>,
    }
}

default_new!(CommandsCapabilities, "No extra entry kinds.");

setters!(CommandsCapabilities { opt skill: CommandsSkillCapabilities });

marker_capability! {
    /// Marks that the client can show `skill` command entries and invoke them with `skill`
    /// content blocks. Sent as `{}`.
    CommandsSkillCapabilities
}
