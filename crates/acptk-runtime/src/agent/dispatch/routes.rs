//! The method tables of both versions, routed by one piece of code: the v1 and v2 request
//! and notification types differ only by version for every method both have, so
//! [`router!`] writes both routers from one list of arms (authentication and logout under
//! each version's names: v1 `authenticate`, `logout`; v2 `auth/login`, `auth/logout`), and
//! each version adds only the methods of its own (v1 `session/load`, `session/set_mode`; v2
//! `session/resume` with a replay, `tool_call/cancel`, `terminal/cancel`).

use acptk_schema::jsonrpc::RawValue;
use acptk_schema::method::Extension;
use acptk_schema::v1::ProtocolVersion;
use acptk_schema::{v1, v2};

use super::{Arrival, Initialized, Inner, decode_error, draft_methods, manage, open, turn};
use crate::agent::features::AgentMethod;
use crate::agent::open_sessions::Cancellable;
use crate::agent::{Agent, ListRequest};
use crate::connection::{Connection, Reply};
use crate::log::Level;
use crate::rpc;
use crate::store::ConfigValue;

/// Writes, for one version: `$route` (decodes a request, refuses a method the offer does not
/// answer with `-32601`, and routes it: the shared arms here, with the version's own names
/// for authentication and logout and their responses, `$own` arms of the version after
/// them, the unstable methods last) and `$notified` (decodes a notification: the id of
/// a cancelled session, an extension, or nothing).
macro_rules! router {
    (
        $route:ident, $notified:ident, $version:ident, $number:expr,
        $of:ident, $from:ident, $prompt:ident, $unstable:ident, $unstable_notification:ident,
        $authenticate:ident => $authenticated:path, $logout:ident => $logged_out:path,
        |$this:ident, $init:ident| { $($own:tt)* }
    ) => {
        impl<A: Agent> Inner<A> {
            pub(super) async fn $route(
                &self,
                init: Initialized,
                method: &str,
                params: Option<Box<RawValue>>,
                arrival: Option<Arrival>,
            ) -> Reply {
                use $version::ClientRequest as R;
                let request = match R::decode(method, params.as_deref()) {
                    Ok(request) => request,
                    Err(error) => return Reply::error(decode_error(error)),
                };
                if let Some(gated) = AgentMethod::$of(&request) {
                    if !init.offer.answers(gated, $number) {
                        return Reply::error(rpc::method_not_found(method));
                    }
                }
                let $this = self;
                let $init = &init;
                match request {
                    R::SessionNew(request) => {
                        open::new_session(self, &init, open::SetupRequest::fields(request)).await
                    }
                    R::SessionList(request) => {
                        #[cfg(feature = "unstable_session_archive")]
                        let archived = match draft_methods::archive_filter(
                            request.archived.as_ref().map(|filter| filter.as_str()),
                        ) {
                            Ok(filter) => filter,
                            Err(reply) => return reply,
                        };
                        let list = ListRequest {
                            cwd: request.cwd.map(|cwd| cwd.as_str().to_owned()),
                            cursor: request.cursor.map(|cursor| cursor.as_str().to_owned()),
                            #[cfg(feature = "unstable_session_archive")]
                            archived,
                            principal: self.owned.principal().clone(),
                        };
                        manage::list(self, &init, list).await
                    }
                    R::SessionClose(request) => {
                        manage::close(self, request.session_id.as_str()).await;
                        Reply::ok(&$version::CloseSessionResponse::new())
                    }
                    R::SessionDelete(request) => {
                        let id = request.session_id.as_str();
                        manage::delete(self, id, $version::DeleteSessionResponse::new).await
                    }
                    R::SessionSetConfigOption(request) => {
                        let value = ConfigValue::$from(&request.value);
                        let (id, option) = (request.session_id.as_str(), request.config_id.as_str());
                        manage::set_config_option(self, id, option, value).await
                    }
                    R::SessionPrompt(request) => turn::$prompt(self, request, arrival).await,
                    R::$authenticate(request) => {
                        let method = request.method_id.as_str();
                        manage::authenticate(self, &init, method, $authenticated).await
                    }
                    R::$logout(_) => manage::logout(self, &init, $logged_out).await,
                    R::Extension(extension) => Reply::new(
                        self.agent
                            .extension_request(init.client.clone(), extension)
                            .await,
                    ),
                    $($own)*
                    other => draft_methods::$unstable(self, &init, other).await,
                }
            }

            /// A notification of this version: `Ok(id)` for `session/cancel` of session
            /// `id`, `Err(Some(..))` for an extension, `Err(None)` for anything else (an
            /// unstable notification, handed to the agent here; or one that does not decode,
            /// logged).
            pub(super) async fn $notified(
                &self,
                init: &Initialized,
                connection: &Connection,
                method: &str,
                params: Option<Box<RawValue>>,
            ) -> Result<String, Option<Extension>> {
                use $version::ClientNotification as N;
                match N::decode(method, params.as_deref()) {
                    Ok(N::SessionCancel(cancel)) => Ok(cancel.session_id.as_str().to_owned()),
                    Ok(N::Extension(extension)) => Err(Some(extension)),
                    Ok(other) => {
                        draft_methods::$unstable_notification(&self.agent, &init.client, other).await;
                        Err(None)
                    }
                    Err(error) => {
                        connection
                            .logger()
                            .log(Level::Warn, format!("ignored a notification: {error}"));
                        Err(None)
                    }
                }
            }
        }
    };
}

router!(
    route_v1, notified_v1, v1, ProtocolVersion::V1,
    of_v1, from_v1, prompt_v1, v1_request, v1_notification,
    Authenticate => v1::AuthenticateResponse::new, Logout => v1::LogoutResponse::new,
    |this, init| {
        R::SessionLoad(request) => open::load_v1(this, init, request).await,
        R::SessionResume(request) => {
            open::resume(this, init, open::SetupRequest::fields(request), None).await
        }
        R::SessionSetMode(request) => {
            let (id, mode) = (request.session_id.as_str(), request.mode_id.as_str());
            manage::set_mode(this, id, mode).await
        }
    }
);

router!(
    route_v2, notified_v2, v2, ProtocolVersion::V2,
    of_v2, from_v2, prompt_v2, v2_request, v2_notification,
    AuthLogin => v2::LoginAuthResponse::new, AuthLogout => v2::LogoutAuthResponse::new,
    |this, init| {
        R::SessionResume(request) => {
            let replay = match &request.replay_from {
                None => false,
                Some(v2::ReplayFrom::Start(_)) => true,
                Some(other) => {
                    return Reply::error(rpc::invalid_params(format!(
                        "replayFrom `{}` is not supported; use `start`",
                        other.tag()
                    )));
                }
            };
            let fields = open::SetupRequest::fields(request);
            open::resume(this, init, fields, Some(replay)).await
        }
        R::ToolCallCancel(request) => {
            let item = Cancellable::ToolCall(request.tool_call_id.to_string());
            let id = request.session_id.as_str();
            manage::cancel_item(this, id, item, v2::CancelToolCallResponse::new).await
        }
        R::TerminalCancel(request) => {
            let item = Cancellable::Terminal(request.terminal_id.to_string());
            let id = request.session_id.as_str();
            manage::cancel_item(this, id, item, v2::CancelTerminalResponse::new).await
        }
    }
);
