//! What `cargo xtask test` runs beside the Rust tests. The tests leave
//! about half of CI's two cores idle (they wait on servers, child
//! processes and timeouts), and `cargo` needs the target dir's lock,
//! which `cargo test` holds while it builds. So the tests are built first
//! (`cargo test --no-run`, whose JSON messages name the executables it
//! made), and once that build is done, while `cargo test` runs them: the
//! servers' venvs made (the store tests' own test, alone), the Python
//! package built into the tests' venv, the Ray tests started (they wait
//! mostly on processes starting), the other two Python packages built,
//! the other Python tests started, then the steps that need no venv (and
//! go first where the venv is still being made): adl-files' tests whose
//! expectations depend on the JPEG decoder run once more with zune-jpeg
//! (`ADL_JPEG_DECODER=zune-jpeg`: the build has libjpeg-turbo, for
//! adl-bench), and the benchmark workloads' digests checked.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::background::{Background, Shown, output_to};
use crate::python;

/// What the thread beside the tests hands back: the Python tests running
/// (the Ray tests in a pytest of their own).
pub(crate) type Started = Vec<Background>;

/// adl-files' test targets whose expectations depend on which decoder
/// decodes JPEG (libjpeg-turbo or zune-jpeg): run once more with
/// zune-jpeg, as a build without feature `libjpeg-turbo` decodes.
const JPEG_TESTS: [&str; 3] = ["images", "crop_decoder", "rover"];

/// adl-files' object storage tests: their test that makes the servers'
/// venvs (SeaweedFS's, Azurite's: a minute of downloads) runs alone first,
/// beside the test binaries before it.
const STORE_TESTS: &str = "store";

/// The store tests' test that makes the servers' venvs.
const SERVERS_VENVS_TEST: &str = "the_servers_venvs_are_made";

/// The main example, which a test of the suite runs.
const PX4_EXAMPLE: &str = "px4_trace";

/// The test executables of adl-files the tests' build made that the work
/// beside uses.
#[derive(Default)]
pub(crate) struct Built {
    /// Those of [`JPEG_TESTS`].
    jpeg_tests: Vec<PathBuf>,
    /// That of [`STORE_TESTS`].
    store_tests: Option<PathBuf>,
    /// The main example's (`px4_trace`), which the suite runs
    /// (`ADL_PX4_TRACE_EXAMPLE`; else it runs `cargo run --example`).
    px4_example: Option<PathBuf>,
}

impl Built {
    /// Take the executable the build's JSON message `line` names, where
    /// it is one of these.
    fn take(&mut self, line: &str) {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            return;
        };
        let target = &message["target"];
        let from_adl_files = message["reason"] == "compiler-artifact"
            && message["package_id"]
                .as_str()
                .is_some_and(|id| id.contains("/adl-files#"))
            && target["kind"] == serde_json::json!(["test"]);
        let (Some(name), Some(executable)) =
            (target["name"].as_str(), message["executable"].as_str())
        else {
            return;
        };
        if name == PX4_EXAMPLE && target["kind"] == serde_json::json!(["example"]) {
            self.px4_example = Some(PathBuf::from(executable));
        }
        if !from_adl_files {
            return;
        }
        if JPEG_TESTS.contains(&name) {
            self.jpeg_tests.push(PathBuf::from(executable));
        } else if name == STORE_TESTS {
            self.store_tests = Some(PathBuf::from(executable));
        }
    }
}

/// The work beside the Rust tests, waiting for their build or running.
pub(crate) struct Beside {
    /// Lets the work go, with the executables it uses; `None` once it
    /// has.
    release: Option<Sender<Built>>,
    handle: Option<JoinHandle<Result<Started, String>>>,
    /// The command it runs (a JPEG test, a workload),
    /// killed where the work is dropped unfinished (a step before it
    /// failed).
    child: Arc<Mutex<Option<Child>>>,
    /// Set where the work is dropped unfinished: it starts nothing more.
    cancelled: Arc<AtomicBool>,
}

