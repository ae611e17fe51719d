//! The notice example of the user guide's "Notices" chapter, kept compiling: build a notice,
//! encode it, check the v1 capability.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    use acptk_schema::v1::{
        ClientCapabilities, Notice, NoticeSeverity, SessionNotification, SessionUpdate,
    };

    let notice = Notice::try_new(NoticeSeverity::Warning, "MCP server unavailable")?
        .description("Continuing without it.");
    let params = SessionNotification::new("sess_1", SessionUpdate::Notice(notice));
    assert_eq!(
        serde_json::to_string(&params)?,
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"notice","severity":"warning","title":"MCP server unavailable","description":"Continuing without it."}}"#
    );
    // In v1, send it only if the client advertised `session.notices`:
    let caps: ClientCapabilities = serde_json::from_str(r#"{"session":{"notices":{}}}"#)?;
    assert!(caps.advertises_notices());
    println!("{}", serde_json::to_string_pretty(&params)?);
    Ok(())
}
