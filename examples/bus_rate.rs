//! What a NATS server does for arcade's bus, measured: the publish rate of one
//! publisher and the delivery rate to 1, 3 or 10 subscriber connections (one per
//! instance), for messages of a given size (a chat line is about 60 bytes, a board
//! frame about 1 KiB), and with `--server-pid` the nats-server's CPU time over the
//! run (from `/proc`). docs/BENCHMARKS.md's "Scale on paper" is computed from these
//! numbers; `bench/run.sh` (ROWS=rates) starts a throwaway `nats-server -a 127.0.0.1`
//! and runs this for each size and subscriber count.
//!
//! ```text
//! cargo run --release --example bus_rate -- --url nats://127.0.0.1:24130 \
//!     --size 60 --subscribers 3 --messages 200000 [--server-pid PID] [--timeout 30]
//! ```
//!
//! It prints one line of `key=value` fields. The count and the time are bounded
//! (`--messages`, `--timeout`); only the given URL is contacted. Not a test: rates are
//! never asserted.

use std::time::{Duration, Instant};

#[path = "shared/proc.rs"]
mod proc;

use bytes::Bytes;
use clap::Parser;
use futures_util::StreamExt as _;

/// The subject every message of a run goes to.
const SUBJECT: &str = "bench.rate";

/// One measurement: a publisher, `subscribers` connections subscribed to one subject.
#[derive(Debug, Parser)]
#[command(about = "Publish and delivery rates through a NATS server (a benchmark, not a test)")]
struct Options {
    /// The NATS server (keep it on 127.0.0.0/8).
    #[arg(long, default_value = "nats://127.0.0.1:4222")]
    url: String,
    /// Payload bytes per message.
    #[arg(long, default_value_t = 60)]
    size: usize,
    /// Subscriber connections, each as one instance of arcade would be.
    #[arg(long, default_value_t = 1)]
    subscribers: usize,
    /// Messages published.
    #[arg(long, default_value_t = 100_000)]
    messages: u64,
    /// nats-server's pid, to read its CPU time from /proc before and after.
    #[arg(long)]
    server_pid: Option<u32>,
    /// The longest a subscriber waits for its last message, in seconds.
    #[arg(long, default_value_t = 30)]
    timeout: u64,
}

/// A program that measures and reports: any error ends it with its message.
type Failure = Box<dyn std::error::Error + Send + Sync>;

/// What one subscriber received: how many messages, and when the last came.
struct Received {
    count: u64,
    last: Option<Instant>,
}

#[tokio::main]
async fn main() -> Result<(), Failure> {
    let options = Options::parse();
    let deadline = Duration::from_secs(options.timeout);
    // A subscriber's buffer holds the whole run, so that a subscriber scheduled late
    // does not drop messages on the client side (async-nats drops past its capacity).
    let capacity = usize::try_from(options.messages)
        .unwrap_or(usize::MAX)
        .max(1024);
    let mut subscribers = Vec::new();
    for _ in 0..options.subscribers {
        let client = async_nats::ConnectOptions::new()
            .subscription_capacity(capacity)
            .connect(options.url.as_str())
            .await?;
        let subscriber = client.subscribe(SUBJECT).await?;
        // Once flushed, the server has the subscription: nothing published after is missed.
        client.flush().await?;
        subscribers.push((client, subscriber));
    }
    let publisher = async_nats::ConnectOptions::new()
        .client_capacity(65_536)
        .connect(options.url.as_str())
        .await?;
    let payload = Bytes::from(vec![b'x'; options.size]);
    let messages = options.messages;
    let mut tasks = Vec::new();
    for (client, mut subscriber) in subscribers {
        tasks.push(tokio::spawn(async move {
            let mut received = Received {
                count: 0,
                last: None,
            };
            let until = tokio::time::Instant::now() + deadline;
            while received.count < messages {
                match tokio::time::timeout_at(until, subscriber.next()).await {
                    Ok(Some(_)) => {
                        received.count += 1;
                        received.last = Some(Instant::now());
                    }
                    Ok(None) | Err(_) => break,
                }
            }
            drop(client);
            received
        }));
    }
    let cpu_before = options
        .server_pid
        .and_then(|pid| proc::cpu_seconds(&pid.to_string()));
    let started = Instant::now();
    for _ in 0..messages {
        publisher.publish(SUBJECT, payload.clone()).await?;
    }
    publisher.flush().await?;
    let published = started.elapsed();
    let mut delivered = 0;
    let mut last = started;
    for task in tasks {
        let received = task.await?;
        delivered += received.count;
        if let Some(at) = received.last {
            last = last.max(at);
        }
    }
    let cpu_after = options
        .server_pid
        .and_then(|pid| proc::cpu_seconds(&pid.to_string()));
    let delivering = last.duration_since(started).as_secs_f64();
    let expected = messages * options.subscribers as u64;
    let publish_rate = messages as f64 / published.as_secs_f64();
    let delivery_rate = if delivering > 0.0 {
        delivered as f64 / delivering
    } else {
        0.0
    };
    let mut line = format!(
        "size={} subscribers={} messages={} publish_s={:.3} publish_per_s={:.0} \
         delivered={} expected={} delivery_s={:.3} delivered_per_s={:.0}",
        options.size,
        options.subscribers,
        messages,
        published.as_secs_f64(),
        publish_rate,
        delivered,
        expected,
        delivering,
        delivery_rate,
    );
    if let (Some(before), Some(after)) = (cpu_before, cpu_after) {
        let cpu = after - before;
        let busy = cpu / delivering.max(published.as_secs_f64());
        // Cores the server keeps busy for every 100,000 deliveries a second.
        let per_100k = if delivery_rate > 0.0 {
            busy / (delivery_rate / 100_000.0)
        } else {
            0.0
        };
        line += &format!(" server_cpu_s={cpu:.2} server_busy={busy:.2} server_cores_per_100k_deliveries_per_s={per_100k:.3}");
    }
    println!("{line}");
    Ok(())
}
