//! `acp inspect ui` in a real browser (headless Chromium through chromedriver): the timeline
//! shows the frames, a chunk cluster expands, a finding is on its frame, the notice lane shows
//! a fallback notice for a v1 client without the capability, search finds a frame, the diff
//! shows a capability difference, and a live capture appears without reloading. Screenshots of
//! each view go to `target/inspect-web/`. Also: the server's token, `Host` and `Origin` checks.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a failing test may panic

#[path = "support/webdriver.rs"]
mod webdriver;

#[path = "support/scratch.rs"]
mod scratch;
#[path = "support/spawn.rs"]
mod spawn;

use spawn::Spawn;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use scratch::scratch;
use serde_json::json;

const ACP: &str = env!("CARGO_BIN_EXE_acp");

/// Where the screenshots go (kept: test artifacts, not committed).
fn shots() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("inspect-web")
}

/// `acp inspect ui` on `db`; ended when dropped.
struct Inspector {
    child: Child,
    url: String,
}

impl Inspector {
    fn start(db: &Path) -> Self {
        let mut child = Command::new(ACP)
            .args(["inspect", "--db"])
            .arg(db)
            .arg("ui")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(line.starts_with("http://127.0.0.1:"), "{line}");
        Inspector {
            child,
            url: line.trim().to_owned(),
        }
    }

    fn origin(&self) -> &str {
        self.url.split("/?").next().unwrap()
    }

    fn token(&self) -> &str {
        self.url.split("token=").nth(1).unwrap()
    }
}

impl Drop for Inspector {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An agent that answers `initialize` (v1, no notices asked for by the client) and
/// `session/new`, then sends a notice and `$1` message chunks, then a thought chunk for
/// each line the client sends.
const NOTICE_AGENT: &str = r#"read line
printf '%s\n' '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true},"agentInfo":{"name":"noisy","version":"1"}}}'
read line
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}'
printf '%s\n' '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"notice","severity":"warning","title":"Quota low <img src=x onerror=window.pwned=1>"}}}'
i=0
while [ $i -lt "$1" ]; do
  i=$((i+1))
  printf '%s%d%s\n' '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"piece ' "$i" '"}}}}'
done
while read line; do
  printf '%s\n' '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"later"}}}}'
done"#;

/// Runs `acp proxy --capture=DB` with [`NOTICE_AGENT`] sending `chunks` chunks; returns the
/// proxy with its input still open (drop the input to end it) once it forwarded them all.
fn proxy(db: &Path, chunks: usize) -> (Child, std::process::ChildStdin) {
    let mut proxy = Command::new(ACP)
        .arg("proxy")
        .arg(format!("--capture={}", db.display()))
        .args(["--", "sh", "-c", NOTICE_AGENT, "sh", &chunks.to_string()])
        .spawn_piped(Stdio::null())
        .unwrap();
    let mut stdin = proxy.stdin.take().unwrap();
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1,\"clientCapabilities\":{},\"clientInfo\":{\"name\":\"plain-client\",\"version\":\"2\"}}}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/new\",\"params\":{\"cwd\":\"/tmp\",\"mcpServers\":[]}}\n")
        .unwrap();
    let mut out = BufReader::new(proxy.stdout.take().unwrap());
    for _ in 0..3 + chunks {
        let mut line = String::new();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "the proxy ended early"
        );
    }
    (proxy, stdin)
}

fn import(db: &Path, file: &str) {
    let transcripts = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts");
    let status = Command::new(ACP)
        .args(["inspect", "--db"])
        .arg(db)
        .arg("import")
        .arg(transcripts.join(file))
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
}

