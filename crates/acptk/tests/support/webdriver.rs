//! A headless Chromium driven through chromedriver's W3C WebDriver API, with plain HTTP calls
//! (reqwest, already in the tree): the few commands the inspector's tests need (open a page,
//! run a script, take a screenshot) do not call for a WebDriver client crate.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Chromium and chromedriver, or why not: a skip locally, a failure with
/// `ACP_INTEROP_REQUIRED=1`.
pub fn available() -> bool {
    if Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists() {
        return true;
    }
    let message = format!(
        "skipped: {CHROMIUM} or {CHROMEDRIVER} is missing (apt-get install chromium chromium-driver)"
    );
    if std::env::var("ACP_INTEROP_REQUIRED").as_deref() == Ok("1") {
        panic!("{message}; ACP_INTEROP_REQUIRED=1 makes this a failure");
    }
    eprintln!("{message}");
    false
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A browser session; chromedriver (and with it Chromium) ends when dropped.
pub struct Browser {
    driver: Child,
    http: reqwest::Client,
    base: String,
    profile: std::path::PathBuf,
}

impl Browser {
    /// Starts chromedriver and a headless Chromium of `width`x`height` with an empty profile
    /// under `scratch`.
    pub async fn start(scratch: &Path, width: u32, height: u32) -> Browser {
        let port = free_port();
        let mut command = Command::new(CHROMEDRIVER);
        // A process group of its own (Chromium's processes join it), ended as a whole when
        // the test ends, even by a panic that skipped `quit`.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let driver = command
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let http = reqwest::Client::new();
        let root = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(10);
        while http.get(format!("{root}/status")).send().await.is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not answer");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let profile = scratch.join("chromium-profile");
        std::fs::create_dir_all(&profile).unwrap();
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--disable-crash-reporter",
            "--disable-breakpad",
            &format!("--window-size={width},{height}"),
            &format!("--user-data-dir={}", profile.display()),
        ];
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": args}
        }}});
        let mut browser = Browser {
            driver,
            http,
            base: root.clone(),
            profile,
        };
        let created = browser.call("POST", "/session", capabilities).await;
        let id = created["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {created}"))
            .to_owned();
        browser.base = format!("{root}/session/{id}");
        browser
    }

    async fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let url = format!("{}{path}", self.base);
        let request = match method {
            "GET" => self.http.get(url),
            "DELETE" => self.http.delete(url),
            _ => self
                .http
                .post(url)
                .header("content-type", "application/json")
                .body(body.to_string()),
        };
        let text = request.send().await.unwrap().text().await.unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        value
    }

    /// Opens `url` and waits for the page to load.
    pub async fn goto(&self, url: &str) {
        let done = self.call("POST", "/url", json!({"url": url})).await;
        assert!(done["value"].is_null(), "navigation failed: {done}");
    }

    /// Runs `script` (a function body; `arguments` are `args`) and returns its value.
    pub async fn run(&self, script: &str, args: Value) -> Value {
        let done = self
            .call(
                "POST",
                "/execute/sync",
                json!({"script": script, "args": args}),
            )
            .await;
        if done["value"]["error"].is_string() {
            panic!("script failed: {}\n{script}", done["value"]);
        }
        done["value"].clone()
    }

    /// Clicks the first element that matches the CSS `selector` (which must exist).
    pub async fn click(&self, selector: &str) {
        let found = self
            .run(
                "const e = document.querySelector(arguments[0]); if (e) e.click(); return !!e;",
                json!([selector]),
            )
            .await;
        assert_eq!(found, json!(true), "nothing to click at {selector}");
    }

    /// Waits up to `seconds` for `script` to return something truthy; returns it.
    pub async fn wait_for(&self, what: &str, script: &str, seconds: u64) -> Value {
        let deadline = Instant::now() + Duration::from_secs(seconds);
        loop {
            let value = self.run(script, json!([])).await;
            let truthy = !(value.is_null()
                || value == json!(false)
                || value == json!(0)
                || value == json!(""));
            if truthy {
                return value;
            }
            if Instant::now() > deadline {
                let shot = self
                    .profile
                    .with_file_name(format!("failed-{}.png", what.replace(' ', "-")));
                self.screenshot(&shot).await;
                panic!(
                    "timed out waiting for {what} (screenshot: {})",
                    shot.display()
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Emulates the user's dark colour scheme and reduced motion preferences (Chromium's
    /// DevTools command through chromedriver).
    pub async fn prefer_dark_and_still(&self) {
        let done = self
            .call(
                "POST",
                "/goog/cdp/execute",
                json!({"cmd": "Emulation.setEmulatedMedia", "params": {"features": [
                    {"name": "prefers-color-scheme", "value": "dark"},
                    {"name": "prefers-reduced-motion", "value": "reduce"}
                ]}}),
            )
            .await;
        assert!(done["value"].is_object(), "emulation failed: {done}");
    }

    /// Saves a PNG of the window to `path`.
    pub async fn screenshot(&self, path: &Path) {
        use base64::Engine;
        let shot = self.call("GET", "/screenshot", Value::Null).await;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(shot["value"].as_str().unwrap_or_default())
            .unwrap();
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(path, bytes).unwrap();
    }

    /// Ends the session (Chromium exits).
    pub async fn quit(&self) {
        let _ = self.call("DELETE", "", Value::Null).await;
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // SIGTERM first: Chromium then shuts down cleanly, its crash handler (in a session of
        // its own) with it; SIGKILL for whatever is left.
        let group = format!("-{}", self.driver.id());
        for signal in ["TERM", "KILL"] {
            let _ = Command::new("kill")
                .args(["-s", signal, "--", &group])
                .stderr(Stdio::null())
                .status();
            if signal == "TERM" {
                std::thread::sleep(Duration::from_millis(500));
            }
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
