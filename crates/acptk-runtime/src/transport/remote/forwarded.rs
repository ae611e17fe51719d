//! The client's address behind a load balancer the operator trusts.
//!
//! Behind a balancer every TCP connection comes from the balancer's address, so counting
//! connections per address would count all clients as one. A balancer can pass the real
//! client's address on in two ways, and the listener takes it from either, **only from a TCP
//! peer named with [`ServerOptions::trusted_proxy`](super::ServerOptions::trusted_proxy)**:
//! from anyone else both are ignored (anyone can write them).
//!
//! * The PROXY protocol, version 1 (HAProxy's `send-proxy`): a text line
//!   `PROXY TCP4 <client> <proxy> <client port> <proxy port>\r\n` before anything else on the
//!   TCP connection (before TLS). A trusted peer may send it or not (a health check may not):
//!   when the connection starts with `PROXY `, the line is read and taken out; a line that
//!   does not parse closes the connection, logged. `PROXY UNKNOWN` keeps the peer's address.
//! * `X-Forwarded-For` (HAProxy's `option forwardfor`): the last address of the last such
//!   header, the one the trusted balancer appended. It is used when the connection carried no
//!   PROXY line (with one, a client's own `X-Forwarded-For` passed through in TCP mode would be
//!   believed otherwise).

use std::fmt;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;
use std::time::Duration;

use axum::http::HeaderMap;
use ipnet::IpNet;
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

/// The longest PROXY protocol version 1 line, CRLF included (from the specification).
const MAX_V1_LINE: usize = 107;
/// How a PROXY protocol version 1 line starts.
const V1_PREFIX: &[u8] = b"PROXY ";

/// A load balancer the listener trusts to tell the client's address: one address
/// (`10.0.0.5`, `::1`) or a network (`10.0.0.0/8`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrustedProxy(IpNet);

impl TrustedProxy {
    /// Whether `address` is this proxy (or in its network).
    #[must_use]
    pub fn contains(&self, address: IpAddr) -> bool {
        self.0.contains(&canonical(address))
    }
}

impl FromStr for TrustedProxy {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        if let Ok(address) = text.parse::<IpAddr>() {
            return Ok(Self(IpNet::from(address)));
        }
        text.parse::<IpNet>()
            .map(|net| Self(net.trunc()))
            .map_err(|_| {
                format!("expected an IP address or a network such as 10.0.0.0/8, got `{text}`")
            })
    }
}

impl fmt::Display for TrustedProxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// An IPv4 address mapped into IPv6 (a dual-stack socket) as the IPv4 address it is.
fn canonical(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(address, IpAddr::V4),
        IpAddr::V4(_) => address,
    }
}

/// Whether `peer` is one of `trusted`.
pub(crate) fn is_trusted(trusted: &[TrustedProxy], peer: IpAddr) -> bool {
    trusted.iter().any(|proxy| proxy.contains(peer))
}

/// The last address of the last `X-Forwarded-For` header, if it is one.
pub(crate) fn forwarded_for(headers: &HeaderMap) -> Option<IpAddr> {
    let last = headers.get_all("x-forwarded-for").iter().next_back()?;
    let hop = last.to_str().ok()?.rsplit(',').next()?.trim();
    // `[::1]` and `1.2.3.4:5678` are seen too.
    let hop = hop
        .strip_prefix('[')
        .map_or(hop, |rest| rest.split(']').next().unwrap_or(rest));
    hop.parse::<IpAddr>()
        .ok()
        .or_else(|| hop.parse::<SocketAddr>().ok().map(|address| address.ip()))
        .map(canonical)
}

