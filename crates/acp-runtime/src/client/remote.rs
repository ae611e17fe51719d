//! Connecting a client to a remote agent by URL (feature `remote`).

use super::{Client, ClientBuilder};
use crate::error::Error;
use crate::transport::remote::{ClientOptions, connect};

impl ClientBuilder {
    /// Connects to the agent at `url` (`ws://` or `wss://`, see
    /// [`crate::transport::remote`]) and runs `initialize`, as [`Self::connect_transport`].
    ///
    /// Fails with [`Error::Unreachable`] when the server cannot be reached or refuses the
    /// connection (for example 401 without the right token).
    pub async fn connect_url(self, url: &str, options: &ClientOptions) -> Result<Client, Error> {
        let (reader, writer) = connect(url, options).await?;
        self.connect_transport(reader, writer).await
    }
}
