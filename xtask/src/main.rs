//! `cargo xtask`: the two commands at the top of the README.
//!
//! - `cargo xtask example [ARGS...]`: run the main example (`px4_trace`).
//! - `cargo xtask test`: run the whole test suite, object storage's tests
//!   among them (adl-files' feature `store` on; they make Python venvs
//!   under the target dir with SeaweedFS's S3 server, and with Node and
//!   Azurite, the Azure Blob emulator), adl-files' JPEG tests once more
//!   with zune-jpeg in place of libjpeg-turbo, the benchmark
//!   workloads W1, W2 and W3 at full size with `--verify` (the test
//!   build's `adl-bench`; their digests), as a run with no flags does them (W2's
//!   batch kernels on the first GPU, else as Rust kernels), and W2 once
//!   more with its batch stage as OpenCL kernels on POCL's CPU device,
//!   and the Python package's tests (`adl-python`, built into a venv
//!   under the target dir with abstract-dataloader 0.4.7 and PyTorch
//!   beside it, then pytest on two processes or more, and the training
//!   example; the Ray tests in a pytest of their own).
//!   The venv is made while the Rust suite builds. The suite is built
//!   first (`cargo test --no-run`, whose messages name the executables),
//!   then its tests run, and beside them (`beside.rs`): the servers'
//!   venvs made, the Python package built, the Ray tests started, the
//!   other two Python packages built, the other Python tests started,
//!   adl-files' JPEG tests run once more with zune-jpeg and the
//!   workloads' digests checked (these two first, where the venv is
//!   still being made). Then the Python tests are waited for.
//! - `cargo xtask docs`: the docs checked (`docs.rs`: `cargo doc` with
//!   rustdoc's warnings denied, and every Rust path the Markdown names
//!   looked up in what it made). A check before a change lands, with
//!   `cargo fmt` and `cargo clippy`, not part of the test command: its
//!   `cargo doc` checks every dependency once more (rustdoc does not read
//!   the test build's artifacts), 160 to 220 s of CPU that the suite's
//!   20 minutes on CI's two cores do not have room for.
//! - `cargo xtask python`: only the Python package's tests.
//! - `cargo xtask fuzz [--seconds N] [--merge] [TARGET...]`: the
//!   coverage-guided fuzzer over adl's parsers (`fuzz.rs`).
//! - `cargo xtask setup`: only make sure the system packages are present.
//!
//! Each first makes sure the system packages adl needs are installed: the
//! OpenCL ICD loader and headers (`ocl-icd-opencl-dev`), the POCL CPU
//! OpenCL device (`pocl-opencl-icd`), libjpeg-turbo's TurboJPEG library
//! and its libjpeg API with `pkg-config` to find them (`libturbojpeg0-dev`,
//! `libjpeg62-turbo-dev`: the benchmarks decode JPEG with them, whole or
//! only a crop, feature `libjpeg-turbo`), and FFmpeg's libraries with
//! libclang for their binding (`libavcodec-dev`, `libavformat-dev`,
//! `libswscale-dev`, `libclang-dev`: MP4 video, feature `video`), and
//! Chromium (`chromium`: the synchronization picture's test renders it). As root it installs missing ones with
//! apt-get; otherwise it prints the exact command to run and stops. Set
//! `ADL_SKIP_SETUP=1` to skip the check (for systems that provide OpenCL in
//! another way).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod background;
mod beside;
mod docs;
mod fuzz;
mod python;

/// Debian packages needed by the build and the tests.
const PACKAGES: [&str; 12] = [
    "ocl-icd-opencl-dev",
    "pocl-opencl-icd",
    "libturbojpeg0-dev",
    "libjpeg62-turbo-dev",
    "pkg-config",
    // MP4 video (adl-files' feature `video`): FFmpeg's decoders and
    // scaler, and libclang, with which the binding's build generates its
    // declarations from their headers.
    "libavcodec-dev",
    "libavformat-dev",
    "libswscale-dev",
    "libclang-dev",
    // FFmpeg's other libraries, which torchcodec (lerobot's decoder, that
    // adl.lerobot is tested against) loads beside those.
    "libavdevice59",
    "libavfilter8",
    // A headless browser: the test of a trace's synchronization picture
    // renders the SVG in it and looks at the screenshot's pixels.
    "chromium",
];

