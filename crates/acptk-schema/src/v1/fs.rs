//! Client file system access in v1: the agent reads and writes text files through the client
//! (`fs/read_text_file`, `fs/write_text_file`), which sees unsaved editor buffers and can track
//! changes. Only for clients that advertised the matching `fs` capability.

#[allow(unused_imports)]
use super::*;

wire_struct! {
    /// `fs/write_text_file` parameters: the agent writes a whole text file, creating it if
    /// needed.
    pub struct WriteTextFileRequest {
        /// The session on whose behalf the file is written.
        pub session_id: SessionId,
        /// Absolute path of the file.
        pub path: String,
        /// The complete new contents.
        pub content: String,
    }
}

constructor! {
    /// A request writing `content` to `path`.
    WriteTextFileRequest(session_id: impl Into<SessionId>, path: impl Into<String>, content: impl Into<String>)
    { meta: None }
}

wire_struct! {
    /// `fs/read_text_file` parameters: the agent reads a text file, or some lines of it,
    /// including unsaved changes in the client's editor.
    pub struct ReadTextFileRequest {
        /// The session on whose behalf the file is read.
        pub session_id: SessionId,
        /// Absolute path of the file.
        pub path: String,
        /// First line to read (1-based); absent starts at the beginning.
        #[opt]
        pub line: Option<u32>,
        /// Most lines to read; absent reads to the end.
        #[opt]
        pub limit: Option<u32>,
    }
}

constructor! {
    /// A request reading all of `path`.
    ReadTextFileRequest(session_id: impl Into<SessionId>, path: impl Into<String>)
    { line: None, limit: None, meta: None }
}

setters!(ReadTextFileRequest { opt line: u32, opt limit: u32 });

empty_object! {
    /// The client's answer to `fs/write_text_file`: the file was written.
    WriteTextFileResponse, new: "An empty response."
}

wire_struct! {
    /// The client's answer to `fs/read_text_file`.
    pub struct ReadTextFileResponse {
        /// The text that was read.
        pub content: String,
    }
}

constructor! {
    /// A response carrying `content`.
    ReadTextFileResponse(content: impl Into<String>) { meta: None }
}
