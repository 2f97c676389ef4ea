//! `cargo xtask fuzz [--seconds N] [--merge] [TARGET...]`: the
//! coverage-guided fuzzer over adl's parsers (`fuzz/`, see
//! docs/reliability.md).
//!
//! It installs cargo-fuzz if it is missing, builds the libFuzzer binaries
//! (`fuzz/libfuzzer`, release, no sanitizer: the stable toolchain), and
//! runs each target (all of them by default) for N seconds (600), one after
//! the other, over a working corpus under `target/fuzz/<target>` that starts
//! from the committed one (`fuzz/corpus/<target>`). A finding stops that
//! target; its input is written beside the working corpus and named in the
//! summary: fix it, then keep it as a regression case in
//! `fuzz/regressions/<target>`, which the test suite replays. `--merge`
//! then minimizes the committed corpus with what the runs added (libFuzzer's
//! `-merge=1`: the fewest inputs that keep the coverage).
//!
//! `images_turbo` is the `images` target built with libjpeg-turbo (the
//! feature adl-bench decodes JPEG with; its own build, in
//! `fuzz/libfuzzer/target-turbo`), over the same corpus.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The targets, as `fuzz/libfuzzer/Cargo.toml` names its binaries (but
/// `images_turbo`, the `images` binary built with libjpeg-turbo), with the
/// largest input each is given (a PX4 log needs its definitions; a bag
/// its chunks and indexes).
const TARGETS: [(&str, usize); 11] = [
    ("px4", 65_536),
    ("ros_bag", 131_072),
    ("npy_rows", 16_384),
    ("npy_files", 16_384),
    ("npz", 16_384),
    ("images", 16_384),
    ("images_turbo", 16_384),
    // Small videos: their index and a few groups of pictures.
    ("video", 32_768),
    ("table", 8_192),
    ("timestamps", 8_192),
    ("state", 4_096),
];

/// The `images` target through libjpeg-turbo: its name, and its build's
/// target folder under `fuzz/libfuzzer`.
const TURBO: (&str, &str) = ("images_turbo", "target-turbo");

/// Run the fuzzer as the arguments say; `Err` names what failed.
pub(crate) fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let mut seconds = 600u64;
    let mut merge = false;
    let mut chosen = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--seconds" => {
                seconds = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .ok_or("--seconds takes a number of seconds")?;
            }
            "--merge" => merge = true,
            name => match TARGETS.iter().find(|(t, _)| *t == name) {
                Some(&target) => chosen.push(target),
                None => {
                    let names: Vec<&str> = TARGETS.iter().map(|(t, _)| *t).collect();
                    return Err(format!(
                        "unknown fuzz target `{name}`; the targets are {}",
                        names.join(", ")
                    ));
                }
            },
        }
    }
    if chosen.is_empty() {
        chosen = TARGETS.to_vec();
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    if !Command::new(&cargo)
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("xtask: installing cargo-fuzz");
        run_status(Command::new(&cargo).args(["install", "cargo-fuzz", "--locked"]))?;
    }
    let fuzz_dir = root.join("fuzz").join("libfuzzer");
    let build = |features: &[&str], target_dir: &str| {
        run_status(
            Command::new(&cargo)
                .args(["fuzz", "build", "--sanitizer", "none", "--fuzz-dir"])
                .arg(&fuzz_dir)
                .args(features)
                .arg("--target-dir")
                .arg(fuzz_dir.join(target_dir))
                .current_dir(root),
        )
    };
    build(&[], "target")?;
    if chosen.iter().any(|(t, _)| *t == TURBO.0) {
        build(&["--features", "libjpeg-turbo"], TURBO.1)?;
    }
    let triple = host_triple()?;
    let binary = |target: &str| {
        let (dir, name) = if target == TURBO.0 {
            (TURBO.1, "images")
        } else {
            ("target", target)
        };
        fuzz_dir.join(dir).join(&triple).join("release").join(name)
    };
    let work = root.join("target").join("fuzz");
    let mut findings = Vec::new();
    for (target, max_len) in chosen {
        let corpus_name = if target == TURBO.0 { "images" } else { target };
        let corpus = root.join("fuzz").join("corpus").join(corpus_name);
        let working = work.join(target);
        std::fs::create_dir_all(&working)
            .map_err(|e| format!("cannot make {}: {e}", working.display()))?;
        eprintln!("xtask: fuzzing {target} for {seconds} s");
        let artifacts = work.join(format!("{target}-"));
        let status = Command::new(binary(target))
            .arg(&working)
            .arg(&corpus)
            .arg(format!("-max_total_time={seconds}"))
            .arg(format!("-max_len={max_len}"))
            .args(["-timeout=10", "-rss_limit_mb=2560", "-print_final_stats=1"])
            .arg(format!("-artifact_prefix={}", artifacts.display()))
            .status()
            .map_err(|e| format!("cannot run the {target} fuzzer: {e}"))?;
        if !status.success() {
            findings.push(format!(
                "{target}: a finding ({status}); its input is {}*",
                artifacts.display()
            ));
            continue;
        }
        if merge {
            merge_corpus(&binary(target), &corpus, &working)?;
        }
    }
    if findings.is_empty() {
        Ok(())
    } else {
        Err(format!("the fuzzer found:\n  {}", findings.join("\n  ")))
    }
}

/// Replace `corpus` by the fewest of its inputs and `working`'s that keep
/// their coverage.
fn merge_corpus(binary: &Path, corpus: &Path, working: &Path) -> Result<(), String> {
    let merged = working.with_extension("merged");
    let _ = std::fs::remove_dir_all(&merged);
    std::fs::create_dir_all(&merged).map_err(|e| format!("{}: {e}", merged.display()))?;
    run_status(
        Command::new(binary)
            .arg("-merge=1")
            .arg(&merged)
            .arg(corpus)
            .arg(working),
    )?;
    std::fs::remove_dir_all(corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
    std::fs::rename(&merged, corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
    Ok(())
}

/// The host's target triple, where cargo-fuzz puts its binaries.
fn host_triple() -> Result<PathBuf, String> {
    let output = Command::new("rustc")
        .arg("-vV")
        .output()
        .map_err(|e| format!("cannot run rustc -vV: {e}"))?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(PathBuf::from)
        .ok_or_else(|| "rustc -vV names no host".into())
}

fn run_status(command: &mut Command) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("cannot run {command:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{command:?} failed ({status})"))
    }
}