const USAGE: &str = "usage: cargo xtask <example [ARGS...] | test [CARGO TEST ARGS...] | docs | python | fuzz [--seconds N] [--merge] [TARGET...] | setup>";

fn main() -> ExitCode {
    std::sync::LazyLock::force(&START);
    let mut args = std::env::args().skip(1);
    let Some(task) = args.next() else {
        eprintln!("{USAGE}");
        return ExitCode::FAILURE;
    };
    let rest: Vec<String> = args.collect();
    let cargo_args: Vec<String> = match task.as_str() {
        "example" => ["run", "--example", "px4_trace", "--"]
            .into_iter()
            .map(String::from)
            .chain(rest.iter().cloned())
            .collect(),
        // Object storage's tests (adl-files' `store`) and LeRobot's (with
        // video) in the same build: a run of their own built adl-files and
        // its dependents once more.
        "test" => [
            "test",
            "--workspace",
            "--features",
            "adl-files/store,adl/lerobot",
        ]
        .into_iter()
        .map(String::from)
        .chain(rest.iter().cloned())
        .collect(),
        "setup" | "python" | "fuzz" | "docs" => Vec::new(),
        other => {
            eprintln!("xtask: unknown task `{other}`\n{USAGE}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(message) = ensure_system_packages() {
        eprintln!("xtask: {message}");
        return ExitCode::FAILURE;
    }
    // The workspace's root: xtask's parent folder.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."));
    if matches!(task.as_str(), "test" | "python") {
        python::keep_bytecode(root);
    }
    if task == "fuzz" {
        return match fuzz::run(root, &rest) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("xtask: {message}");
                ExitCode::FAILURE
            }
        };
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    if task == "docs" {
        return match docs::check(root, &cargo) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("xtask: {message}");
                ExitCode::FAILURE
            }
        };
    }
    if task == "python" {
        return match python::test_package(root, None) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("xtask: {message}");
                ExitCode::FAILURE
            }
        };
    }
    if cargo_args.is_empty() {
        return ExitCode::SUCCESS;
    }
    // The Python tests' venv (PyTorch: minutes to fetch) made while the
    // Rust suite builds; the Python package's build, the Ray tests and the
    // rest of `beside.rs` beside the Rust tests, once their build is done.
    let mut beside = (task == "test").then(|| beside::Beside::start(root, python::prepare(root)));
    let mut command = Command::new(&cargo);
    without_incremental_on_ci(&mut command).args(&cargo_args);
    if task == "test" {
        // The system packages are there: a missing OpenCL device is a
        // failure, not a skip.
        command.env("ADL_REQUIRE_OPENCL", "1");
    }
    let started = std::time::Instant::now();
    let status = match beside.as_mut() {
        // The tests built first (`--no-run`, its messages naming the test
        // executables), the work beside let go, then the tests run.
        Some(beside) => {
            let mut build = Command::new(&cargo);
            without_incremental_on_ci(&mut build).args(with_flags(
                &cargo_args,
                &["--no-run", "--message-format=json-render-diagnostics"],
            ));
            match beside.build(&mut build, &mut command) {
                Ok(built) if built.success() => command.status(),
                other => other,
            }
        }
        None => command.status(),
    };
    if task == "test" {
        took(&format!("`cargo {}`", cargo_args.join(" ")), started);
    }
    match status {
        Ok(status) if status.success() => {}
        Ok(status) => {
            eprintln!("xtask: `cargo {}` failed ({status})", cargo_args.join(" "));
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("xtask: could not run {cargo}: {e}");
            return ExitCode::FAILURE;
        }
    }
    let Some(beside) = beside else {
        return ExitCode::SUCCESS;
    };
    // The rest of the test command: the Python tests, started beside the
    // Rust tests, waited for.
    let started = std::time::Instant::now();
    let tested = beside.finish().and_then(|tests| {
        took("waiting for the work beside the Rust tests", started);
        background::finish_all(tests)
    });
    took("the Python tests, after the Rust tests", started);
    match tested {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// `command` (a cargo build) without incremental compilation where the
/// `CI` variable is set and `CARGO_INCREMENTAL` is not: a clean clone's
/// builds gain nothing from the caches it writes (a quarter more of the
/// workspace crates' compile time here). Every cargo command of the test
/// command gets it, so that they agree (a build that differs in it
/// rebuilds).
pub(crate) fn without_incremental_on_ci(command: &mut Command) -> &mut Command {
    if std::env::var_os("CI").is_some_and(|v| !v.is_empty())
        && std::env::var_os("CARGO_INCREMENTAL").is_none()
    {
        command.env("CARGO_INCREMENTAL", "0");
    }
    command
}

/// `args` (cargo's) with `flags` before the `--` that ends cargo's own,
/// where there is one (what follows it goes to the test binaries).
fn with_flags(args: &[String], flags: &[&str]) -> Vec<String> {
    let end = args.iter().position(|a| a == "--").unwrap_or(args.len());
    let mut with = args[..end].to_vec();
    with.extend(flags.iter().map(|f| f.to_string()));
    with.extend_from_slice(&args[end..]);
    with
}

/// Say how long `what` took since `started`, so that a run's time can be
/// read from its log (the suite's budget is 20 minutes on CI's 2 cores);
/// with when it ended since xtask started, so that the steps beside the
/// Rust tests can be placed on one time line, and the processor time
/// xtask's ended children took so far (CI's two cores are full for most
/// of the suite: what a step costs is processor time more than waits).
pub(crate) fn took(what: &str, started: std::time::Instant) {
    let cpu = children_cpu_seconds().map_or(String::new(), |s| format!(", {s:.0} s of CPU"));
    eprintln!(
        "xtask: {what} took {:.0} s (ended {:.0} s in{cpu})",
        started.elapsed().as_secs_f64(),
        START.elapsed().as_secs_f64()
    );
}

/// The user and system time of this process's children that have ended
/// and been waited for (theirs included), in seconds: `cutime` and
/// `cstime` of `/proc/self/stat`, in clock ticks of 1/100 s (Linux's
/// `USER_HZ`); `None` where that cannot be read.
fn children_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command's name, which is in parentheses and
    // may hold spaces: the 16th and 17th of the whole line.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<f64>().ok();
    Some((ticks(13)? + ticks(14)?) / 100.0)
}

