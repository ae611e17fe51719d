//! A real cluster for tests: two `acp agent --listen` processes sharing one session store
//! (PostgreSQL from `scripts/test-postgres.sh`, in a schema of the test's own, or a SQLite
//! file), behind HAProxy running the repository's `deploy/haproxy.cfg`, each on a free
//! loopback port. Everything it starts ends when it is dropped.
//!
//! Without PostgreSQL (`ACP_TEST_POSTGRES_URL`) or HAProxy the tests are skipped with a
//! message, and fail instead when a cluster is required (`ACP_CLUSTER_REQUIRED=1` or
//! `ACP_INTEROP_REQUIRED=1`, as `.ci/run` sets). Include it with
//! `#[path = "support/cluster.rs"] mod cluster;`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long anything the cluster waits for may take.
pub const WAIT: Duration = Duration::from_secs(30);

/// The variable that names the test cluster's database.
pub const POSTGRES_URL: &str = "ACP_TEST_POSTGRES_URL";

/// Whether missing cluster parts fail the test instead of skipping it.
pub fn required() -> bool {
    ["ACP_CLUSTER_REQUIRED", "ACP_INTEROP_REQUIRED"]
        .iter()
        .any(|name| std::env::var(name).is_ok_and(|value| value == "1"))
}

/// Skips (`None`, with a message) or, when required, fails for a missing `what`.
pub fn missing<T>(test: &str, what: &str) -> Option<T> {
    let message = format!(
        "{test}: {what} (install postgresql and haproxy, run `eval \"$(scripts/test-postgres.sh start)\"`)"
    );
    if required() {
        panic!("a cluster is required here, but {message}");
    }
    eprintln!("skipped: {message}");
    None
}

/// The HAProxy binary, if installed.
pub fn haproxy() -> Option<PathBuf> {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/local/sbin")])
        .map(|dir| dir.join("haproxy"))
        .find(|path| path.is_file())
}

/// A free loopback port (bound and released at once).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `GET path` on `address` with HTTP/1.1; the status (0 when nothing answered).
pub fn http_status(address: &str, path: &str) -> u16 {
    let Ok(mut stream) = TcpStream::connect(address) else {
        return 0;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        return 0;
    }
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0)
}

/// Waits until `check` holds (failing the test after [`WAIT`]).
pub fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !check() {
        assert!(Instant::now() < deadline, "waited {WAIT:?} for {what}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// Where the sessions are.
pub enum Store {
    /// A schema of its own in the test cluster's PostgreSQL, dropped at the end.
    Postgres { admin: String, schema: String },
    /// A SQLite file in the scratch directory.
    Sqlite(PathBuf),
}

impl Store {
    /// The `--store` URL of the agents.
    fn url(&self) -> String {
        match self {
            Store::Postgres { admin, schema } => {
                let separator = if admin.contains('?') { '&' } else { '?' };
                format!("{admin}{separator}options=-c%20search_path%3D{schema}")
            }
            Store::Sqlite(path) => format!("sqlite://{}", path.display()),
        }
    }
}

/// Runs `work` against the PostgreSQL of `admin` on a thread and runtime of its own (the
/// caller may be inside a runtime).
fn postgres<T: Send>(
    admin: &str,
    work: impl AsyncFnOnce(&tokio_postgres::Client) -> T + Send,
) -> T {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                runtime.block_on(async {
                    let (client, connection) =
                        tokio_postgres::connect(admin, tokio_postgres::NoTls)
                            .await
                            .unwrap();
                    let driver = tokio::spawn(connection);
                    let result = work(&client).await;
                    drop(client);
                    let _ = driver.await;
                    result
                })
            })
            .join()
            .unwrap()
    })
}

/// One `acp agent --listen` of the cluster.
pub struct Instance {
    /// Its loopback port.
    pub port: u16,
    child: Option<Child>,
    log: PathBuf,
}

