//! A harness for the proxy core: a scripted client and a scripted agent on in-memory pipes.

use std::sync::{Arc, Mutex};

use acptk_check::proxy::{self, Hooks, ProxyOptions};
use acptk_check::{Finding, Rule};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, duplex};

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
    let (mut client_writer, client_in) = duplex(64 * 1024);
    let (client_out, client_reader) = duplex(64 * 1024);
    let (agent_in, agent_reader) = duplex(64 * 1024);
    let (mut agent_writer, agent_out) = duplex(64 * 1024);

    let findings = Arc::new(Mutex::new(Vec::new()));
    let sink = findings.clone();
    let record = Memory::default();
    let hooks = Hooks::new(move |f| sink.lock().unwrap().push(f.clone())).record(record.clone());
    let proxy = tokio::spawn(proxy::run(
        client_in, client_out, agent_in, agent_out, options, hooks,
    ));

    let script = agent.to_vec();
    let agent_task = tokio::spawn(async move {
        let mut reader = BufReader::new(agent_reader);
        let mut received = Vec::new();
        let mut line = Vec::new();
        let mut k = 0;
        loop {
            line.clear();
            if reader.read_until(b'\n', &mut line).await.unwrap() == 0 {
                break;
            }
            received.extend_from_slice(&line);
            if by_line {
                for answer in script.get(k).into_iter().flatten() {
                    agent_writer
                        .write_all(format!("{answer}\n").as_bytes())
                        .await
                        .unwrap();
                }
            }
            k += 1;
        }
        drop(agent_writer);
        received
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
    let agent_received = agent_task.await.unwrap();
    let report = proxy.await.unwrap().unwrap();
    let client_received = client_task.await.unwrap();
    assert!(report.record_error.is_none());
    let findings = findings.lock().unwrap().clone();
    assert_eq!(report.summary.total(), findings.len() as u64);
    let record = record.0.lock().unwrap().clone();
    Run {
        client_received,
        agent_received,
        findings,
        record,
    }
}

/// Runs the proxy with two independent streams: the client writes `client` and ends its
/// input; the agent writes `agent` and ends its output, reading its input all along.
#[allow(dead_code)]
pub async fn run_streams(client: Vec<u8>, agent: Vec<u8>, options: ProxyOptions) -> Run {
    let (mut client_writer, client_in) = duplex(8 * 1024);
    let (client_out, mut client_reader) = duplex(8 * 1024);
    let (agent_in, mut agent_reader) = duplex(8 * 1024);
    let (mut agent_writer, agent_out) = duplex(8 * 1024);
    let findings = Arc::new(Mutex::new(Vec::new()));
    let sink = findings.clone();
    let record = Memory::default();
    let hooks = Hooks::new(move |f| sink.lock().unwrap().push(f.clone())).record(record.clone());
    let proxy = tokio::spawn(proxy::run(
        client_in, client_out, agent_in, agent_out, options, hooks,
    ));
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
    let agent_received = agent_task.await.unwrap();
    let report = proxy.await.unwrap().unwrap();
    let client_received = client_reads.await.unwrap();
    let findings = findings.lock().unwrap().clone();
    let record = record.0.lock().unwrap().clone();
    assert!(report.record_error.is_none());
    Run {
        client_received,
        agent_received,
        findings,
        record,
    }
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
    let (mut client_writer, client_in) = duplex(256 * 1024);
    let (client_out, client_reader) = duplex(256 * 1024);
    let (agent_in, agent_reader) = duplex(256 * 1024);
    let (mut agent_writer, agent_out) = duplex(256 * 1024);
    let findings = Arc::new(Mutex::new(Vec::new()));
    let sink = findings.clone();
    let record = Memory::default();
    let hooks = Hooks::new(move |f| sink.lock().unwrap().push(f.clone())).record(record.clone());
    let proxy = tokio::spawn(proxy::run(
        client_in, client_out, agent_in, agent_out, options, hooks,
    ));
    let answers = answers.clone();
    let agent_task = tokio::spawn(async move {
        let mut reader = BufReader::new(agent_reader);
        let mut received = Vec::new();
        let mut line = Vec::new();
        loop {
            line.clear();
            if reader.read_until(b'\n', &mut line).await.unwrap() == 0 {
                break;
            }
            received.extend_from_slice(&line);
            let id = request_id(&line);
            for answer in id.and_then(|id| answers.get(&id)).into_iter().flatten() {
                agent_writer
                    .write_all(format!("{answer}\n").as_bytes())
                    .await
                    .unwrap();
            }
            agent_writer.flush().await.unwrap();
        }
        drop(agent_writer);
        received
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
    let agent_received = agent_task.await.unwrap();
    let report = proxy.await.unwrap().unwrap();
    let client_received = client_task.await.unwrap();
    assert!(report.record_error.is_none());
    let findings = findings.lock().unwrap().clone();
    let record = record.0.lock().unwrap().clone();
    Run {
        client_received,
        agent_received,
        findings,
        record,
    }
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
