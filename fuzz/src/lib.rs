//! The fuzz targets of adl's parsers, and what they hold every input to.
//!
//! Each target takes arbitrary bytes, writes them to a file, opens the file
//! with adl's public API as a user would, and reads every sample it offers.
//! Whatever the bytes, the outcome is samples or an [`adl::Error`], and:
//!
//! - no panic (a panic is a crash the fuzzer reports);
//! - no hang (the fuzzer's timeout);
//! - no allocation without bound ([`LimitedAllocator`], installed as the
//!   global allocator of the fuzzer's binaries and of the replay test,
//!   aborts on any single allocation over [`ALLOCATION_LIMIT`]);
//! - an error names the file it was read from ([`named`]).
//!
//! The targets, by the parser they drive ([`TARGETS`]): the PX4 ULog
//! reader, robot logs (MCAP and ROS 1 bags), `.npy` arrays (rows memory-mapped, and whole files), `.npz`
//! archives, JPEG and PNG frames, MP4 videos (adl's reader of their index,
//! FFmpeg's decoders), CSV tables, timestamp files, and the
//! loader's saved states (a checkpoint's `state.json`, loaded and resumed). The
//! coverage-guided fuzzer (`fuzz/libfuzzer`, `cargo fuzz`) runs them; the
//! test `replay` runs each over its corpus and its regression cases on
//! every `cargo xtask test`. See docs/reliability.md.

mod limit;
mod scratch;
mod targets;

pub use limit::{ALLOCATION_LIMIT, LimitedAllocator};
pub use scratch::Scratch;
pub use targets::{
    images, npy_files, npy_rows, npz, px4, ros_bag, state, state_loader, table, timestamps, video,
};

/// A target's body: bytes in, a panic for a finding.
pub type Target = fn(&[u8]);

/// Every target, by the name of its fuzzer binary and corpus folder.
pub const TARGETS: [(&str, Target); 10] = [
    ("px4", px4),
    ("ros_bag", ros_bag),
    ("npy_rows", npy_rows),
    ("npy_files", npy_files),
    ("npz", npz),
    ("images", images),
    ("video", video),
    ("table", table),
    ("timestamps", timestamps),
    ("state", state),
];

/// Check that an error from reading `path` names it (its file name, at
/// least): a user who gets it must know which file to look at. Panics (a
/// finding) otherwise. With `ADL_FUZZ_SHOW_ERRORS` set, every message is
/// printed too (to read what a corpus's inputs are told).
pub fn named(error: &adl::Error, path: &std::path::Path) {
    let message = error.to_string();
    if std::env::var_os("ADL_FUZZ_SHOW_ERRORS").is_some() {
        eprintln!("{message}");
    }
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    assert!(
        message.contains(name),
        "an error that does not name the file {}: {message}",
        path.display()
    );
}