impl Instance {
    /// `127.0.0.1:PORT`.
    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Its process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// What it printed on standard error.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// Two agent instances behind HAProxy (see the module documentation).
pub struct Cluster {
    dir: PathBuf,
    store: Store,
    pub instances: Vec<Instance>,
    haproxy: Option<Child>,
    /// The balancer's `127.0.0.1:PORT`.
    pub balancer: String,
    flags: Vec<String>,
}

impl Cluster {
    /// A cluster on PostgreSQL; `None` (skipped) without PostgreSQL or HAProxy. `flags` are
    /// given to every agent (`--lease-seconds`, `--delay-ms`, ...).
    pub fn postgres(test: &str, flags: &[&str]) -> Option<Cluster> {
        let Ok(admin) = std::env::var(POSTGRES_URL).map(|url| url.trim().to_owned()) else {
            return missing(test, &format!("no PostgreSQL ({POSTGRES_URL} is not set)"));
        };
        if admin.is_empty() {
            return missing(test, &format!("no PostgreSQL ({POSTGRES_URL} is empty)"));
        }
        let schema = format!("acp_cluster_{}_{}", std::process::id(), free_port());
        postgres(&admin, async |client| {
            client
                .batch_execute(&format!("CREATE SCHEMA {schema}"))
                .await
                .unwrap();
        });
        Self::start(
            test,
            Store::Postgres { admin, schema },
            flags,
            scratch(test),
        )
    }

    /// A cluster on one SQLite file (both instances on this machine); `None` (skipped)
    /// without HAProxy.
    pub fn sqlite(test: &str, flags: &[&str]) -> Option<Cluster> {
        let dir = scratch(test);
        Self::start(
            test,
            Store::Sqlite(dir.join("sessions.sqlite3")),
            flags,
            dir,
        )
    }

    fn start(test: &str, store: Store, flags: &[&str], dir: PathBuf) -> Option<Cluster> {
        let Some(haproxy) = haproxy() else {
            // Nothing else was started: undo what was made for it.
            if let Store::Postgres { admin, schema } = &store {
                drop_schema(admin, schema);
            }
            let _ = std::fs::remove_dir_all(&dir);
            return missing(test, "HAProxy is not installed (apt-get install haproxy)");
        };
        let mut cluster = Cluster {
            dir,
            store,
            instances: Vec::new(),
            haproxy: None,
            balancer: format!("127.0.0.1:{}", free_port()),
            flags: flags.iter().map(|flag| (*flag).to_owned()).collect(),
        };
        for _ in 0..2 {
            let port = free_port();
            let log = cluster.dir.join(format!("agent-{port}.log"));
            cluster.instances.push(Instance {
                port,
                child: None,
                log,
            });
        }
        for index in 0..cluster.instances.len() {
            cluster.launch(index);
        }
        let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/haproxy.cfg");
        let log = std::fs::File::create(cluster.dir.join("haproxy.log")).unwrap();
        let child = Command::new(haproxy)
            .args(["-db", "-f"])
            .arg(&config)
            .env("ACP_LB_BIND", &cluster.balancer)
            .env("ACP_AGENT_A", cluster.instances[0].address())
            .env("ACP_AGENT_B", cluster.instances[1].address())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        cluster.haproxy = Some(child);
        let balancer = cluster.balancer.clone();
        wait_until("the balancer to answer /health", || {
            http_status(&balancer, "/health") == 200
        });
        Some(cluster)
    }

    /// Starts instance `index` (again) on its port and waits until it is healthy.
    pub fn launch(&mut self, index: usize) {
        let instance = &mut self.instances[index];
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&instance.log)
            .unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_acp"))
            .args(["agent", "--listen", &format!("127.0.0.1:{}", instance.port)])
            .arg("--store")
            .arg(self.store.url())
            .args(["--no-permission", "--verbose"])
            .args(&self.flags)
            .env_remove("ACP_TOKEN")
            .env_remove("ACP_AGENT_DELAY_MS")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        instance.child = Some(child);
        let address = instance.address();
        wait_until(&format!("agent {address} to be healthy"), || {
            http_status(&address, "/health") == 200
        });
    }

    /// The balancer's WebSocket URL.
    pub fn ws_url(&self) -> String {
        format!("ws://{}/acp", self.balancer)
    }

