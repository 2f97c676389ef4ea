//! [`Bag`]: a robot log opened as sensors, one per topic: a rosbag2
//! folder (`metadata.yaml` and its MCAP or SQLite files), a standalone
//! `.mcap` or a ROS 1 `.bag`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use adl_core::{Error, Result};

use super::bytes::Bytes;
use super::chunks::ChunkedFile;
use super::container::{Container, Located, Place};
use super::definition::{Definitions, Dialect, Schema};
use super::index;
use super::mcap;
use super::metadata::BagInfo;
use super::ros1;
use super::sqlite::SqliteFile;
use super::topic::Topic;
use crate::location::Location;

/// A topic as the bag lists it, before it is opened as a sensor.
struct Listed {
    type_name: String,
    messages: Vec<Located>,
    /// Its messages' definitions, or why there are none.
    schema: std::result::Result<Arc<Schema>, String>,
}

/// A robot log: a ROS 2 bag (a rosbag2 folder, `metadata.yaml` beside
/// its `.mcap` or `.db3` files), a standalone `.mcap` file or a ROS 1
/// `.bag`, each topic a [`Topic`] sensor.
///
/// Opening reads the bag's indexes (MCAP's summary, the SQLite table,
/// ROS 1's index records), not its messages; a
/// file without indexes (a recording cut off) is scanned, and one damaged
/// part way keeps the messages before the damage ([`Bag::damage`] says
/// where). Messages are decoded by the definitions the bag carries, or,
/// where it carries none, by adl's built-in ones for the standard packages
/// (std_msgs, builtin_interfaces, geometry_msgs, sensor_msgs, nav_msgs,
/// tf2_msgs, stereo_msgs, diagnostic_msgs).
///
/// ```no_run
/// use adl::Sensor;
/// use adl::files::ros::Bag;
///
/// let bag = Bag::open("drive.mcap")?;
/// for (topic, message_type) in bag.topics() {
///     println!("{topic}: {message_type}");
/// }
/// let imu = bag.topic("/imu")?;
/// let first = imu.get(0)?;
/// println!("{:?}", first.at("angular_velocity.z")?);
/// # Ok::<(), adl::Error>(())
/// ```
pub struct Bag {
    path: PathBuf,
    topics: BTreeMap<String, Listed>,
    files: Arc<[Container]>,
    paths: Arc<[PathBuf]>,
    damage: Vec<String>,
}

impl Bag {
    /// Open the bag at `location`: a rosbag2 folder (with its
    /// `metadata.yaml`), an `.mcap` file or a ROS 1 `.bag` file, on disk or
    /// (with the feature `store`) in an object store (`s3://`, `gs://`,
    /// `az://`, `http(s)://`). A location that is none of these, or a file
    /// that is not what its name says, is an error naming it.
    ///
    /// In a store, an MCAP file is indexed from its summary and message
    /// indexes, a ROS 1 bag from its connection, chunk-info and index
    /// records, by ranged reads, and each chunk is read when a message of
    /// it is (one request per chunk, kept in the chunk cache); an MCAP file
    /// without a summary, one compressed whole or a ROS 1 bag without index
    /// records (never reindexed) is read whole into memory, and a rosbag2
    /// SQLite file (SQLite reads files) into a temporary file.
    pub fn open(location: impl Into<Location>) -> Result<Bag> {
        let location = location.into();
        let Some(path) = location.as_path() else {
            return Bag::open_object(&location);
        };
        if path.is_dir() {
            return Bag::rosbag2(&location);
        }
        match path.extension().and_then(|e| e.to_str()) {
            Some("mcap") => Bag::from_files(path, vec![open_mcap(path)?]),
            Some("bag") => {
                let bytes = Bytes::mapped(crate::mapped::map(path)?);
                let file = ros1::open(path, bytes)?;
                Bag::from_files(path, vec![(path.to_owned(), Container::Ros1(file))])
            }
            _ => Err(not_a_bag(path)),
        }
    }

