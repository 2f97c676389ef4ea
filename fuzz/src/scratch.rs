//! [`Scratch`]: the folder a target writes its input to, one per process.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A folder of this process's own under the system's temporary folder
/// (`adl-fuzz-<pid>`), where each input is written as a file before the
/// parser opens it: the parsers are driven through the same calls a user
/// makes, on a real file.
#[derive(Debug)]
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// This process's scratch folder, made on first use.
    pub fn get() -> &'static Scratch {
        static SCRATCH: OnceLock<Scratch> = OnceLock::new();
        SCRATCH.get_or_init(|| {
            let dir = std::env::temp_dir().join(format!("adl-fuzz-{}", std::process::id()));
            std::fs::create_dir_all(&dir)
                .unwrap_or_else(|e| panic!("cannot make {}: {e}", dir.display()));
            Scratch { dir }
        })
    }

    /// Write `bytes` to the file `name` in the folder (replacing it) and
    /// return its path.
    pub fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.dir.join(name);
        std::fs::write(&path, bytes)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        path
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}