impl Beside {
    /// The work, waiting to be let go; `venv` makes the tests' venv (on a
    /// thread of its own since the start).
    pub(crate) fn start(root: &Path, venv: JoinHandle<Result<PathBuf, String>>) -> Beside {
        let (release, released) = channel::<Built>();
        let child = Arc::new(Mutex::new(None));
        let cancelled = Arc::new(AtomicBool::new(false));
        let (running, stop) = (Arc::clone(&child), Arc::clone(&cancelled));
        let root = root.to_path_buf();
        let handle = std::thread::spawn(move || {
            let Ok(built) = released.recv() else {
                return Err(
                    "the work beside the Rust tests did not run: their build did not finish".into(),
                );
            };
            // The servers' venvs made beside what follows (it waits on
            // downloads, mostly).
            let servers = servers_venvs(&root, built.store_tests.as_deref())?;
            // What needs no venv first where the venv is still being made
            // (PyTorch's download), else once the Python tests run.
            let venv_first = venv.is_finished();
            if !venv_first {
                no_venv_steps(&root, &built, &running, &stop)?;
            }
            let started = Instant::now();
            let python = venv
                .join()
                .unwrap_or_else(|_| Err("making the Python venv panicked".into()))?;
            crate::took("waiting for the Python venv", started);
            if stop.load(Ordering::SeqCst) {
                return Err("stopped".into());
            }
            python::install(&root, &python, &python::PACKAGES[..1])?;
            if stop.load(Ordering::SeqCst) {
                return Err("stopped".into());
            }
            let ray = python::ray_tests(&root, &python)?;
            if stop.load(Ordering::SeqCst) {
                // Stopped while they started: dropped, they are killed.
                return Err("stopped".into());
            }
            // The other two packages (the example crate's and the W2
            // benchmark's), which the Ray tests do not need, then the
            // other Python tests: while those and the Rust tests run, not
            // after them. A failure drops what started: they are killed.
            let started = Instant::now();
            python::install(&root, &python, &python::PACKAGES[1..])?;
            crate::took("the other Python packages (beside the Rust tests)", started);
            if stop.load(Ordering::SeqCst) {
                return Err("stopped".into());
            }
            let rest = python::other_tests(&root, &python)?;
            if venv_first {
                no_venv_steps(&root, &built, &running, &stop)?;
            }
            servers.finish()?;
            Ok(vec![rest, ray])
        });
        Beside {
            release: Some(release),
            handle: Some(handle),
            child,
            cancelled,
        }
    }

    /// Run `command`, the tests' build (`cargo test --no-run
    /// --message-format=json-render-diagnostics`: its messages read from
    /// its standard output, its diagnostics and progress on standard
    /// error as usual), and let the work go where it succeeds, with the
    /// executables it made that the work uses ([`Built`]); `tests` (the
    /// tests' run) is told where the main example's executable is.
    pub(crate) fn build(
        &mut self,
        command: &mut Command,
        tests: &mut Command,
    ) -> std::io::Result<ExitStatus> {
        let mut child = command.stdout(Stdio::piped()).spawn()?;
        let mut built = Built::default();
        if let Some(stdout) = child.stdout.take() {
            for line in BufReader::new(stdout).lines() {
                built.take(&line?);
            }
        }
        let status = child.wait()?;
        if let Some(example) = &built.px4_example {
            tests.env("ADL_PX4_TRACE_EXAMPLE", example);
        }
        if status.success()
            && let Some(release) = self.release.take()
        {
            let _ = release.send(built);
        }
        Ok(status)
    }

    /// Wait for the work and give what it started.
    pub(crate) fn finish(mut self) -> Result<Started, String> {
        // Let go here at the latest (not built through `build`).
        if let Some(release) = self.release.take() {
            let _ = release.send(Built::default());
        }
        match self.handle.take().map(JoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err("the work beside the Rust tests panicked".into()),
            None => Err("the work beside the Rust tests was already taken".into()),
        }
    }
}

