//! A harness for the proxy core: a scripted client and a scripted agent on in-memory pipes.

use std::sync::{Arc, Mutex};

use acptk_check::proxy::{self, Hooks, ProxyOptions, ProxyReport};
use acptk_check::{Finding, Rule};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream, duplex};
use tokio::task::JoinHandle;

pub mod model;

/// A writer into shared memory (the record).
#[derive(Clone, Default)]
pub struct Memory(pub Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Memory {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What one run of the proxy did.
#[allow(dead_code)]
pub struct Run {
    /// Bytes the client read from the proxy.
    pub client_received: Vec<u8>,
    /// Bytes the agent read from the proxy.
    pub agent_received: Vec<u8>,
    /// Findings and repairs, in order.
    pub findings: Vec<Finding>,
    /// The record.
    pub record: Vec<u8>,
}

impl Run {
    #[allow(dead_code)]
    pub fn summary_repairs(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.rule == Rule::Repair)
            .count()
    }
}

/// The proxy running between in-memory pipes, collecting its findings and its record.
#[allow(dead_code)]
pub struct Proxy {
    /// The proxy's task.
    pub task: JoinHandle<std::io::Result<ProxyReport>>,
    /// Its findings and repairs, in order.
    pub findings: Arc<Mutex<Vec<Finding>>>,
    /// Its record.
    pub record: Memory,
}

#[allow(dead_code)]
impl Proxy {
    /// Waits for the agent, then the proxy, then the client to end (in that order), and
    /// gathers what the run did; the record must have been written without an error.
    async fn finish(
        self,
        agent: JoinHandle<Vec<u8>>,
        client: JoinHandle<Vec<u8>>,
    ) -> (ProxyReport, Run) {
        let agent_received = agent.await.unwrap();
        let report = self.task.await.unwrap().unwrap();
        let client_received = client.await.unwrap();
        assert!(report.record_error.is_none());
        let findings = self.findings.lock().unwrap().clone();
        let record = self.record.0.lock().unwrap().clone();
        let run = Run {
            client_received,
            agent_received,
            findings,
            record,
        };
        (report, run)
    }
}

/// The client's and the agent's ends of the pipes to a running proxy.
#[allow(dead_code)]
pub struct Pipes {
    /// Into the proxy's client input.
    pub client_writer: DuplexStream,
    /// From the proxy's client output.
    pub client_reader: DuplexStream,
    /// From the proxy's agent input.
    pub agent_reader: DuplexStream,
    /// Into the proxy's agent output.
    pub agent_writer: DuplexStream,
    /// The proxy between them.
    pub proxy: Proxy,
}

/// Starts the proxy with `options` between pipes of `capacity` bytes.
#[allow(dead_code)]
pub fn start(capacity: usize, options: ProxyOptions) -> Pipes {
    let (client_writer, client_in) = duplex(capacity);
    let (client_out, client_reader) = duplex(capacity);
    let (agent_in, agent_reader) = duplex(capacity);
    let (agent_writer, agent_out) = duplex(capacity);
    let findings = Arc::new(Mutex::new(Vec::new()));
    let sink = findings.clone();
    let record = Memory::default();
    let hooks = Hooks::new(move |f| sink.lock().unwrap().push(f.clone())).record(record.clone());
    let task = tokio::spawn(proxy::run(
        client_in, client_out, agent_in, agent_out, options, hooks,
    ));
    Pipes {
        client_writer,
        client_reader,
        agent_reader,
        agent_writer,
        proxy: Proxy {
            task,
            findings,
            record,
        },
    }
}

/// Runs the proxy: the client sends `client` lines (then ends its input); the agent answers
/// the k-th line it receives with the lines of `agent[k]`, and ends when its input ends.
#[allow(dead_code)]
pub async fn run(client: &[String], agent: &[Vec<String>], options: ProxyOptions) -> Run {
    let client: Vec<Vec<u8>> = client
        .iter()
        .map(|l| format!("{l}\n").into_bytes())
        .collect();
    run_with(&client, agent, options, true).await
}

/// Like [`run`] with raw client bytes, and an agent that writes nothing.
#[allow(dead_code)]
pub async fn run_raw(client: &[Vec<u8>], agent: &[Vec<String>]) -> Run {
    run_with(client, agent, ProxyOptions::new(), false).await
}

#[allow(dead_code)]
async fn run_with(
    client: &[Vec<u8>],
    agent: &[Vec<String>],
    options: ProxyOptions,
    by_line: bool,
) -> Run {
    let Pipes {
        mut client_writer,
        client_reader,
        agent_reader,
        agent_writer,
        proxy,
    } = start(64 * 1024, options);

    let script = agent.to_vec();
    let mut k = 0;
    let agent_task = serve(agent_reader, agent_writer, move |_| {
        let lines = match script.get(k) {
            Some(lines) if by_line => lines.clone(),
            _ => Vec::new(),
        };
        k += 1;
        lines
    });
    let client_data = client.to_vec();
    // The client sends a request, then waits for its response before it sends the next line,
    // as a real client does for `initialize`, `session/new` and `session/load`.
    let client_task = tokio::spawn(async move {
        let mut reader = BufReader::new(client_reader);
        let mut received = Vec::new();
        for line in client_data {
            client_writer.write_all(&line).await.unwrap();
            let request_id = serde_json::from_slice::<serde_json::Value>(&line)
                .ok()
                .filter(|v| by_line && v.get("method").is_some())
                .and_then(|v| v.get("id").cloned());
            let Some(id) = request_id else { continue };
            loop {
                let mut answer = Vec::new();
                if reader.read_until(b'\n', &mut answer).await.unwrap() == 0 {
                    break;
                }
                received.extend_from_slice(&answer);
                let value: serde_json::Value = serde_json::from_slice(&answer).unwrap_or_default();
                if value.get("method").is_none() && value.get("id") == Some(&id) {
                    break;
                }
            }
        }
        // End of the client's input; read what is left.
        drop(client_writer);
        reader.read_to_end(&mut received).await.unwrap();
        received
    });
    let (report, run) = proxy.finish(agent_task, client_task).await;
    assert_eq!(report.summary.total(), run.findings.len() as u64);
    run
}

/// Runs the proxy with two independent streams: the client writes `client` and ends its
/// input; the agent writes `agent` and ends its output, reading its input all along.
#[allow(dead_code)]
pub async fn run_streams(client: Vec<u8>, agent: Vec<u8>, options: ProxyOptions) -> Run {
    let Pipes {
        mut client_writer,
        mut client_reader,
        mut agent_reader,
        mut agent_writer,
        proxy,
    } = start(8 * 1024, options);
    let client_task = tokio::spawn(async move {
        client_writer.write_all(&client).await.unwrap();
    });
    // Like a real agent, it ends its output only once its input has ended.
    let agent_task = tokio::spawn(async move {
        let mut received = Vec::new();
        let (written, read) = tokio::join!(
            agent_writer.write_all(&agent),
            agent_reader.read_to_end(&mut received)
        );
        written.unwrap();
        read.unwrap();
        drop(agent_writer);
        received
    });
    let client_reads = tokio::spawn(async move {
        let mut received = Vec::new();
        client_reader.read_to_end(&mut received).await.unwrap();
        received
    });
    client_task.await.unwrap();
    proxy.finish(agent_task, client_reads).await.1
}

/// Runs the proxy with a pipelining client: it writes each batch of `client` lines at once,
/// then waits for the responses to every request of the batch before the next batch. The
/// agent serves one line at a time, in order: for a request it writes `answers[id]` (its
/// updates and its response, in order), then reads the next line.
#[allow(dead_code)]
pub async fn run_pipelined(
    client: &[Vec<String>],
    answers: &std::collections::HashMap<String, Vec<String>>,
    options: ProxyOptions,
) -> Run {
    let Pipes {
        mut client_writer,
        client_reader,
        agent_reader,
        agent_writer,
        proxy,
    } = start(256 * 1024, options);
    let answers = answers.clone();
    let agent_task = serve(agent_reader, agent_writer, move |line| {
        request_id(line)
            .and_then(|id| answers.get(&id).cloned())
            .unwrap_or_default()
    });
    let batches = client.to_vec();
    let client_task = tokio::spawn(async move {
        let mut reader = BufReader::new(client_reader);
        let mut received = Vec::new();
        for batch in batches {
            let mut waiting: Vec<String> = batch
                .iter()
                .filter_map(|l| request_id(l.as_bytes()))
                .collect();
            let bytes: String = batch.iter().map(|l| format!("{l}\n")).collect();
            client_writer.write_all(bytes.as_bytes()).await.unwrap();
            while !waiting.is_empty() {
                let mut answer = Vec::new();
                if reader.read_until(b'\n', &mut answer).await.unwrap() == 0 {
                    break;
                }
                received.extend_from_slice(&answer);
                if let Some(id) = response_id(&answer) {
                    waiting.retain(|w| *w != id);
                }
            }
        }
        drop(client_writer);
        reader.read_to_end(&mut received).await.unwrap();
        received
    });
    proxy.finish(agent_task, client_task).await.1
}

/// An agent that reads its input a line at a time to its end, and after each line writes the
/// lines `answer` gives for it; it ends with what it read.
#[allow(dead_code)]
fn serve(
    reader: DuplexStream,
    mut writer: DuplexStream,
    mut answer: impl FnMut(&[u8]) -> Vec<String> + Send + 'static,
) -> JoinHandle<Vec<u8>> {
    tokio::spawn(async move {
        let mut reader = BufReader::new(reader);
        let mut received = Vec::new();
        let mut line = Vec::new();
        loop {
            line.clear();
            if reader.read_until(b'\n', &mut line).await.unwrap() == 0 {
                break;
            }
            received.extend_from_slice(&line);
            for answer in answer(&line) {
                writer
                    .write_all(format!("{answer}\n").as_bytes())
                    .await
                    .unwrap();
            }
            writer.flush().await.unwrap();
        }
        drop(writer);
        received
    })
}

/// The id of a request line, as text.
fn request_id(line: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(line).ok()?;
    value.get("method")?;
    Some(value.get("id")?.to_string())
}

/// The id of a response line, as text.
fn response_id(line: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(line).ok()?;
    if value.get("method").is_some() {
        return None;
    }
    Some(value.get("id")?.to_string())
}
