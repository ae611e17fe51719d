//! One request in the connection's protocol version, for client calls whose v1 and v2 forms
//! differ only in their types (the same method name, request builder and response fields).

/// Sends the request `$request`, written once against `v` (bound to `acptk_schema::v1` or
/// `acptk_schema::v2`, whichever the connection speaks), as the method `v::methods::$method`,
/// and reads the response with `|response| read` (the same expression for both versions),
/// or drops it when no reader is given. Evaluates to `Result<_, Error>`.
macro_rules! request_in_version {
    ($client:expr, $method:ident, $request:expr) => {
        request_in_version!($client, $method, $request, |_response| ())
    };
    ($client:expr, $method:ident, $request:expr, |$response:ident| $read:expr) => {{
        let connection = &$client.inner.connection;
        if $client.protocol_version() == acptk_schema::v1::ProtocolVersion::V1 {
            use acptk_schema::v1 as v;
            connection
                .request::<v::methods::$method>(&$request)
                .await
                .map(|$response| $read)
        } else {
            use acptk_schema::v2 as v;
            connection
                .request::<v::methods::$method>(&$request)
                .await
                .map(|$response| $read)
        }
    }};
}

/// Sends the notification `$message`, written once against `v` as in
/// [`request_in_version`], as the method `v::methods::$method`. Evaluates to
/// `Result<(), Error>`. (Only the unstable calls send notifications this way so far.)
#[cfg_attr(not(feature = "unstable_mcp_over_acp"), allow(unused_macros))]
macro_rules! notify_in_version {
    ($client:expr, $method:ident, $message:expr) => {{
        let connection = &$client.inner.connection;
        if $client.protocol_version() == acptk_schema::v1::ProtocolVersion::V1 {
            use acptk_schema::v1 as v;
            connection.notify::<v::methods::$method>(&$message).await
        } else {
            use acptk_schema::v2 as v;
            connection.notify::<v::methods::$method>(&$message).await
        }
    }};
}
