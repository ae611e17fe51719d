//! The one gate between the agent and the client's optional features.
//!
//! Every feature the agent may use only when the client advertised it is a [`ClientFeature`],
//! and [`ConnectedClient::supports`] is the single table that says, for both versions, which
//! capability enables it. Notices, file reads and writes, terminals and elicitations all pass
//! through [`ConnectedClient::require`] before anything is sent; a feature the client did not
//! advertise fails with [`Error::NotAdvertised`] and nothing goes on the wire.

mod draft_calls;

use std::sync::Arc;

use acptk_schema::method::RequestMethod;
use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};

use crate::client_feature::ClientFeature;
use crate::connection::Connection;
use crate::error::Error;
use crate::version::ByVersion;

/// The client on the other end of an agent connection, as learnt from `initialize`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ConnectedClient {
    /// The negotiated protocol version.
    pub protocol_version: ProtocolVersion,
    /// The client's capabilities, in the types of the version its `initialize` was written in.
    pub capabilities: ByVersion<v1::ClientCapabilities, v2::ClientCapabilities>,
    /// The client's name and version, if it said.
    pub name: Option<String>,
    /// Who the connection acts for (see [`Principal`](super::Principal)): the owner of the
    /// sessions it creates.
    pub principal: crate::principal::Principal,
}

/// Whether client capabilities of either version take elicitation forms and URLs.
macro_rules! elicitation {
    ($capabilities:expr) => {
        $capabilities
            .elicitation
            .as_ref()
            .map_or((false, false), |elicitation| {
                (elicitation.form.is_some(), elicitation.url.is_some())
            })
    };
}

impl ConnectedClient {
    /// Whether the client may be sent `feature`: the one table for both versions.
    pub fn supports(&self, feature: ClientFeature) -> bool {
        // The elicitation capabilities are spelled alike in both versions.
        let (form, url) = match &self.capabilities {
            ByVersion::V1(capabilities) => elicitation!(capabilities),
            ByVersion::V2(capabilities) => elicitation!(capabilities),
        };
        match (&self.capabilities, feature) {
            (_, ClientFeature::ElicitationForm) => form,
            (_, ClientFeature::ElicitationUrl) => url,
            (ByVersion::V1(capabilities), ClientFeature::Notices) => {
                capabilities.advertises_notices()
            }
            (ByVersion::V1(capabilities), ClientFeature::ReadTextFile) => {
                capabilities.fs.read_text_file
            }
            (ByVersion::V1(capabilities), ClientFeature::WriteTextFile) => {
                capabilities.fs.write_text_file
            }
            (ByVersion::V1(capabilities), ClientFeature::Terminal) => capabilities.terminal,
            (ByVersion::V2(_), ClientFeature::Notices) => true,
            (
                ByVersion::V2(_),
                ClientFeature::ReadTextFile
                | ClientFeature::WriteTextFile
                | ClientFeature::Terminal,
            ) => false,
        }
    }

    /// `Ok` when the client supports `feature`, else [`Error::NotAdvertised`].
    pub fn require(&self, feature: ClientFeature) -> Result<(), Error> {
        if self.supports(feature) {
            Ok(())
        } else {
            Err(Error::NotAdvertised {
                feature,
                version: self.protocol_version,
            })
        }
    }

    /// Whether the client may receive `notice` session updates: always in v2, and in v1 when
    /// it advertised `clientCapabilities.session.notices`.
    pub fn accepts_notices(&self) -> bool {
        self.supports(ClientFeature::Notices)
    }
}

/// The client of one agent connection: what it advertised, and typed calls to it that involve
/// no session (see [`Session`](super::Session) for the ones that do). Cheap to clone.
#[derive(Debug, Clone)]
pub struct ClientConnection {
    pub(crate) client: Arc<ConnectedClient>,
    pub(crate) connection: Connection,
    /// What the unstable calls to the client need to know (cargo features `unstable_*`;
    /// empty without them).
    #[allow(dead_code)]
    pub(crate) unstable: draft_calls::Gates,
}

impl ClientConnection {
    pub(crate) fn new(client: Arc<ConnectedClient>, connection: Connection) -> Self {
        Self {
            client,
            connection,
            unstable: draft_calls::Gates::default(),
        }
    }

    /// What the client advertised.
    pub fn info(&self) -> &ConnectedClient {
        &self.client
    }

    /// The protocol version of the connection.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.client.protocol_version
    }

    /// The connection, for requests of your own.
    pub fn connection(&self) -> &Connection {
        &self.connection
    }

    /// Sends request `M` once `feature` (when given) passed the gate.
    pub(crate) async fn call<M: RequestMethod>(
        &self,
        feature: Option<ClientFeature>,
        params: &M::Params,
    ) -> Result<M::Result, Error> {
        if let Some(feature) = feature {
            self.client.require(feature)?;
        }
        self.connection.request::<M>(params).await
    }

    /// Asks the user for input through the client (`elicitation/create`), with a request of
    /// the connection's version ([`v1::CreateElicitationRequest`] or
    /// [`v2::CreateElicitationRequest`]). Fails with [`Error::NotAdvertised`], sending
    /// nothing, when the client did not advertise the elicitation mode the request uses, and
    /// with [`Error::WrongVersion`] when the request is of the other version.
    pub async fn elicit<R: Elicitation>(&self, request: &R) -> Result<R::Response, Error> {
        self.check_elicitation(request)?;
        request.send(self).await
    }

    /// The gate of [`Self::elicit`]: the version and the advertised mode.
    pub(crate) fn check_elicitation<R: Elicitation>(&self, request: &R) -> Result<(), Error> {
        if R::VERSION != self.protocol_version() {
            return Err(Error::WrongVersion {
                expected: R::VERSION,
                actual: self.protocol_version(),
            });
        }
        self.client.require(request.feature()?)
    }
}

/// An `elicitation/create` request of one protocol version.
pub trait Elicitation: Send + Sync + sealed::Sealed {
    /// The version the request belongs to.
    const VERSION: ProtocolVersion;
    /// The client's answer.
    type Response;
    /// The client feature the request's mode needs.
    fn feature(&self) -> Result<ClientFeature, Error>;
    /// Sends the request (the gate has been passed).
    fn send(
        &self,
        client: &ClientConnection,
    ) -> impl std::future::Future<Output = Result<Self::Response, Error>> + Send;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for acptk_schema::v1::CreateElicitationRequest {}
    impl Sealed for acptk_schema::v2::CreateElicitationRequest {}
}

/// The [`Elicitation`] impl of one version (the types differ only by version).
macro_rules! elicitation {
    ($version:ident, $number:expr) => {
        impl Elicitation for $version::CreateElicitationRequest {
            const VERSION: ProtocolVersion = $number;
            type Response = $version::CreateElicitationResponse;

            fn feature(&self) -> Result<ClientFeature, Error> {
                match &self.mode {
                    $version::ElicitationMode::Form(_) => Ok(ClientFeature::ElicitationForm),
                    $version::ElicitationMode::Url(_) => Ok(ClientFeature::ElicitationUrl),
                    other => Err(Error::Protocol(format!(
                        "unknown elicitation mode `{}`: nothing was sent",
                        other.tag()
                    ))),
                }
            }

            async fn send(&self, client: &ClientConnection) -> Result<Self::Response, Error> {
                client
                    .call::<$version::methods::ElicitationCreate>(None, self)
                    .await
            }
        }
    };
}

elicitation!(v1, ProtocolVersion::V1);
elicitation!(v2, ProtocolVersion::V2);