impl Drop for Beside {
    fn drop(&mut self) {
        // Unfinished (a step before it failed): the work is not let go, or
        // it starts nothing after its current step, and the command it
        // runs is killed. Where it has ended, the Ray tests it started stop as
        // their handle drops; where it has not (waiting for the venv, say),
        // it is not waited for: the test command fails now.
        self.release.take();
        self.cancelled.store(true, Ordering::SeqCst);
        if let Ok(mut child) = self.child.lock()
            && let Some(child) = child.as_mut()
        {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(handle) = self.handle.take()
            && handle.is_finished()
        {
            let _ = handle.join();
        }
    }
}

/// The steps beside the Rust tests that need no Python venv: adl-files'
/// JPEG tests with zune-jpeg, the workloads' digests.
fn no_venv_steps(
    root: &Path,
    built: &Built,
    running: &Mutex<Option<Child>>,
    stop: &AtomicBool,
) -> Result<(), String> {
    let started = Instant::now();
    test_with_zune_jpeg(root, &built.jpeg_tests, running)?;
    crate::took(
        "the JPEG tests with zune-jpeg (beside the Rust tests)",
        started,
    );
    if stop.load(Ordering::SeqCst) {
        return Err("stopped".into());
    }
    let started = Instant::now();
    check_workloads(root, running)?;
    crate::took("the workloads' digests (beside the Rust tests)", started);
    Ok(())
}

/// The store tests' test that makes the servers' venvs, alone, from
/// `executable` (an error where the build made none), beside the rest.
fn servers_venvs(root: &Path, executable: Option<&Path>) -> Result<Background, String> {
    let executable = executable.ok_or_else(|| {
        format!("the tests' build made no executable of adl-files' `{STORE_TESTS}` tests")
    })?;
    let mut command = Command::new(executable);
    command
        .args(["--exact", SERVERS_VENVS_TEST])
        .current_dir(root.join("adl-files"));
    Background::start(
        root,
        format!("making the servers' venvs (`{STORE_TESTS} --exact {SERVERS_VENVS_TEST}`)"),
        &mut command,
        "servers-venvs.log",
        Shown::OnFailure,
    )
}

/// adl-files' tests whose expectations depend on the JPEG decoder
/// ([`JPEG_TESTS`], the executables the tests' build made), run once more
/// with zune-jpeg (`ADL_JPEG_DECODER=zune-jpeg`): zune-jpeg's decoding and
/// the box downscale, which a build without libjpeg-turbo (the Python
/// wheel's) uses, with no build of their own. Their output in
/// `target/jpeg-tests.log`, printed where they fail.
fn test_with_zune_jpeg(
    root: &Path,
    executables: &[PathBuf],
    running: &Mutex<Option<Child>>,
) -> Result<(), String> {
    if executables.len() != JPEG_TESTS.len() {
        return Err(format!(
            "the tests' build made {} of adl-files' tests {JPEG_TESTS:?} ({executables:?}): they were to run once more with zune-jpeg",
            executables.len()
        ));
    }
    let log = crate::target_dir(root).join("jpeg-tests.log");
    let mut printed = String::new();
    for executable in executables {
        let what = format!("`ADL_JPEG_DECODER=zune-jpeg {}`", executable.display());
        let mut command = Command::new(executable);
        // Where `cargo test` runs them: their package's folder.
        command
            .current_dir(root.join("adl-files"))
            .env("ADL_JPEG_DECODER", "zune-jpeg")
            .env("ADL_REQUIRE_OPENCL", "1");
        let (status, output) = run_logged(&mut command, &log, running, &what)?;
        printed.push_str(&output);
        if !status.success() {
            return Err(format!("{what} failed ({status}):\n{printed}"));
        }
    }
    Ok(())
}

/// The benchmark workloads W1-W3 at full size, checked against the digests
/// of bench/WORKLOADS.md, with the default device and, for W2, with its
/// batch stage as OpenCL kernels on POCL's CPU device (named: a CPU device
/// is never the default); W3 soaked for 100 epochs (`--soak`: resident
/// memory and threads flat). They run the `adl-bench` the test build made (a
/// debug build: the digests are the same in release, and a release build
/// of the workspace took CI's two cores 2 m 14 s, more than the workloads
/// take in debug). Each run's output in `target/workloads-check.log`,
/// printed where one fails.
fn check_workloads(root: &Path, running: &Mutex<Option<Child>>) -> Result<(), String> {
    let target = crate::target_dir(root);
    let bench = target.join("debug").join("adl-bench");
    let log = target.join("workloads-check.log");
    let workloads: [&[&str]; 4] = [
        &["--workload", "w1"],
        &["--workload", "w2"],
        &["--workload", "w2", "--device", "pocl"],
        // And 100 epochs more, resident memory and threads watched.
        &["--workload", "w3", "--soak", "100"],
    ];
    for workload in workloads {
        let what = format!("`adl-bench {} --verify`", workload.join(" "));
        let mut command = Command::new(&bench);
        command
            .args(workload)
            .arg("--verify")
            .env("ADL_REQUIRE_OPENCL", "1");
        let (status, printed) = run_logged(&mut command, &log, running, &what)?;
        if !status.success() {
            return Err(format!("{what} failed ({status}):\n{printed}"));
        }
    }
    Ok(())
}

/// Run `command` with its standard output and error in `log` (made anew),
/// held in `running` while it runs so that a dropped [`Beside`] kills it;
/// its status and what it printed.
fn run_logged(
    command: &mut Command,
    log: &Path,
    running: &Mutex<Option<Child>>,
    what: &str,
) -> Result<(ExitStatus, String), String> {
    let spawned = output_to(command, log, what)?
        .spawn()
        .map_err(|e| format!("{what}: could not run {:?}: {e}", command.get_program()))?;
    *running
        .lock()
        .map_err(|_| format!("{what}: a lock was poisoned"))? = Some(spawned);
    let status = loop {
        {
            let mut guard = running
                .lock()
                .map_err(|_| format!("{what}: a lock was poisoned"))?;
            let Some(child) = guard.as_mut() else {
                return Err(format!("{what} was stopped"));
            };
            if let Some(status) = child.try_wait().map_err(|e| format!("{what}: {e}"))? {
                guard.take();
                break status;
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    Ok((status, std::fs::read_to_string(log).unwrap_or_default()))
}
