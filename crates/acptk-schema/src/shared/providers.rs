//! LLM provider configuration (cargo feature `unstable_llm_providers`): the client lists the
//! model providers an agent can route to (`providers/list`), points one at another endpoint
//! (`providers/set`) or switches one off (`providers/disable`). Same shape in every protocol
//! version.
//!
//! An agent that supports these methods advertises `agentCapabilities.providers` (`{}`).

#[allow(unused_imports)]
use super::*;

use std::collections::BTreeMap;

string_newtype! {
    /// Identifies a configurable LLM provider of the agent, such as `main` or `openai`.
    ProviderId
}

open_enum! {
    /// The API protocol a provider speaks. Open: both sides must cope with values they do not
    /// know; `_`-prefixed values are implementation extensions, other unknown values are
    /// reserved for ACP.
    pub enum LlmProtocol {
        /// The Anthropic API.
        Anthropic = "anthropic",
        /// The OpenAI API.
        OpenAi = "openai",
        /// The Azure OpenAI API.
        Azure = "azure",
        /// The Google Vertex AI API.
        Vertex = "vertex",
        /// The AWS Bedrock API.
        Bedrock = "bedrock",
    }
}

marker_capability! {
    /// Agent capability (`agentCapabilities.providers`): the agent implements
    /// `providers/list`, `providers/set` and `providers/disable`. Sent as `{}`.
    ProvidersCapabilities
}

wire_struct! {
    /// One configurable provider, as listed by `providers/list`.
    pub struct ProviderInfo {
        /// The provider's id, used by `providers/set` and `providers/disable`.
        pub provider_id: ProviderId,
        /// The API protocols the provider can be configured with. Required; a value that is
        /// not a list decodes as empty and protocols that do not decode are dropped.
        #[serde(deserialize_with = "crate::de::lenient_items")]
        pub supported: Vec<LlmProtocol>,
        /// Whether the provider is mandatory: a client must not call `providers/disable` for
        /// it.
        pub required: bool,
        /// Where the provider sends requests now (no secrets); absent or `null` when it is
        /// disabled.
        #[opt]
        pub current: Option<ProviderCurrentConfig>,
    }
}

constructor! {
    /// A provider `provider_id` supporting these protocols, currently disabled.
    ProviderInfo(
        provider_id: impl Into<ProviderId>,
        supported: impl Into<Vec<LlmProtocol>>,
        required: bool,
    ) { current: None, meta: None }
}

setters!(ProviderInfo { opt current: ProviderCurrentConfig });

wire_struct! {
    /// The routing a provider uses now, without secrets: its protocol and base URL.
    pub struct ProviderCurrentConfig {
        /// The protocol in use.
        pub api_type: LlmProtocol,
        /// The base URL requests go to.
        pub base_url: String,
    }
}

constructor! {
    /// Routing over `api_type` to `base_url`.
    ProviderCurrentConfig(api_type: impl Into<LlmProtocol>, base_url: impl Into<String>) {
        meta: None,
    }
}

empty_object! {
    /// `providers/list` parameters: the client asks which providers it can configure.
    ListProvidersRequest, new: "The request (`{}`)."
}

wire_struct! {
    /// The agent's answer to `providers/list`.
    pub struct ListProvidersResponse {
        /// Every configurable provider, with its current routing, for the client to show.
        pub providers: Vec<ProviderInfo>,
    }
}

constructor! {
    /// A response listing `providers`.
    ListProvidersResponse(providers: impl Into<Vec<ProviderInfo>>) { meta: None }
}

wire_struct! {
    /// `providers/set` parameters: replaces the whole configuration of one provider.
    ///
    /// ```json
    /// {"providerId": "main", "apiType": "anthropic", "baseUrl": "https://llm.example.com",
    ///  "headers": {"Authorization": "Bearer ..."}}
    /// ```
    pub struct SetProviderRequest {
        /// The provider to configure.
        pub provider_id: ProviderId,
        /// The protocol to speak.
        pub api_type: LlmProtocol,
        /// The base URL to send requests to.
        pub base_url: String,
        /// Every header to send with the provider's requests (authorization, routing, ...);
        /// absent means none.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        pub headers: BTreeMap<String, String>,
    }
}

constructor! {
    /// Configures `provider_id` to speak `api_type` to `base_url`, with no headers.
    SetProviderRequest(
        provider_id: impl Into<ProviderId>,
        api_type: impl Into<LlmProtocol>,
        base_url: impl Into<String>,
    ) { headers: BTreeMap::new(), meta: None }
}

setters!(SetProviderRequest { set headers: BTreeMap<String, String> });

empty_object! {
    /// The agent's answer to `providers/set`: the new configuration is in effect.
    SetProviderResponse, new: "An empty response."
}

wire_struct! {
    /// `providers/disable` parameters: switches a provider off. Not allowed for a provider
    /// whose [`ProviderInfo::required`] is true.
    pub struct DisableProviderRequest {
        /// The provider to disable.
        pub provider_id: ProviderId,
    }
}

constructor! {
    /// Disables `provider_id`.
    DisableProviderRequest(provider_id: impl Into<ProviderId>) { meta: None }
}

empty_object! {
    /// The agent's answer to `providers/disable`: the provider is off.
    DisableProviderResponse, new: "An empty response."
}
