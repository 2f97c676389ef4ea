//! The robot-log benchmark's adl side: open a bag and read and decode
//! every message of every topic, in log-time order per topic; prints one
//! JSON line (messages, bytes of message data, seconds, messages and MB per
//! second), as `bench/ros/read_peer.py` does for the Python readers.
//!
//! ```text
//! cargo run --release -p adl-bench --bin ros_read -- BAG [--threads N]
//! ```
//!
//! One thread by default, as the Python readers have; `--threads N` reads
//! the topics' messages on N threads (a loader's workers).

use std::time::Instant;

use adl::Sensor;
use adl::files::ros::{Bag, Message, Numbers, Value};

/// The bytes a decoded message holds (its arrays' and strings').
fn size(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len(),
        Value::Array(n) => match n {
            Numbers::U8(v) => v.len(),
            Numbers::I8(v) => v.len(),
            Numbers::Bool(v) => v.len(),
            Numbers::I16(v) => 2 * v.len(),
            Numbers::U16(v) => 2 * v.len(),
            Numbers::I32(v) => 4 * v.len(),
            Numbers::U32(v) => 4 * v.len(),
            Numbers::F32(v) => 4 * v.len(),
            Numbers::I64(v) => 8 * v.len(),
            Numbers::U64(v) => 8 * v.len(),
            Numbers::F64(v) => 8 * v.len(),
        },
        Value::List(items) => items.iter().map(size).sum(),
        Value::Message(m) => message_size(m),
        _ => 8,
    }
}

fn message_size(m: &Message) -> usize {
    m.fields().map(|(_, v)| size(v)).sum()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: ros_read BAG [--threads N]")?;
    let threads = match (args.next().as_deref(), args.next()) {
        (Some("--threads"), Some(n)) => n.parse()?,
        (None, _) => 1,
        _ => return Err("usage: ros_read BAG [--threads N]".into()),
    };
    let start = Instant::now();
    let bag = Bag::open(&path)?;
    let topics: Vec<_> = (bag.topics().keys())
        .map(|name| bag.topic(name))
        .collect::<adl::Result<_>>()?;
    let work: Vec<(usize, usize)> = (topics.iter().enumerate())
        .flat_map(|(t, topic)| (0..topic.len()).map(move |i| (t, i)))
        .collect();
    let chunk = work.len().div_ceil(threads.max(1)).max(1);
    let totals = std::thread::scope(|s| {
        let handles: Vec<_> = work
            .chunks(chunk)
            .map(|part| {
                let topics = &topics;
                s.spawn(move || -> adl::Result<(usize, usize)> {
                    let mut bytes = 0;
                    for &(t, i) in part {
                        bytes += message_size(&topics[t].get(i)?);
                    }
                    Ok((part.len(), bytes))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a reader thread panicked"))
            .collect::<adl::Result<Vec<_>>>()
    })?;
    let seconds = start.elapsed().as_secs_f64();
    let (messages, bytes) = totals
        .iter()
        .fold((0, 0), |(m, b), &(m2, b2)| (m + m2, b + b2));
    println!(
        "{{\"reader\": \"adl\", \"threads\": {threads}, \"messages\": {messages}, \"bytes\": {bytes}, \"seconds\": {seconds:.4}, \"messages_per_s\": {:.1}, \"mb_per_s\": {:.1}}}",
        messages as f64 / seconds,
        bytes as f64 / seconds / 1e6
    );
    Ok(())
}
