//! What the decode benches (`jpeg_decode`, `crop_decode`) share: their
//! command line (a W4 dataset, `--frames N`, `--reps N`) and the camera
//! folders of a W4 dataset.

use std::path::{Path, PathBuf};

/// A decode bench's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameArgs {
    /// The W4 dataset (`bench/peer/w4/generate.py` wrote it).
    pub data: PathBuf,
    /// Frames to decode at most (0: all).
    pub frames: usize,
    /// Timed repetitions (at least 1).
    pub reps: usize,
}

impl FrameArgs {
    /// `DATA_DIR [--frames N] [--reps N]` parsed, `frames` frames (and 3
    /// reps) unless given; `usage` is the message of a bad command line.
    pub fn parse(args: Vec<String>, usage: &str, frames: usize) -> Result<FrameArgs, String> {
        let mut data = None;
        let (mut frames, mut reps) = (frames, 3usize);
        let mut it = args.into_iter();
        while let Some(arg) = it.next() {
            let mut number = |flag: &str| -> Result<usize, String> {
                let text = it.next().ok_or(format!("{flag} needs a value\n{usage}"))?;
                text.parse()
                    .map_err(|_| format!("{flag} takes a number, got {text:?}"))
            };
            match arg.as_str() {
                "--frames" => frames = number("--frames")?,
                "--reps" => reps = number("--reps")?.max(1),
                "--help" | "-h" => return Err(usage.into()),
                _ if data.is_none() && !arg.starts_with("--") => data = Some(PathBuf::from(arg)),
                other => return Err(format!("unknown argument {other:?}\n{usage}")),
            }
        }
        Ok(FrameArgs {
            data: data.ok_or(usage)?,
            frames,
            reps,
        })
    }
}

/// The camera folders of a W4 dataset: `DATA_DIR/<trace>/camera`, traces
/// in name order; none is an error that says how to write one.
pub fn camera_folders(data: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(data)
        .map_err(|e| format!("{}: cannot list the dataset: {e}", data.display()))?;
    let mut cameras: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path().join("camera")))
        .filter(|camera| camera.is_dir())
        .collect();
    cameras.sort();
    if cameras.is_empty() {
        return Err(format!(
            "{}: no <trace>/camera folders (write a W4 dataset with bench/peer/w4/generate.py)",
            data.display()
        ));
    }
    Ok(cameras)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn a_command_line_is_parsed_or_refused() {
        assert_eq!(
            FrameArgs::parse(args("d --frames 5 --reps 0"), "u", 9),
            Ok(FrameArgs {
                data: "d".into(),
                frames: 5,
                reps: 1
            })
        );
        assert_eq!(
            FrameArgs::parse(args("d"), "u", 9).map(|a| (a.frames, a.reps)),
            Ok((9, 3))
        );
        assert_eq!(FrameArgs::parse(args(""), "u", 9), Err("u".into()));
        assert!(FrameArgs::parse(args("d --frames x"), "u", 9).is_err());
        assert!(FrameArgs::parse(args("d --what"), "u", 9).is_err());
    }
}