/// Reads the PROXY protocol line at the start of `stream`, if it starts with one, within
/// `timeout`: the client's address it names (`None`: no line, or `PROXY UNKNOWN`). Nothing
/// else is read. A line that is not whole within the timeout or does not parse is an error.
pub(crate) async fn read_proxy_line(
    stream: &mut TcpStream,
    timeout: Duration,
) -> io::Result<Option<SocketAddr>> {
    tokio::time::timeout(timeout, async {
        let mut buffer = [0u8; MAX_V1_LINE];
        loop {
            let seen = stream.peek(&mut buffer).await?;
            if seen == 0 {
                return Ok(None);
            }
            let head = &buffer[..seen];
            let shorter = head.len().min(V1_PREFIX.len());
            if head[..shorter] != V1_PREFIX[..shorter] {
                return Ok(None);
            }
            if let Some(end) = head.windows(2).position(|pair| pair == b"\r\n") {
                let mut line = vec![0u8; end + 2];
                stream.read_exact(&mut line).await?;
                return parse_v1(&line[..end]).map_err(io::Error::other);
            }
            if seen == MAX_V1_LINE {
                return Err(io::Error::other(format!(
                    "a PROXY line longer than {MAX_V1_LINE} bytes"
                )));
            }
            // The rest of the line is on its way (it rarely comes apart).
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .map_err(|_| {
        io::Error::new(
            io::ErrorKind::TimedOut,
            "the PROXY line did not arrive in time",
        )
    })?
}

/// The client's address in a PROXY protocol version 1 line (without its CRLF).
fn parse_v1(line: &[u8]) -> Result<Option<SocketAddr>, String> {
    let text =
        std::str::from_utf8(line).map_err(|_| "a PROXY line that is not ASCII text".to_owned())?;
    let fields: Vec<&str> = text.split(' ').collect();
    match fields.as_slice() {
        ["PROXY", "UNKNOWN", ..] => Ok(None),
        [
            "PROXY",
            family @ ("TCP4" | "TCP6"),
            source,
            _destination,
            port,
            _,
        ] => {
            let address: IpAddr = source.parse().map_err(|_| {
                format!("expected a client address in the PROXY line, got `{source}`")
            })?;
            let port: u16 = port
                .parse()
                .map_err(|_| format!("expected a client port in the PROXY line, got `{port}`"))?;
            if address.is_ipv4() != (*family == "TCP4") {
                return Err(format!("a {family} PROXY line with the address {address}"));
            }
            Ok(Some(SocketAddr::new(address, port)))
        }
        _ => Err(format!(
            "expected `PROXY TCP4|TCP6 <client> <proxy> <port> <port>`, got `{text}`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn trusted_proxies_are_addresses_or_networks() {
        let one: TrustedProxy = "10.0.0.5".parse().unwrap();
        let net: TrustedProxy = "10.1.0.0/16".parse().unwrap();
        assert!(one.contains("10.0.0.5".parse().unwrap()));
        assert!(!one.contains("10.0.0.6".parse().unwrap()));
        assert!(net.contains("10.1.200.3".parse().unwrap()));
        assert!(net.contains("::ffff:10.1.0.1".parse().unwrap()));
        assert!(!net.contains("10.2.0.1".parse().unwrap()));
        let error = "localhost".parse::<TrustedProxy>().unwrap_err();
        assert!(error.contains("`localhost`"), "{error}");
    }

    #[test]
    fn the_last_forwarded_address_is_the_balancers() {
        let mut headers = HeaderMap::new();
        assert_eq!(forwarded_for(&headers), None);
        headers.append(
            "x-forwarded-for",
            HeaderValue::from_static("6.6.6.6, 7.7.7.7"),
        );
        headers.append("x-forwarded-for", HeaderValue::from_static("192.0.2.9"));
        assert_eq!(forwarded_for(&headers), Some([192, 0, 2, 9].into()));
        headers.append(
            "x-forwarded-for",
            HeaderValue::from_static("[2001:db8::1]:80"),
        );
        assert_eq!(forwarded_for(&headers), "2001:db8::1".parse().ok());
        headers.append("x-forwarded-for", HeaderValue::from_static("nonsense"));
        assert_eq!(forwarded_for(&headers), None);
    }

    #[test]
    fn proxy_v1_lines_parse() {
        assert_eq!(
            parse_v1(b"PROXY TCP4 192.0.2.1 10.0.0.1 51000 8080"),
            Ok(Some("192.0.2.1:51000".parse().unwrap()))
        );
        assert_eq!(
            parse_v1(b"PROXY TCP6 2001:db8::1 ::1 51000 8080"),
            Ok(Some("[2001:db8::1]:51000".parse().unwrap()))
        );
        assert_eq!(parse_v1(b"PROXY UNKNOWN"), Ok(None));
        assert!(parse_v1(b"PROXY TCP4 2001:db8::1 ::1 1 2").is_err());
        assert!(parse_v1(b"PROXY TCP4 x y 1 2").is_err());
        assert!(parse_v1(b"PROXY TCP4 1.2.3.4").is_err());
    }
}
