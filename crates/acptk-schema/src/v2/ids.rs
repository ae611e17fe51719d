//! String newtypes that exist only in ACP v2.

#[allow(unused_imports)]
use super::*;

string_newtype! {
    /// A MIME type (media type), such as `image/png` or `text/markdown`.
    MediaType
}

string_newtype! {
    /// An absolute file system path, such as `/home/user/project`.
    AbsolutePath
}

string_newtype! {
    /// An opaque pagination cursor returned by `session/list`; pass it back to fetch the next
    /// page. Do not parse or build it.
    SessionListCursor
}
