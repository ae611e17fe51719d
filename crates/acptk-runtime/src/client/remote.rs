//! Connecting a client to a remote agent by URL (feature `remote`).

use super::{Client, ClientBuilder};
use crate::error::Error;
use crate::transport::remote::{ClientOptions, connect};

impl ClientBuilder {
    /// Connects to the agent at `url` (`ws://`, `wss://`, `http://` or `https://`, see
    /// [`crate::transport::remote`]) and runs `initialize`, as [`Self::connect_transport`].
    ///
    /// Fails with [`Error::Remote`] when the server cannot be reached or refuses the
    /// connection (for example 401 without the right token), with its HTTP status when it
    /// answered.
    pub async fn connect_url(self, url: &str, options: &ClientOptions) -> Result<Client, Error> {
        let (reader, writer) = connect(url, options).await?;
        let refusal = reader.refusal();
        match self.connect_transport(reader, writer).await {
            Ok(client) => Ok(client),
            // Over Streamable HTTP a refused `initialize` ends the transport: report why.
            Err(error) => Err(crate::lock::lock(&refusal)
                .take()
                .map_or(error, Error::from)),
        }
    }
}