#[tokio::test(flavor = "current_thread")]
async fn nothing_is_served_without_the_token_or_to_another_host() {
    let scratch = scratch("inspect-web-guard");
    let db = scratch.path().join("captures.db");
    import(&db, "v1-notice-without-capability.ndjson");
    let inspector = Inspector::start(&db);
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let origin = inspector.origin().to_owned();
    let port = origin.rsplit(':').next().unwrap().to_owned();
    let cookie = format!("acptk_inspect_{port}={}", inspector.token());
    let status = |r: reqwest::Response| r.status().as_u16();
    // No token: nothing, not even the assets.
    for path in ["/", "/assets/app.js", "/api/captures", "/api/events"] {
        let r = http.get(format!("{origin}{path}")).send().await.unwrap();
        assert_eq!(status(r), 401, "{path}");
    }
    // A wrong token.
    let r = http
        .get(format!("{origin}/?token=0123"))
        .send()
        .await
        .unwrap();
    assert_eq!(status(r), 401);
    // The printed URL, opened by a browser: a cookie, and a redirect that drops the token
    // from the address.
    let r = http
        .get(&inspector.url)
        .header("sec-fetch-mode", "navigate")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 303);
    let set = r.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(
        set.starts_with(&cookie) && set.contains("HttpOnly") && set.contains("SameSite=Strict"),
        "{set}"
    );
    assert_eq!(r.headers()["location"], "/");
    // With the cookie: the API answers.
    let r = http
        .get(format!("{origin}/api/captures"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let list: serde_json::Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);
    // DNS rebinding: the right cookie, another host name.
    let r = http
        .get(format!("{origin}/api/captures"))
        .header("cookie", &cookie)
        .header("host", format!("attacker.example:{port}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 421);
    // Another site's page: refused by its Origin, and by Sec-Fetch-Site.
    let r = http
        .get(format!("{origin}/api/captures"))
        .header("cookie", &cookie)
        .header("origin", "http://attacker.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);
    let r = http
        .get(format!("{origin}/api/captures"))
        .header("cookie", &cookie)
        .header("sec-fetch-site", "cross-site")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);
    // The page's own origin is fine, and so is localhost.
    let r = http
        .get(format!("{origin}/api/captures"))
        .header("cookie", &cookie)
        .header("origin", &origin)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let r = http
        .get(format!("http://localhost:{port}/api/captures"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    // An address no browser can name is refused: requests are checked against it.
    let refused = Command::new(ACP)
        .args(["inspect", "--db"])
        .arg(&db)
        .args(["ui", "--bind", "0.0.0.0"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("name the address"));
    // Errors name what was missing.
    let r = http
        .get(format!("{origin}/api/captures/99"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 404);
    assert!(r.text().await.unwrap().contains("no capture 99"));
}

/// What a script gets from `acp inspect ui`: the token in an `Authorization: Bearer` header
/// works on every route, the printed URL answers directly (no redirect to a cookie it would
/// not keep), and a missing or wrong token gets 401 with a message naming the header.
#[tokio::test(flavor = "current_thread")]
async fn scripts_send_the_token_in_a_header() {
    let scratch = scratch("inspect-web-bearer");
    let db = scratch.path().join("captures.db");
    import(&db, "v1-notice-without-capability.ndjson");
    let inspector = Inspector::start(&db);
    // As curl: no cookie jar, redirects not followed.
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let origin = inspector.origin().to_owned();
    let port = origin.rsplit(':').next().unwrap().to_owned();
    let bearer = format!("Bearer {}", inspector.token());
    // The header, on the page, its files, the API and the event feed.
    for path in ["/", "/assets/app.js", "/api/captures", "/api/events"] {
        let r = http
            .get(format!("{origin}{path}"))
            .header("authorization", &bearer)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200, "{path}");
        assert!(r.headers().get("set-cookie").is_none(), "{path}");
        assert!(
            r.headers().contains_key("content-security-policy"),
            "{path}"
        );
    }
    let r = http
        .get(format!("{origin}/api/captures/1/frames/1"))
        .header("authorization", format!("bearer  {}", inspector.token()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200, "the scheme in any case");
    let frame: serde_json::Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert!(
        frame["text"].as_str().unwrap().contains("initialize"),
        "{frame}"
    );
    // A wrong token in the header is refused, even beside the right cookie; so is another
    // scheme.
    let cookie = format!("acptk_inspect_{port}={}", inspector.token());
    for authorization in [
        "Bearer 0123".to_owned(),
        format!("Bearer {}x", inspector.token()),
        format!("Basic {}", inspector.token()),
        "Bearer".to_owned(),
    ] {
        let r = http
            .get(format!("{origin}/api/captures"))
            .header("authorization", &authorization)
            .header("cookie", &cookie)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 401, "{authorization}");
        assert_eq!(
            r.headers()["www-authenticate"],
            "Bearer realm=\"acp inspect\""
        );
    }
    // No token: 401, and the message says how to send it.
    let r = http
        .get(format!("{origin}/api/captures"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
    assert!(r.headers().contains_key("www-authenticate"));
    let why = r.text().await.unwrap();
    assert!(why.contains("Authorization: Bearer"), "{why}");
    // The printed URL from a script: the page itself, no redirect, no cookie.
    let r = http.get(&inspector.url).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert!(r.headers().get("set-cookie").is_none());
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("<title>acp inspect</title>")
    );
    let r = http
        .get(format!("{origin}/api/captures?token={}", inspector.token()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let list: serde_json::Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);
    // The same URL loaded by a browser (it asks for HTML) still trades the token for a cookie.
    let r = http
        .get(&inspector.url)
        .header("accept", "text/html,application/xhtml+xml,*/*;q=0.8")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 303);
    assert!(
        r.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .starts_with(&cookie)
    );
    // The header does not open the door to other sites' pages.
    let r = http
        .get(format!("{origin}/api/captures"))
        .header("authorization", &bearer)
        .header("origin", "http://attacker.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);
}

#[tokio::test(flavor = "current_thread")]
async fn every_view_in_a_real_browser() {
    if !webdriver::available() {
        return;
    }
    let scratch = scratch("inspect-web-views");
    let db = scratch.path().join("captures.db");
    // 1: a finding on its frame (an imported v1 trace with a notice the client cannot show).
    import(&db, "v1-notice-without-capability.ndjson");
    // 2: through the proxy: a notice turned into a fallback message, then 40 chunks.
    let (mut done, input) = proxy(&db, 40);
    drop(input);
    done.wait().unwrap();
    let inspector = Inspector::start(&db);
    let browser = webdriver::Browser::start(scratch.path(), 1280, 800).await;
    let shots = shots();
    browser.goto(&inspector.url).await;
    browser.run("window.notReloaded = true;", json!([])).await;
    // The picker: newest first, with peers and counts.
    let first = browser
        .wait_for("the picker", "return document.querySelectorAll('#captures .capture').length === 2 && document.querySelector('#captures .capture').textContent;", 10)
        .await;
    let first = first.as_str().unwrap();
    assert!(
        first.contains("#2") && first.contains("plain-client") && first.contains("noisy"),
        "{first}"
    );
    // The timeline of capture 2 (opened first): the frames, and the 40 chunks in one row.
    let cluster = browser
        .wait_for("the chunk cluster", "const r = document.querySelector('.row[data-count=\"40\"]'); return r && r.textContent;", 10)
        .await;
    assert!(
        cluster.as_str().unwrap().contains("agent_message_chunk"),
        "{cluster}"
    );
    let rows = browser.run("return [...document.querySelectorAll('.row[data-seq]')].map(r => r.dataset.seq + ' ' + r.querySelector('.c-method').textContent);", json!([])).await;
    let rows: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    // 46 frames in 6 rows: both requests, both responses, the notice, the chunks.
    assert_eq!(rows.len(), 6, "{rows:?}");
    assert_eq!(rows[0], "1 initialize");
    assert_eq!(rows[4], "5 notice");
    browser.screenshot(&shots.join("timeline.png")).await;
    // Expanding the cluster shows its frames one by one.
    browser.click(".row[data-count=\"40\"] .cluster").await;
    let members = browser
        .wait_for(
            "the expanded chunks",
            "return document.querySelectorAll('.row.member[data-seq]').length;",
            10,
        )
        .await;
    assert!(members.as_u64().unwrap() >= 10, "{members}");
    browser
        .screenshot(&shots.join("timeline-expanded.png"))
        .await;
    // The notice lane: the notice, not advertised, turned into an agent message.
    browser.click("[data-view=notices]").await;
    let lane = browser
        .wait_for("the notice lane", "const n = document.querySelector('.notice[data-outcome=fallback]'); return n && n.textContent;", 10)
        .await;
    let lane = lane.as_str().unwrap();
    assert!(
        lane.contains("Quota low")
            && lane.contains("warning")
            && lane.contains("advertised notices: no")
            && lane.contains("fallback"),
        "{lane}"
    );
    // The agent's markup is shown as text: no element made of it, no script run.
    assert!(
        lane.contains("<img src=x onerror=window.pwned=1>"),
        "{lane}"
    );
    let safe =
        "return document.querySelectorAll('img').length + ':' + (window.pwned === undefined);";
    assert_eq!(browser.run(safe, json!([])).await, json!("0:true"));
    browser.screenshot(&shots.join("notices.png")).await;
    // The info drawer and latency.
    browser.click("[data-view=info]").await;
    let info = browser.wait_for("the info", "const v = document.querySelector('#view-info'); return v.textContent.includes('Agent capabilities') && v.textContent;", 10).await;
    assert!(info.as_str().unwrap().contains("loadSession"), "{info}");
    browser.screenshot(&shots.join("info.png")).await;
    browser.click("[data-view=latency]").await;
    let latency = browser.wait_for("the latency table", "const t = document.querySelector('#view-latency table tbody'); return t && t.textContent;", 10).await;
    assert!(
        latency.as_str().unwrap().contains("session/new"),
        "{latency}"
    );
    browser.screenshot(&shots.join("latency.png")).await;
    // The diff with capture 1: the client's capabilities differ.
    browser.click("[data-view=diff]").await;
    browser
        .wait_for(
            "the diff picker",
            "return document.querySelector('#diff-with');",
            10,
        )
        .await;
    browser.run("const s = document.querySelector('#diff-with'); s.value = '1'; s.dispatchEvent(new Event('change'));", json!([])).await;
    let changes = browser
        .wait_for("the capability difference", "return [...document.querySelectorAll('#diff-out .change')].map(c => c.textContent).join('\\n');", 10)
        .await;
    assert!(
        changes.as_str().unwrap().contains("client_capabilities."),
        "{changes}"
    );
    browser.screenshot(&shots.join("diff.png")).await;
    // Capture 1: the finding on its frame, in the detail and in the panel.
    browser.click("#captures .capture[data-id=\"1\"]").await;
    browser.click("[data-view=timeline]").await;
    // The keyboard: down twice from the first row selects frame 3 and shows it.
    browser
        .wait_for(
            "capture 1's rows",
            "return document.querySelectorAll('.row[data-seq]').length === 8;",
            10,
        )
        .await;
    browser.run("const t = document.querySelector('#timeline'); t.focus(); for (const k of ['ArrowDown', 'ArrowDown']) t.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true}));", json!([])).await;
    browser.wait_for("frame 3 by the keyboard", "const d = document.querySelector('#detail h2'); return d && d.textContent === 'Frame 3';", 10).await;
    let badge = browser
        .wait_for("the finding's badge", "const b = document.querySelector('.row[data-seq] .badge'); return b && b.closest('.row').dataset.seq + ' ' + b.textContent;", 10)
        .await;
    let badge = badge.as_str().unwrap().to_owned();
    assert!(badge.contains("notice-without-capability"), "{badge}");
    let seq = badge.split(' ').next().unwrap().to_owned();
    browser
        .run(
            "document.querySelector('.row .badge').closest('.row').click();",
            json!([]),
        )
        .await;
    let detail = browser
        .wait_for("the frame detail", "const d = document.querySelector('#detail'); return d.textContent.includes('Findings') && d.textContent;", 10)
        .await;
    let detail = detail.as_str().unwrap();
    assert!(
        detail.contains(&format!("Frame {seq}"))
            && detail.contains("notice-without-capability")
            && detail.contains("\"notice\""),
        "{detail}"
    );
    browser.screenshot(&shots.join("detail.png")).await;
    browser.click("[data-view=findings]").await;
    let panel = browser
        .wait_for(
            "the findings panel",
            "const t = document.querySelector('#view-findings tbody'); return t && t.textContent;",
            10,
        )
        .await;
    assert!(
        panel
            .as_str()
            .unwrap()
            .contains("notice-without-capability")
    );
    browser.screenshot(&shots.join("findings.png")).await;
    // Search across captures; a hit opens its frame.
    browser.run("document.querySelector('#search-input').value = 'piece 17'; document.querySelector('#search-form').requestSubmit();", json!([])).await;
    let hit = browser
        .wait_for(
            "a search hit",
            "const h = document.querySelector('.hit'); return h && h.textContent;",
            10,
        )
        .await;
    assert!(hit.as_str().unwrap().contains("capture 2"), "{hit}");
    assert_eq!(
        browser
            .run(
                "return document.querySelectorAll('.hit').length;",
                json!([])
            )
            .await,
        json!(1)
    );
    browser.screenshot(&shots.join("search.png")).await;
    browser.click(".hit button").await;
    let opened = browser
        .wait_for("the hit's frame", "const d = document.querySelector('#detail h2'); return d && d.textContent === 'Frame 22' && document.querySelector('#detail .raw').textContent;", 10)
        .await;
    assert!(opened.as_str().unwrap().contains("piece 17"), "{opened}");
    // A live capture appears, and grows, without reloading.
    let (mut live, input) = proxy(&db, 5);
    let appeared = browser
        .wait_for("the live capture", "const c = document.querySelector('#captures .capture[data-id=\"3\"]'); return c && c.textContent;", 10)
        .await;
    assert!(appeared.as_str().unwrap().contains("live"), "{appeared}");
    browser.click("#captures .capture[data-id=\"3\"]").await;
    browser
        .wait_for(
            "the live timeline",
            "return document.querySelector('.row[data-count=\"5\"]');",
            10,
        )
        .await;
    // The open timeline grows as the client and the agent go on.
    let mut input = input;
    input
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"session/cancel\",\"params\":{\"sessionId\":\"s1\"}}\n")
        .unwrap();
    input.flush().unwrap();
    let grown = browser
        .wait_for("the live timeline to grow", "const r = document.querySelectorAll('.row[data-seq]'); return r.length === 8 && r[7].textContent;", 10)
        .await;
    assert!(
        grown.as_str().unwrap().contains("agent_thought_chunk"),
        "{grown}"
    );
    browser.screenshot(&shots.join("live.png")).await;
    drop(input);
    live.wait().unwrap();
    assert_eq!(
        browser
            .run("return window.notReloaded === true;", json!([]))
            .await,
        json!(true)
    );
    // Small screens: the picker above, the detail below; still readable.
    browser.quit().await;
    let small = webdriver::Browser::start(&scratch.path().join("small"), 420, 720).await;
    small.goto(&inspector.url).await;
    small
        .wait_for(
            "the small timeline",
            "return document.querySelector('.row[data-seq]');",
            10,
        )
        .await;
    small.screenshot(&shots.join("small.png")).await;
    // Dark mode follows the system's setting.
    small.prefer_dark_and_still().await;
    let background = small
        .run(
            "return getComputedStyle(document.body).backgroundColor;",
            json!([]),
        )
        .await;
    assert_eq!(background, json!("rgb(22, 24, 26)"));
    small.screenshot(&shots.join("small-dark.png")).await;
    small.quit().await;
}