    /// A bag in an object store: by its name, a file or a rosbag2 folder.
    fn open_object(location: &Location) -> Result<Bag> {
        let location = location.opened()?;
        let shown = PathBuf::from(location.to_string());
        let name = location.file_name().unwrap_or_default();
        let extension = Path::new(name).extension().and_then(|e| e.to_str());
        match extension {
            Some("mcap") => {
                let file = remote_mcap(&location, &shown)?;
                Bag::from_files(&shown, vec![(shown.clone(), Container::Mcap(file, false))])
            }
            Some("bag") => {
                let file = match ros1::open_object(&shown, location.object()?)? {
                    Some(file) => file,
                    None => ros1::open(&shown, Bytes::owned(location.object()?.get()?.to_vec()))?,
                };
                Bag::from_files(&shown, vec![(shown.clone(), Container::Ros1(file))])
            }
            Some(_) => Err(not_a_bag(&shown)),
            None => Bag::rosbag2(&location),
        }
    }

    /// A rosbag2 folder: its `metadata.yaml` says its files and storage.
    fn rosbag2(folder: &Location) -> Result<Bag> {
        let shown = |l: &Location| -> PathBuf {
            l.as_path()
                .map_or_else(|| PathBuf::from(l.to_string()), Path::to_owned)
        };
        let info = match folder.as_path() {
            Some(path) => BagInfo::read(path)?,
            None => {
                let metadata = folder.join("metadata.yaml");
                let text = metadata.object()?.get()?;
                BagInfo::parse(&String::from_utf8_lossy(&text), &shown(&metadata))?
            }
        };
        let mut files = Vec::new();
        for name in &info.relative_file_paths {
            let location = folder.join(name);
            let file = shown(&location);
            let local = location.as_path();
            files.push(match info.storage_identifier.as_str() {
                "mcap" => {
                    let indexed = match (local, info.files_compressed()) {
                        (Some(path), false) => {
                            mcap::open(&file, Bytes::mapped(crate::mapped::map(path)?))?
                        }
                        (Some(path), true) => {
                            let whole = std::fs::File::open(path)
                                .map_err(|e| Error::file_io(path, "cannot open", e))?;
                            mcap::open(&file, Bytes::owned(decompress(whole, &file)?))?
                        }
                        (None, false) => remote_mcap(&location, &file)?,
                        (None, true) => {
                            let whole = location.object()?.get()?;
                            mcap::open(&file, Bytes::owned(decompress(&whole[..], &file)?))?
                        }
                    };
                    (file, Container::Mcap(indexed, info.messages_compressed()))
                }
                "sqlite3" => {
                    let compressed = info.files_compressed();
                    let db = match (local, compressed) {
                        (Some(path), false) => SqliteFile::open(path, None)?,
                        (Some(path), true) => {
                            let whole = std::fs::File::open(path)
                                .map_err(|e| Error::file_io(path, "cannot open", e))?;
                            SqliteFile::open(&file, Some(to_temporary(whole, true, &file)?))?
                        }
                        (None, _) => {
                            let whole = location.object()?.get()?;
                            SqliteFile::open(
                                &file,
                                Some(to_temporary(&whole[..], compressed, &file)?),
                            )?
                        }
                    };
                    (file, Container::Sqlite(db, info.messages_compressed()))
                }
                other => {
                    return Err(Error::file(
                        shown(&folder.join("metadata.yaml")),
                        format!(
                            "storage `{other}`: adl reads rosbag2's `mcap` and `sqlite3` storage"
                        ),
                    ));
                }
            });
        }
        Bag::from_files(&shown(folder), files)
    }

