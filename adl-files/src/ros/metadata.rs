//! A rosbag2 folder's `metadata.yaml`: which files hold its messages, in
//! which storage, compressed how.

use std::path::Path;

use adl_core::{Error, Result};
use serde::Deserialize;

/// What adl reads of `metadata.yaml`'s `rosbag2_bagfile_information`.
#[derive(Debug, Deserialize)]
pub(crate) struct BagInfo {
    /// `mcap` or `sqlite3`.
    pub(crate) storage_identifier: String,
    /// The files, relative to the folder.
    pub(crate) relative_file_paths: Vec<String>,
    /// `zstd`, or empty.
    #[serde(default)]
    pub(crate) compression_format: String,
    /// `FILE`, `MESSAGE`, or empty.
    #[serde(default)]
    pub(crate) compression_mode: String,
}

#[derive(Deserialize)]
struct Document {
    rosbag2_bagfile_information: BagInfo,
}

impl BagInfo {
    /// Read `folder/metadata.yaml`. A folder without one, or one that is
    /// not a rosbag2 metadata file, is an error naming it.
    pub(crate) fn read(folder: &Path) -> Result<BagInfo> {
        let path = folder.join("metadata.yaml");
        let text = std::fs::read_to_string(&path).map_err(|e| {
            Error::file_io(
                &path,
                "cannot read it (a rosbag2 folder has its metadata.yaml)",
                e,
            )
        })?;
        BagInfo::parse(&text, &path)
    }

    /// Parse `text`, the metadata file at `path`.
    pub(crate) fn parse(text: &str, path: &Path) -> Result<BagInfo> {
        let document: Document = serde_yaml_ng::from_str(text)
            .map_err(|e| Error::file(path, format!("not rosbag2 metadata: {e}")))?;
        let info = document.rosbag2_bagfile_information;
        match (
            info.compression_format.as_str(),
            info.compression_mode.to_uppercase().as_str(),
        ) {
            ("", _) | (_, "" | "NONE") | ("zstd", "FILE" | "MESSAGE") => Ok(info),
            (format, mode) => Err(Error::file(
                path,
                format!("{mode} compression `{format}`: adl reads zstd, by file or by message"),
            )),
        }
    }

    /// Whether each file is compressed whole (zstd).
    pub(crate) fn files_compressed(&self) -> bool {
        !self.compression_format.is_empty() && self.compression_mode.eq_ignore_ascii_case("FILE")
    }

    /// Whether each message is compressed (zstd).
    pub(crate) fn messages_compressed(&self) -> bool {
        !self.compression_format.is_empty() && self.compression_mode.eq_ignore_ascii_case("MESSAGE")
    }
}
