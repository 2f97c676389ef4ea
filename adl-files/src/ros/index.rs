//! What indexing a bag file gives: each channel (a topic in one file)
//! and where each of its messages is, by log time.

/// Where one message record is: at a byte of the file, or at a byte of a
/// chunk's decompressed records.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Place {
    File(u64),
    Chunk { chunk: u32, offset: u64 },
}

/// One message of a channel: its log time (ns) and its place.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    pub(crate) log_time: u64,
    pub(crate) place: Place,
}

/// A channel: its topic and what its messages are.
#[derive(Debug, Clone)]
pub(crate) struct Channel {
    pub(crate) topic: String,
    /// `cdr` (ROS 2) or `ros1`.
    pub(crate) message_encoding: String,
    /// The message type, `pkg/msg/Type` or `pkg/Type`.
    pub(crate) schema_name: String,
    /// `ros2msg`, `ros1msg`, `ros2idl`, or empty where there is none.
    pub(crate) schema_encoding: String,
    pub(crate) schema: Vec<u8>,
    /// Its messages, by log time.
    pub(crate) entries: Vec<Entry>,
}