    /// The balancer's Streamable HTTP URL.
    pub fn http_url(&self) -> String {
        format!("http://{}/acp", self.balancer)
    }

    /// Instance `index`'s own WebSocket URL (not through the balancer).
    pub fn direct_url(&self, index: usize) -> String {
        format!("ws://{}/acp", self.instances[index].address())
    }

    /// The `--store` URL the instances use.
    pub fn store_url(&self) -> String {
        self.store.url()
    }

    /// The lease holder of session `id` now (`HOST/PID/RANDOM`), if it is leased.
    pub fn lease_holder(&self, id: &str) -> Option<String> {
        match &self.store {
            Store::Postgres { admin, schema } => postgres(admin, async |client| {
                client
                    .query_opt(
                        &format!(
                            "SELECT lease_holder FROM {schema}.acp_sessions \
                             WHERE id = $1 AND lease_until > now()"
                        ),
                        &[&id],
                    )
                    .await
                    .unwrap()
                    .and_then(|row| row.get::<_, Option<String>>(0))
            }),
            Store::Sqlite(path) => {
                let db = rusqlite::Connection::open_with_flags(
                    path,
                    rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
                )
                .ok()?;
                let _ = db.busy_timeout(Duration::from_secs(5));
                db.query_row(
                    "SELECT lease_holder FROM acp_sessions WHERE id = ?1",
                    [id],
                    |row| row.get::<_, Option<String>>(0),
                )
                .ok()
                .flatten()
            }
        }
    }

    /// The instance whose process holds the lease of session `id` (its turn runs there),
    /// waiting for one (up to [`WAIT`]).
    pub fn running(&self, id: &str) -> usize {
        let mut found = None;
        wait_until(&format!("a lease on session {id}"), || {
            let holder = self.lease_holder(id);
            let pid = holder.and_then(|holder| holder.split('/').nth(1)?.parse::<u32>().ok());
            found = pid.and_then(|pid| {
                self.instances
                    .iter()
                    .position(|instance| instance.pid() == Some(pid))
            });
            found.is_some()
        });
        found.unwrap()
    }

    /// Kills instance `index` with SIGKILL (a crash: no drain, its leases stay).
    pub fn kill(&mut self, index: usize) {
        if let Some(mut child) = self.instances[index].child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Sends SIGTERM to instance `index` (it starts draining) without waiting.
    pub fn signal_term(&self, index: usize) {
        if let Some(pid) = self.instances[index].pid() {
            let _ = Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .status();
        }
    }

    /// Waits for instance `index` to exit; its exit code.
    pub fn wait_exit(&mut self, index: usize) -> Option<i32> {
        let mut child = self.instances[index].child.take()?;
        let deadline = Instant::now() + WAIT;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = child.try_wait() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!(
            "agent {} did not exit within {WAIT:?} of SIGTERM",
            self.instances[index].address()
        );
    }

    /// Sends SIGTERM to instance `index` and waits for it to exit; its exit code.
    pub fn terminate(&mut self, index: usize) -> Option<i32> {
        self.signal_term(index);
        self.wait_exit(index)
    }

    /// What every instance and the balancer printed, for a failing test's message.
    pub fn logs(&self) -> String {
        let mut text = String::new();
        for instance in &self.instances {
            text.push_str(&format!(
                "--- agent {}\n{}",
                instance.address(),
                instance.log()
            ));
        }
        text.push_str(&format!(
            "--- haproxy\n{}",
            std::fs::read_to_string(self.dir.join("haproxy.log")).unwrap_or_default()
        ));
        text
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Some(mut child) = self.haproxy.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        for index in 0..self.instances.len() {
            self.kill(index);
        }
        if let Store::Postgres { admin, schema } = &self.store {
            drop_schema(admin, schema);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn drop_schema(admin: &str, schema: &str) {
    postgres(admin, async |client| {
        let _ = client
            .batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"))
            .await;
    });
}

/// A fresh scratch directory for test `test` under the target directory.
fn scratch(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "cluster-{test}-{}-{}",
        std::process::id(),
        free_port()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