    /// A bag of these indexed files.
    fn from_files(path: &Path, files: Vec<(PathBuf, Container)>) -> Result<Bag> {
        let mut topics: BTreeMap<String, Listed> = BTreeMap::new();
        let mut damage = Vec::new();
        let mut paths = Vec::new();
        let mut containers = Vec::new();
        for (k, (file, container)) in files.into_iter().enumerate() {
            match &container {
                Container::Mcap(
                    ChunkedFile {
                        damage: d,
                        channels,
                        ..
                    },
                    _,
                )
                | Container::Ros1(ChunkedFile {
                    damage: d,
                    channels,
                    ..
                }) => {
                    if let Some(d) = d {
                        damage.push(format!("{}: {d}", file.display()));
                    }
                    for channel in channels {
                        let messages = channel.entries.iter().map(|e| Located {
                            file: k as u32,
                            log_time: e.log_time,
                            place: Place::Chunked(e.place),
                        });
                        let schema = || mcap_schema(channel);
                        list(
                            &mut topics,
                            &channel.topic,
                            &channel.schema_name,
                            schema,
                            messages,
                        );
                    }
                }
                Container::Sqlite(db, _) => {
                    for topic in &db.topics {
                        let messages = topic.messages.iter().map(|&(log_time, id)| Located {
                            file: k as u32,
                            log_time,
                            place: Place::Row(id),
                        });
                        let schema = || sqlite_schema(db, topic);
                        list(&mut topics, &topic.name, &topic.type_name, schema, messages);
                    }
                }
            }
            paths.push(file);
            containers.push(container);
        }
        for listed in topics.values_mut() {
            listed.messages.sort_by_key(|m| m.log_time);
        }
        Ok(Bag {
            path: path.to_owned(),
            topics,
            files: containers.into(),
            paths: paths.into(),
            damage,
        })
    }

    /// The bag's path, as it was opened.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every topic and its message type (`{"/imu": "sensor_msgs/msg/Imu"}`).
    pub fn topics(&self) -> BTreeMap<&str, &str> {
        (self.topics.iter())
            .map(|(name, t)| (name.as_str(), t.type_name.as_str()))
            .collect()
    }

    /// How many messages topic `name` has (0 for a topic the bag lacks).
    pub fn message_count(&self, name: &str) -> usize {
        self.topics.get(name).map_or(0, |t| t.messages.len())
    }

    /// Topic `name` as a sensor. A topic the bag lacks, one whose type has
    /// no definition (in the bag or built in), or one whose log times
    /// cannot time a sensor (all equal) is an error naming it.
    pub fn topic(&self, name: &str) -> Result<Topic> {
        let listed = self.topics.get(name).ok_or_else(|| Error::UnknownSensor {
            role: "requested",
            name: name.to_owned(),
            available: self.topics.keys().cloned().collect(),
        })?;
        let schema = listed.schema.clone().map_err(|why| {
            Error::file(
                &self.path,
                format!("topic `{name}` of type `{}`: {why}", listed.type_name),
            )
        })?;
        Topic::new(
            name.to_owned(),
            listed.type_name.clone(),
            schema,
            listed.messages.iter().copied().collect(),
            Arc::clone(&self.files),
            Arc::clone(&self.paths),
        )
        .map_err(|e| {
            // Log times that cannot time a sensor: said of this bag.
            Error::file(&self.path, format!("topic `{name}`: {e}")).in_sensor(name, None)
        })
    }

    /// Where the bag is damaged (each damaged file, the byte and what is
    /// kept), if it is.
    pub fn damage(&self) -> &[String] {
        &self.damage
    }
}

impl std::fmt::Debug for Bag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Bag({}, {} topics)",
            self.path.display(),
            self.topics.len()
        )
    }
}

/// An MCAP file, mapped and indexed.
fn open_mcap(path: &Path) -> Result<(PathBuf, Container)> {
    let bytes = Bytes::mapped(crate::mapped::map(path)?);
    Ok((
        path.to_owned(),
        Container::Mcap(mcap::open(path, bytes)?, false),
    ))
}

/// Add topic `name`'s `messages` (of `type_name`, decoded by `schema`,
/// made where the topic is first seen) to `topics`: one topic across a
/// bag's files, its messages of one type.
fn list(
    topics: &mut BTreeMap<String, Listed>,
    name: &str,
    type_name: &str,
    schema: impl FnOnce() -> std::result::Result<Schema, String>,
    messages: impl Iterator<Item = Located>,
) {
    let listed = topics.entry(name.to_owned()).or_insert_with(|| Listed {
        type_name: type_name.to_owned(),
        messages: Vec::new(),
        schema: schema().map(Arc::new),
    });
    if listed.type_name != type_name {
        listed.schema = Err(format!(
            "its messages are of two types, `{}` and `{type_name}`",
            listed.type_name
        ));
    }
    listed.messages.extend(messages);
}

