//! [`Container`]: one file of a bag, indexed, and where each message is
//! in it ([`Located`]): what the bag makes when it opens and its topics
//! read from.

use adl_core::{Error, Result};

use super::chunks::{ChunkedFile, MessageBytes};
use super::index;
use super::mcap;
use super::ros1;
use super::sqlite::SqliteFile;

/// One file of a bag, indexed; each of its messages compressed by zstd
/// where the flag says (rosbag2's `MESSAGE` compression).
pub(crate) enum Container {
    Mcap(ChunkedFile, bool),
    Sqlite(SqliteFile, bool),
    Ros1(ChunkedFile),
}

/// Where a message is in its file.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Place {
    /// In an MCAP or ROS 1 file (in a chunk, or at a byte of the file).
    Chunked(index::Place),
    /// A row of the `messages` table.
    Row(i64),
}

impl Container {
    /// The bytes of the message at `place`.
    pub(crate) fn message(&self, place: Place) -> Result<MessageBytes> {
        let (bytes, compressed) = match (self, place) {
            (Container::Mcap(file, compressed), Place::Chunked(place)) => {
                (file.message(place, mcap::locate)?, *compressed)
            }
            (Container::Sqlite(file, compressed), Place::Row(id)) => {
                (MessageBytes::Owned(file.message(id)?), *compressed)
            }
            (Container::Ros1(file), Place::Chunked(place)) => {
                (file.message(place, ros1::locate)?, false)
            }
            _ => {
                return Err(Error::internal(
                    "Container::message",
                    "a place of another file",
                ));
            }
        };
        if !compressed {
            return Ok(bytes);
        }
        zstd::stream::decode_all(&*bytes)
            .map(MessageBytes::Owned)
            .map_err(|e| self.error(format!("a message does not decompress (zstd): {e}")))
    }

    fn error(&self, why: String) -> Error {
        match self {
            Container::Mcap(file, _) => file.error(why),
            Container::Sqlite(file, _) => file.error(why),
            Container::Ros1(file) => file.error(why),
        }
    }
}

/// A message of a topic: its file, its log time (ns) and its place there.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Located {
    pub(crate) file: u32,
    pub(crate) log_time: u64,
    pub(crate) place: Place,
}