/// When xtask started (first asked for at the start of `main`).
static START: std::sync::LazyLock<std::time::Instant> =
    std::sync::LazyLock::new(std::time::Instant::now);

/// The target folder: `CARGO_TARGET_DIR` where set (a relative one from
/// the root), else `target/` at the root.
pub(crate) fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|dir| {
            if dir.is_absolute() {
                dir
            } else {
                root.join(dir)
            }
        })
        .unwrap_or_else(|| root.join("target"))
}

/// Install the missing [`PACKAGES`] (as root) or say exactly what to run.
fn ensure_system_packages() -> Result<(), String> {
    if std::env::var_os("ADL_SKIP_SETUP").is_some_and(|v| v == "1") {
        return Ok(());
    }
    if !succeeds("dpkg-query", &["--version"]) {
        return if succeeds("sh", &["-c", "ldconfig -p | grep -q 'libOpenCL.so'"]) {
            Ok(())
        } else {
            Err(format!(
                "this is not a Debian system and no OpenCL loader (libOpenCL.so) was found.\n\
                 Install an OpenCL ICD loader and a CPU OpenCL driver (on Debian: {}),\n\
                 or set ADL_SKIP_SETUP=1 to skip this check.",
                PACKAGES.join(" ")
            ))
        };
    }
    let missing: Vec<&str> = PACKAGES.into_iter().filter(|p| !is_installed(p)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let install = format!(
        "apt-get install -y --no-install-recommends {}",
        missing.join(" ")
    );
    if !is_root() {
        return Err(format!(
            "missing system packages: {}. Run:\n    sudo apt-get update && sudo {install}\nthen run this command again.",
            missing.join(", ")
        ));
    }
    eprintln!("xtask: installing {} with apt-get", missing.join(", "));
    let script = format!("apt-get update -q && DEBIAN_FRONTEND=noninteractive {install} -q");
    if !run_visible("sh", &["-c", &script]) {
        return Err(format!(
            "installing {} failed; run `{script}` by hand and look at its output",
            missing.join(", ")
        ));
    }
    match PACKAGES.into_iter().find(|p| !is_installed(p)) {
        Some(p) => Err(format!("{p} is still not installed after apt-get")),
        None => Ok(()),
    }
}

fn is_installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", package])
        .output()
        .is_ok_and(|o| {
            o.status.success()
                && String::from_utf8_lossy(&o.stdout).contains("install ok installed")
        })
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn succeeds(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

fn run_visible(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .status()
        .is_ok_and(|s| s.success())
}
