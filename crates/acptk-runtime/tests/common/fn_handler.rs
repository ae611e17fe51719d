//! A connection [`Handler`] made of closures, for tests of the connection layer alone.

use acptk_runtime::Connection;
use acptk_runtime::connection::{BoxFuture, Handler, Reply};
use acptk_schema::jsonrpc::{Id, RawValue};

/// Answers each request with `request(connection, method, params)` and tells each
/// notification's method to `notification`.
pub struct FnHandler<R, N> {
    pub request: R,
    pub notification: N,
}

impl<R, N> Handler for FnHandler<R, N>
where
    R: Fn(Connection, String, Option<Box<RawValue>>) -> BoxFuture<Reply> + Send + Sync + 'static,
    N: Fn(String) + Send + Sync + 'static,
{
    fn request(
        &self,
        connection: Connection,
        _id: Id,
        method: String,
        params: Option<Box<RawValue>>,
    ) -> BoxFuture<Reply> {
        (self.request)(connection, method, params)
    }

    fn notification(
        &self,
        _connection: Connection,
        method: String,
        _params: Option<Box<RawValue>>,
    ) -> BoxFuture<()> {
        (self.notification)(method);
        Box::pin(async {})
    }
}
