//! rosbag2's `sqlite3` storage: a `.db3` file whose `messages` table holds
//! each message's topic, log time and bytes, read by row id through a
//! small pool of read-only connections (one per thread reading at once).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use adl_core::{Error, Result};
use rusqlite::{Connection, OpenFlags, OptionalExtension};

/// A topic as the `topics` table lists it, with its messages.
pub(crate) struct SqliteTopic {
    pub(crate) name: String,
    pub(crate) type_name: String,
    pub(crate) serialization_format: String,
    /// Its messages: log time (ns) and row id, by log time.
    pub(crate) messages: Vec<(u64, i64)>,
}

/// One `.db3` file, indexed.
pub(crate) struct SqliteFile {
    path: PathBuf,
    pool: Mutex<Vec<Connection>>,
    pub(crate) topics: Vec<SqliteTopic>,
    /// `message_definitions`: each type's `ros2msg` text, where the bag
    /// has that table (rosbag2 from Iron on).
    pub(crate) definitions: HashMap<String, String>,
    /// Keeps a decompressed copy on disk as long as the file is open.
    temporary: Option<tempfile::TempPath>,
}

impl SqliteFile {
    /// Index the `.db3` file at `path`, or its decompressed copy
    /// `temporary` where it is compressed (errors name `path`).
    pub(crate) fn open(path: &Path, temporary: Option<tempfile::TempPath>) -> Result<SqliteFile> {
        let mut file = SqliteFile {
            path: path.to_owned(),
            pool: Mutex::new(Vec::new()),
            topics: Vec::new(),
            definitions: HashMap::new(),
            temporary,
        };
        let connection = Connection::open_with_flags(
            file.open_path(),
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| file.error(format!("cannot open as SQLite: {e}")))?;
        file.index(&connection)
            .map_err(|e| file.error(format!("not a rosbag2 SQLite file: {e}")))?;
        file.pool
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .push(connection);
        Ok(file)
    }

    fn index(&mut self, db: &Connection) -> rusqlite::Result<()> {
        let mut ids: HashMap<i64, usize> = HashMap::new();
        let mut topics =
            db.prepare("SELECT id, name, type, serialization_format FROM topics ORDER BY id")?;
        let rows = topics.query_map([], |r| {
            Ok((r.get::<_, i64>(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?;
        for row in rows {
            let (id, name, type_name, serialization_format) = row?;
            ids.insert(id, self.topics.len());
            self.topics.push(SqliteTopic {
                name,
                type_name,
                serialization_format,
                messages: Vec::new(),
            });
        }
        let mut messages =
            db.prepare("SELECT id, topic_id, timestamp FROM messages ORDER BY timestamp, id")?;
        let rows = messages.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
            ))
        })?;
        for row in rows {
            let (id, topic, timestamp) = row?;
            if let Some(&at) = ids.get(&topic) {
                self.topics[at].messages.push((timestamp.max(0) as u64, id));
            }
        }
        let has_definitions: Option<String> = db
            .query_row(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'message_definitions'",
                [],
                |r| r.get(0),
            )
            .optional()?;
        if has_definitions.is_some() {
            let mut definitions = db.prepare(
                "SELECT topic_type, encoding, encoded_message_definition FROM message_definitions",
            )?;
            let rows = definitions.query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })?;
            for row in rows {
                let (type_name, encoding, text) = row?;
                if encoding == "ros2msg" && !text.trim().is_empty() {
                    self.definitions.insert(type_name, text);
                }
            }
        }
        Ok(())
    }

    /// The bytes of the message in row `id`.
    pub(crate) fn message(&self, id: i64) -> Result<Vec<u8>> {
        let taken = self.pool.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let connection = match taken {
            Some(c) => c,
            None => Connection::open_with_flags(
                self.open_path(),
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(|e| self.error(format!("cannot open as SQLite: {e}")))?,
        };
        let read = connection
            .prepare_cached("SELECT data FROM messages WHERE id = ?1")
            .and_then(|mut s| s.query_row([id], |r| r.get::<_, Vec<u8>>(0)));
        self.pool
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(connection);
        read.map_err(|e| self.error(format!("cannot read message row {id}: {e}")))
    }

    /// The file the connections open (a decompressed copy, or the file).
    fn open_path(&self) -> &Path {
        self.temporary.as_deref().unwrap_or(&self.path)
    }

    pub(crate) fn error(&self, why: impl std::fmt::Display) -> Error {
        Error::file(&self.path, why)
    }
}