/// An MCAP object in a store, indexed by ranged reads from its summary
/// (read whole and scanned where it has none).
fn remote_mcap(location: &Location, shown: &Path) -> Result<ChunkedFile> {
    match mcap::open_object(shown, location.object()?)? {
        Some(file) => Ok(file),
        None => mcap::open(shown, Bytes::owned(location.object()?.get()?.to_vec())),
    }
}

/// A file compressed whole by zstd (rosbag2's `FILE` compression), read
/// from `compressed` and decompressed into memory.
fn decompress(compressed: impl std::io::Read, shown: &Path) -> Result<Vec<u8>> {
    zstd::stream::decode_all(std::io::BufReader::new(compressed))
        .map_err(|e| Error::file(shown, format!("does not decompress (zstd): {e}")))
}

/// A file read from `source` (decompressed by zstd where `compressed`)
/// into a temporary file, removed when the bag is dropped: SQLite opens
/// files.
fn to_temporary(
    source: impl std::io::Read,
    compressed: bool,
    shown: &Path,
) -> Result<tempfile::TempPath> {
    let fail = |what: &str, e: &dyn std::fmt::Display| Error::file(shown, format!("{what}: {e}"));
    let mut copy = tempfile::Builder::new()
        .prefix("adl-rosbag2-")
        .suffix(".db3")
        .tempfile()
        .map_err(|e| fail("cannot make a temporary file to read it into", &e))?;
    let mut source = std::io::BufReader::new(source);
    if compressed {
        zstd::stream::copy_decode(source, copy.as_file_mut())
            .map_err(|e| fail("does not decompress (zstd)", &e))?;
    } else {
        std::io::copy(&mut source, copy.as_file_mut()).map_err(|e| fail("cannot copy it", &e))?;
    }
    Ok(copy.into_temp_path())
}

/// The refusal of a path that is not a bag.
fn not_a_bag(path: &Path) -> Error {
    Error::file(
        path,
        "not a bag adl reads: a rosbag2 folder (with metadata.yaml), an .mcap file or a ROS 1 .bag file",
    )
}

/// The schema of a rosbag2 SQLite topic's messages: the bag's
/// `message_definitions` where it has them, else the built-in ones.
fn sqlite_schema(
    db: &SqliteFile,
    topic: &super::sqlite::SqliteTopic,
) -> std::result::Result<Schema, String> {
    if topic.serialization_format != "cdr" {
        return Err(format!(
            "serialization format `{}`: adl decodes `cdr`",
            topic.serialization_format
        ));
    }
    let mut definitions = Definitions::new(Dialect::Ros2);
    if let Some(text) = db.definitions.get(&topic.type_name) {
        definitions
            .add_text(Some(&topic.type_name), text)
            .map_err(|e| format!("{e:#}"))?;
    }
    definitions
        .schema(&topic.type_name, Some(Definitions::builtin()))
        .map_err(|e| format!("{e:#}"))
}

/// The schema of an MCAP channel's messages: its own definition where it
/// has one, built-in definitions filling in what it lacks.
fn mcap_schema(channel: &index::Channel) -> std::result::Result<Schema, String> {
    let dialect = match channel.message_encoding.as_str() {
        "cdr" => Dialect::Ros2,
        "ros1" => Dialect::Ros1,
        other => {
            return Err(format!(
                "message encoding `{other}`: adl decodes `cdr` (ROS 2) and `ros1`"
            ));
        }
    };
    let mut definitions = Definitions::new(dialect);
    match channel.schema_encoding.as_str() {
        "ros2msg" | "ros1msg" => {
            let text = std::str::from_utf8(&channel.schema)
                .map_err(|_| "its schema is not UTF-8 text".to_owned())?;
            definitions
                .add_text(Some(&channel.schema_name), text)
                .map_err(|e| format!("{e:#}"))?;
        }
        "" => {}
        other => {
            return Err(format!(
                "schema encoding `{other}`: adl reads `ros2msg` and `ros1msg` definitions"
            ));
        }
    }
    let fallback = (dialect == Dialect::Ros2).then(Definitions::builtin);
    definitions
        .schema(&channel.schema_name, fallback)
        .map_err(|e| format!("{e:#}"))
}
